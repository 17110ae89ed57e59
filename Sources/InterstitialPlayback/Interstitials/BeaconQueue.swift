import HLSInterstitials
import HLSPlaylist

/// The beacons waiting to be sent, one at a time and in order, with their retries: a state
/// machine the coordinator owns.
///
/// It decides what is sent next, when a failed try is retried and when a beacon is given up; the
/// player performs the request (``InterstitialCoordinator/Action/sendBeacon(url:)``) and feeds
/// the answer back (``answered(_:now:)``).
struct BeaconQueue: Sendable {
    /// How many beacons wait, how many tries each gets, and how long after a failure the next
    /// comes (``Player/Configuration``'s beacon settings).
    struct Policy: Sendable, Equatable {
        /// Beacons waiting at most; past it a new one is logged as failed and dropped.
        var limit = 256
        /// Tries per beacon.
        var attempts = 3
        /// The wait after the first failed try; it doubles after each further one.
        var retryDelay = MediaTime(milliseconds: 500)
    }

    /// A beacon in the queue.
    struct Item: Sendable, Equatable {
        var fire: BeaconFire
        /// The absolute URL.
        var url: String
        /// Tries made so far.
        var attempts = 0
        /// The clock time it may be sent (later after a failed try).
        var due: MediaTime
    }

    /// The policy in force.
    var policy = Policy()
    /// In the order they fired.
    private(set) var items: [Item] = []
    /// Whether the head is being sent.
    private(set) var sending = false

    /// Whether nothing waits and nothing is being sent.
    var isSettled: Bool { self.items.isEmpty && !self.sending }

    /// When the head may be sent again after a failed try (or is due), while nothing is being sent.
    var retryDue: MediaTime? { self.sending ? nil : self.items.first?.due }

    /// `fires` join the queue at clock time `now`, each at its absolute URL (`url(_:)`); past the
    /// limit, a beacon is logged as failed and dropped.
    mutating func enqueue(
        _ fires: [BeaconFire],
        now: MediaTime,
        url: (BeaconFire) -> String
    ) -> [InterstitialCoordinator.Action] {
        var actions: [InterstitialCoordinator.Action] = []
        for fire in fires {
            guard self.items.count < self.policy.limit else {
                actions.append(
                    .emit(
                        .beaconFailed(
                            eventID: fire.key.eventID,
                            type: fire.type,
                            creative: fire.creative,
                            url: fire.url,
                            reason: "the beacon queue is full (\(self.policy.limit))"
                        )
                    )
                )
                continue
            }
            self.items.append(Item(fire: fire, url: url(fire), due: now))
        }
        return actions
    }

    /// The head is sent when it is due at clock time `now` and nothing is being sent.
    mutating func nextSend(now: MediaTime) -> InterstitialCoordinator.Action? {
        guard !self.sending, let head = self.items.first, head.due <= now else { return nil }
        self.sending = true
        return .sendBeacon(url: head.url)
    }

    /// The head's request answered at clock time `now`: a status from 200 to 399 fires it; a
    /// server error, a timeout (408) or "too many requests" (429), or a failed request, is tried
    /// again after the retry delay (doubled after each further failure) until its tries run out;
    /// any other status gives it up at once.
    mutating func answered(
        _ result: Result<LoadResponse, PlaybackError>,
        now: MediaTime
    ) -> [InterstitialCoordinator.Action] {
        self.sending = false
        guard var head = self.items.first else { return [] }
        head.attempts += 1
        let failure: String
        switch result {
        case .success(let response) where (200..<400).contains(response.status):
            self.items.removeFirst()
            return [
                .emit(
                    .beaconFired(
                        eventID: head.fire.key.eventID,
                        type: head.fire.type,
                        creative: head.fire.creative,
                        url: head.url,
                        status: response.status,
                        moment: head.fire.moment,
                        attempts: head.attempts
                    )
                )
            ]
        case .success(let response):
            // Only a server error, a timeout or "too many requests" is worth another try.
            let retryable = response.status >= 500 || response.status == 408 || response.status == 429
            failure = "HTTP \(response.status)"
            if !retryable { head.attempts = self.policy.attempts }
        case .failure(let error):
            failure = error.description
        }
        guard head.attempts < self.policy.attempts else {
            self.items.removeFirst()
            return [
                .emit(
                    .beaconFailed(
                        eventID: head.fire.key.eventID,
                        type: head.fire.type,
                        creative: head.fire.creative,
                        url: head.url,
                        reason: "\(failure) after \(head.attempts) tries"
                    )
                )
            ]
        }
        head.due = now + self.policy.retryDelay * (1 << min(head.attempts - 1, 16))
        self.items[0] = head
        return []
    }

    /// Playback ended: every beacon waiting is due now (sent in order, with its tries, without
    /// waiting for its retry time).
    mutating func settle() {
        for index in self.items.indices { self.items[index].due = .zero }
    }
}
