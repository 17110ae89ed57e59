import AdInsertion
import GroupCoordination
import HLSPlaylist
import Logging
import ServiceLifecycle
import Synchronization

/// The upstream playlists being read in the background, one ``UpstreamFeed`` (an actor of its own)
/// per channel and upstream URL, so that a heavy channel holds up no other.
///
/// Only URLs that answered are kept: at most ``capacity`` feeds and ``byteCapacity`` bytes of
/// playlists in all (requests for many renditions cannot grow it past this; the oldest feed goes
/// first). The reading loops run as child tasks of ``run()``, which the server's service group
/// runs (see ``UpstreamPollingService``), so they end when the server shuts down.
///
/// A class with a `Mutex`: every request that misses the response cache looks its feed up here; the
/// lock is held only to look up or change the dictionary.
final class UpstreamFeeds: Sendable {
    /// The most feeds kept.
    static let capacity = 256
    /// The most bytes the feeds hold in all (what the upstream sent and what is served for it).
    static let byteCapacity = 32 * 1024 * 1024

    private struct Entry {
        let feed: UpstreamFeed
        var weight: Int
        let order: Int
    }

    private struct State {
        var feeds: [String: Entry] = [:]
        var bytes = 0
        var order = 0
    }

    private let state = Mutex(State())
    private let starts: AsyncStream<UpstreamFeed>
    private let startContinuation: AsyncStream<UpstreamFeed>.Continuation

    /// The clock the feeds wait on (``ServerConfiguration/timerClock``).
    let timer: ElapsedClock

    /// No feed yet.
    init(timer: ElapsedClock = ElapsedClock()) {
        self.timer = timer
        (self.starts, self.startContinuation) = AsyncStream.makeStream(of: UpstreamFeed.self)
    }

    /// The feed of `key` (`{channel} {url}`), made with `make` when there is none.
    func feed(key: String, make: () -> UpstreamFeed) -> UpstreamFeed {
        var retired: [UpstreamFeed] = []
        let feed = self.state.withLock { state -> UpstreamFeed in
            if let entry = state.feeds[key] { return entry.feed }
            while state.feeds.count >= Self.capacity,
                let oldest = state.feeds.min(by: { $0.value.order < $1.value.order })
            {
                state.feeds[oldest.key] = nil
                state.bytes -= oldest.value.weight
                retired.append(oldest.value.feed)
            }
            let feed = make()
            state.order += 1
            state.feeds[key] = Entry(feed: feed, weight: 0, order: state.order)
            return feed
        }
        // Short hops to the feeds' actors: a retired feed ends its own loop.
        for old in retired { Task { await old.retire() } }
        return feed
    }

    /// Forgets a feed (one whose URL never answered, or one retired).
    func remove(_ feed: UpstreamFeed) {
        self.state.withLock { state in
            guard let entry = state.feeds[feed.key], entry.feed === feed else { return }
            state.feeds[feed.key] = nil
            state.bytes -= entry.weight
        }
    }

    /// Records what a feed holds now; past ``byteCapacity`` the oldest other feeds are retired.
    func weigh(_ feed: UpstreamFeed, bytes: Int) {
        var retired: [UpstreamFeed] = []
        self.state.withLock { state in
            guard let entry = state.feeds[feed.key], entry.feed === feed else { return }
            state.bytes += bytes - entry.weight
            state.feeds[feed.key]!.weight = bytes
            while state.bytes > Self.byteCapacity,
                let oldest = state.feeds.filter({ $0.value.feed !== feed }).min(by: { $0.value.order < $1.value.order })
            {
                state.feeds[oldest.key] = nil
                state.bytes -= oldest.value.weight
                retired.append(oldest.value.feed)
            }
        }
        // Short hops to the feeds' actors: a retired feed ends its own loop.
        for old in retired { Task { await old.retire() } }
    }

    /// The feeds of a channel.
    func feeds(ofChannel id: String) -> [UpstreamFeed] {
        self.state.withLock { state in state.feeds.values.filter { $0.feed.channel.id == id }.map(\.feed) }
    }

    /// How many feeds are kept (for tests).
    var count: Int { self.state.withLock { $0.feeds.count } }

    /// Has ``run()`` start the reading loop of `feed`.
    func startPolling(_ feed: UpstreamFeed) {
        self.startContinuation.yield(feed)
    }

    /// A channel's breaks changed: its feeds read their upstream again at once (and decorate it
    /// with the new breaks).
    func breaksChanged(channel id: String) {
        // Short hops to the feeds' actors (a wake resumes the loop that ``run()`` owns).
        for feed in self.feeds(ofChannel: id) { Task { await feed.wake() } }
    }

    /// Runs the reading loops of the feeds, each as a child task, until the task is cancelled (the
    /// server shutting down); then every loop has ended, and the feeds are forgotten.
    func run() async {
        await withDiscardingTaskGroup { group in
            for await feed in self.starts {
                group.addTask { await feed.poll() }
            }
        }
        // Cancelled: the loops saw it too. A feed holds the playlist service, which holds this.
        let feeds = self.state.withLock { state in
            defer { state = State() }
            return state.feeds.values.map(\.feed)
        }
        for feed in feeds { await feed.retire() }
    }
}

/// The feeds' part in the service group: their reading loops run while the server runs, and are
/// cancelled when it shuts down (before the store is closed: services shut down in reverse order).
struct UpstreamPollingService: Service {
    let feeds: UpstreamFeeds

    func run() async throws {
        await cancelWhenGracefulShutdown { await self.feeds.run() }
    }
}
