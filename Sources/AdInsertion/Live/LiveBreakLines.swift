import HLSInterstitials
import HLSPlaylist
import Synchronization

/// The `EXT-X-DATERANGE` lines of live breaks, rendered once per version of a break instead of
/// once per decoration.
///
/// A live channel's playlist is decorated on every change of its upstream (every few seconds)
/// with the same breaks; rendering a break's tag (its event, its asset-list URL, its dates and
/// durations as text) and reading it back cost more than the rest of a small window's
/// decoration. The cache keeps, per channel, break ID and kind of line, the break it was rendered
/// from and the options it was rendered with; any difference in either (an early return, a
/// changed duration, another locator) renders the line again, so a cached line is always the line
/// that rendering now would give.
///
/// Shared by every decoration in the process behind a lock held only to look up or store (never
/// while rendering). At most ``capacity`` entries: a store into a full cache empties it first, so
/// memory stays bounded whatever IDs arrive.
enum LiveBreakLines {
    /// A rendered line and what the decorator needs to place it.
    struct Line: Sendable {
        /// The tag line.
        var rendered: RenderedDateRange
        /// The date range's `ID`.
        var identifier: String
        /// Its `START-DATE` (where it is placed).
        var start: DateTime
    }

    /// What a line is rendered from, besides the break.
    struct Options: Sendable, Hashable {
        var locator: AssetListLocator
        /// Interstitial lines: whether mid-rolls get `ONCE`.
        var midRollsOnce: Bool
        /// Preload lines: the preload window (zero for interstitial lines).
        var window: MediaTime
    }

    private struct Key: Hashable, Sendable {
        var channel: String
        var id: String
        var preload: Bool
    }

    private struct Entry: Sendable {
        var liveBreak: LiveBreak
        var options: Options
        var line: Line?
    }

    /// The most entries kept.
    static let capacity = 4_096

    private static let entries = Mutex<[Key: Entry]>([:])

    /// The break's interstitial line (``LiveBreak/interstitialEvent(locator:midRollsOnce:)``), or
    /// `nil` when the event has no date range.
    static func interstitial(_ liveBreak: LiveBreak, locator: AssetListLocator, midRollsOnce: Bool) -> Line? {
        let options = Options(locator: locator, midRollsOnce: midRollsOnce, window: .zero)
        return self.line(liveBreak, preload: false, options: options) {
            if locator.breakFormat == .schedule {
                let range = liveBreak.scheduleDateRange(locator: locator)
                return Line(rendered: RenderedDateRange(range), identifier: liveBreak.id, start: liveBreak.startDate)
            }
            return liveBreak.interstitialEvent(locator: locator, midRollsOnce: midRollsOnce).dateRange().map {
                Line(rendered: RenderedDateRange($0), identifier: liveBreak.id, start: liveBreak.startDate)
            }
        }
    }

    /// The break's preload line (``LiveBreak/preloadRange(locator:window:)``), or `nil` when the
    /// break has none.
    static func preload(_ liveBreak: LiveBreak, locator: AssetListLocator, window: MediaTime) -> Line? {
        let options = Options(locator: locator, midRollsOnce: false, window: window)
        return self.line(liveBreak, preload: true, options: options) {
            liveBreak.preloadRange(locator: locator, window: window).map {
                Line(rendered: RenderedDateRange($0.dateRange()), identifier: $0.identifier, start: $0.start)
            }
        }
    }

    private static func line(
        _ liveBreak: LiveBreak,
        preload: Bool,
        options: Options,
        render: () -> Line?
    ) -> Line? {
        let key = Key(channel: liveBreak.channel, id: liveBreak.id, preload: preload)
        let cached = self.entries.withLock { entries -> Line?? in
            guard let entry = entries[key], entry.liveBreak == liveBreak, entry.options == options else { return nil }
            return .some(entry.line)
        }
        if let cached { return cached }
        let line = render()
        self.entries.withLock { entries in
            if entries.count >= self.capacity, entries[key] == nil { entries.removeAll(keepingCapacity: true) }
            entries[key] = Entry(liveBreak: liveBreak, options: options, line: line)
        }
        return line
    }

    /// How many entries the cache holds (for tests).
    static var count: Int { self.entries.withLock { $0.count } }
}
