import HLSInterstitials
import HLSPlaylist
import HTTPFetch

/// Whether the player fires the tracking beacons that asset lists carry in
/// `X-AD-CREATIVE-SIGNALING` (SVTA2053-2).
public enum BeaconMode: String, Sendable, Hashable, CaseIterable {
    /// Beacons are left to the server (the default: an SGAI server that fires them itself, like
    /// Intermission's `/v1/track`, needs nothing from the player).
    case off
    /// The player fires each beacon once per slot at its playback moment (client-side beaconing,
    /// the only mode some platforms certify).
    case client
}

/// One beacon to send: which tracking event of which slot, and its URL with macros filled.
struct BeaconFire: Sendable, Hashable {
    /// The tracking event's identity (event, asset, slot path, index in the tracking list).
    var key: BeaconTracker.Key
    /// The tracking event's type (`impression`, `firstQuartile`, …).
    var type: String
    /// The creative (the slot's first identifier's value), or `nil`.
    var creative: String?
    /// The URL to request.
    var url: String
    /// Where in the asset the beacon was due (seconds from the asset's start).
    var moment: MediaTime
}

/// Decides when the beacons of an interstitial's asset-list entries fire (SVTA2053-2), from where
/// the playhead is in each asset: a value type; the player sends what it returns.
///
/// The readings this tracker follows (documented in the InterstitialPlayback catalog):
/// - A slot's `start` counts from the start of the interstitial, as the asset list's entries are
///   laid end to end by their `DURATION`s. Since `DURATION` is informational, each slot is
///   anchored to the asset that carries it: its start within the asset is `start` minus the
///   planned start of the asset (the `DURATION`s before it). A `start` smaller than the asset's
///   planned start is read as counting from the asset's own start.
/// - A tracking event's moment is its `offset` from the slot (or pod) start when given; otherwise
///   it follows its type: `impression`, `loaded`, `start`, `creativeView` and `podStart` at 0,
///   the quartiles at 25, 50 and 75 % of the duration, `complete` and `podEnd` at the end. Other
///   types without an offset (`clickTracking`, `skip`, `error`, `pause`, …) are not timed.
/// - Moments past the asset's actual end are clamped to it: an asset that plays to its end fires
///   everything it reached.
/// - Each tracking event fires at most once per event for the whole session (a replay after a
///   seek back fires nothing again). Moments the playhead jumps over (a live join into the middle
///   of the interstitial) do not fire, except the `impression` of the slot the join lands in:
///   that ad is shown.
/// - Nothing timed fires before the asset's first media arrives (a segment is buffered): an ad
///   whose segments never come counts no `impression`, `creativeView` or `start`.
/// - A skip fires the current slot's `skip` events; a failed asset fires its slots' `error`
///   events with `[ERRORCODE]` as VAST 4 numbers it (401 file not found, 405 problem displaying the
///   media, 400 otherwise); an early return (playout limit, cancel, a seek out of the break) fires
///   nothing more for the event.
/// - `pause`, `resume`, `mute` and `unmute` follow the viewer: the current slot's fire each time
///   the player pauses, plays again, mutes or unmutes within it (not only once).
struct BeaconTracker: Sendable {
    /// A tracking event's identity: the interstitial, the asset index, the slot path (`[slot]`
    /// or `[pod, slot]`; `[pod]` for a pod's own events) and its index in its tracking list.
    struct Key: Sendable, Hashable {
        var eventID: String
        var asset: Int
        var path: [Int]
        var index: Int
    }

    /// A planned tracking event of an asset.
    struct Planned: Sendable {
        var key: Key
        var type: String
        var creative: String?
        /// The slot's `universalAdId` identifier (`registry value`), for `[UNIVERSALADID]`.
        var universalAdID: String? = nil
        var urls: [String]
        /// Seconds from the asset's start; `nil` when untimed.
        var moment: MediaTime?
        /// The slot's span within the asset (for the slot a join lands in, and for `skip`).
        var span: Range<MediaTime>
    }

    /// The VAST error code sent for a failed asset when no better one is known: "problem
    /// displaying MediaFile".
    static let assetErrorCode = 405
    /// VAST 400: general linear error.
    static let generalLinearErrorCode = 400
    /// VAST 401: file not found (the media could not be fetched).
    static let fileNotFoundErrorCode = 401

    /// Planned events by interstitial, then asset index.
    private(set) var plans: [String: [Int: [Planned]]] = [:]
    /// Tracking events already fired (or passed over).
    private(set) var done: Set<Key> = []
    /// Where each asset's playhead was last seen (`eventID`, asset index).
    private var lastSeen: [String: (asset: Int, position: MediaTime)] = [:]
    /// Random digits for `[CACHEBUSTING]`.
    var random = PreloadRandom(seed: nil)
    /// Macro values the player knows besides the cache buster and error code (`CONTENTPLAYHEAD`,
    /// `ASSETURI`, …), by interstitial, then asset index: set by the player as an asset plays.
    var knownMacros: [String: [Int: [String: String]]] = [:]

    /// The asset list of `eventID` loaded: plans its slots' beacons (a list loaded again for the
    /// same event keeps what already fired).
    ///
    /// - Parameters:
    ///   - eventID: The interstitial's `ID`.
    ///   - assets: Each asset's signaling (or `nil`) and planned start in the interstitial.
    mutating func listLoaded(eventID: String, assets: [(signaling: CreativeSignaling?, plannedStart: MediaTime)]) {
        var byAsset: [Int: [Planned]] = [:]
        for (index, asset) in assets.enumerated() {
            guard let signaling = asset.signaling else { continue }
            var planned: [Planned] = []
            let isPod = signaling.type == "pod"
            for (itemIndex, item) in signaling.payload.enumerated() {
                if isPod {
                    let podStart = Self.startInAsset(item.start, plannedStart: asset.plannedStart)
                    planned += Self.plan(item, eventID: eventID, asset: index, path: [itemIndex], start: podStart)
                    for (slotIndex, slot) in (item.slots ?? []).enumerated() {
                        let start = Self.startInAsset(slot.start ?? item.start, plannedStart: asset.plannedStart)
                        planned += Self.plan(
                            slot,
                            eventID: eventID,
                            asset: index,
                            path: [itemIndex, slotIndex],
                            start: start
                        )
                    }
                } else {
                    let start = Self.startInAsset(item.start, plannedStart: asset.plannedStart)
                    planned += Self.plan(item, eventID: eventID, asset: index, path: [itemIndex], start: start)
                }
            }
            if !planned.isEmpty { byAsset[index] = planned }
        }
        self.plans[eventID] = byAsset
    }

    /// A slot's start within its asset (see the type's readings).
    static func startInAsset(_ start: JSONNumber?, plannedStart: MediaTime) -> MediaTime {
        guard let seconds = start?.doubleValue, seconds.isFinite, seconds >= 0 else { return .zero }
        let value = MediaTime(seconds: seconds)
        return value + MediaTime(milliseconds: 1) >= plannedStart ? MediaTime.max(.zero, value - plannedStart) : value
    }

    /// The tracking events of one slot or pod starting at `start` within the asset.
    static func plan(
        _ item: CreativeSignaling.Item,
        eventID: String,
        asset: Int,
        path: [Int],
        start: MediaTime
    ) -> [Planned] {
        let duration = item.duration.map(\.doubleValue).flatMap {
            $0.isFinite && $0 >= 0 ? MediaTime(seconds: $0) : nil
        }
        let end = duration.map { start + $0 } ?? .maximum
        let creative = item.identifiers?.first?.value
        let universal = item.identifiers?.first { $0.scheme == CreativeSignaling.Identifier.universalAdIDScheme }?.value
        return (item.tracking ?? []).enumerated().map { index, event in
            var moment: MediaTime?
            if let offset = event.offset?.doubleValue, offset.isFinite, offset >= 0 {
                moment = start + MediaTime(seconds: offset)
            } else if let fraction = Self.fraction(of: event.type) {
                if fraction == 0 {
                    moment = start
                } else if let duration {
                    moment = start + MediaTime(seconds: duration.seconds * fraction)
                }
            }
            return Planned(
                key: Key(eventID: eventID, asset: asset, path: path, index: index),
                type: event.type,
                creative: creative,
                universalAdID: universal,
                urls: event.urls,
                moment: moment,
                span: start..<MediaTime.max(end, start)
            )
        }
    }

    /// Where in a slot a type without an offset fires, as a fraction of its duration.
    static func fraction(of type: String) -> Double? {
        switch type {
        case "impression", "loaded", "start", "creativeView", "podStart": 0
        case "firstQuartile": 0.25
        case "midpoint": 0.5
        case "thirdQuartile": 0.75
        case "complete", "podEnd": 1
        default: nil
        }
    }

    /// The playhead of `eventID`'s asset `asset` is at `position` (the asset playing; `duration`
    /// its actual duration when known): the beacons it reached since it was last seen.
    ///
    /// Until `mediaArrived` (the asset's first segment), nothing fires and the playhead is not
    /// taken as seen.
    mutating func advance(
        eventID: String,
        asset: Int,
        position: MediaTime,
        duration: MediaTime?,
        mediaArrived: Bool = true
    ) -> [BeaconFire] {
        guard mediaArrived, let planned = self.plans[eventID]?[asset] else { return [] }
        let previous = self.lastSeen[eventID].flatMap { $0.asset == asset ? $0.position : nil }
        self.lastSeen[eventID] = (asset, position)
        var fires: [BeaconFire] = []
        // By moment; at one moment a pod's start first and its end last; then in written order.
        let reached = planned.enumerated().compactMap { index, plan -> (Planned, MediaTime, Int)? in
            guard let moment = plan.moment, !self.done.contains(plan.key) else { return nil }
            let due = duration.map { MediaTime.min(moment, $0) } ?? moment
            let rank = plan.type == "podStart" ? 0 : plan.type == "podEnd" ? 2 : 1
            return due <= position ? (plan, due, rank * 1_000_000 + index) : nil
        }.sorted { ($0.1, $0.2) < ($1.1, $1.2) }
        for (plan, due, _) in reached {
            self.done.insert(plan.key)
            // First seen past zero: a join. Moments it jumped over are passed, except the
            // impression of the slot it landed in.
            if previous == nil, position > MediaTime(milliseconds: 1), due < position {
                guard plan.type == "impression", plan.span.contains(position) else { continue }
            }
            fires += self.fires(plan, moment: due)
        }
        return fires
    }

    /// The moment (asset time) of the next timed beacon of this asset after `position`.
    func nextMoment(eventID: String, asset: Int, after position: MediaTime, duration: MediaTime?) -> MediaTime? {
        self.plans[eventID]?[asset]?.compactMap { plan -> MediaTime? in
            guard let moment = plan.moment, !self.done.contains(plan.key) else { return nil }
            let due = duration.map { MediaTime.min(moment, $0) } ?? moment
            return due > position ? due : nil
        }.min()
    }

    /// The user skipped `eventID`: the `skip` events of the slot being played, then nothing more.
    mutating func skipped(eventID: String) -> [BeaconFire] {
        defer { self.finished(eventID: eventID) }
        guard let (asset, position) = self.lastSeen[eventID], let planned = self.plans[eventID]?[asset] else {
            return []
        }
        var fires: [BeaconFire] = []
        for plan in planned where plan.type == "skip" && plan.span.contains(position) && !self.done.contains(plan.key) {
            self.done.insert(plan.key)
            fires += self.fires(plan, moment: position)
        }
        return fires
    }

    /// Asset `asset` of `eventID` failed: its slots' `error` events, `[ERRORCODE]` being
    /// `errorCode`.
    mutating func assetFailed(eventID: String, asset: Int, errorCode: Int = Self.assetErrorCode) -> [BeaconFire] {
        guard let planned = self.plans[eventID]?[asset] else { return [] }
        var fires: [BeaconFire] = []
        for plan in planned where plan.type == "error" && !self.done.contains(plan.key) {
            self.done.insert(plan.key)
            fires += self.fires(plan, moment: .zero, errorCode: errorCode)
        }
        self.plans[eventID]?[asset] = nil
        return fires
    }

    /// The VAST error code (VAST 4.x 2.3.6.3) of an asset that failed with `error`: 401 when its
    /// media could not be fetched (an HTTP error status, a timeout, a network failure, a bad URL),
    /// 405 when what came is not media the player can show (not a playlist, no playable variant, a
    /// body too large), 400 otherwise (a stall, …).
    static func errorCode(of error: PlaybackError) -> Int {
        switch error.code {
        case .httpStatus, .timeout, .transport, .invalidURL: Self.fileNotFoundErrorCode
        case .invalidPlaylist, .noPlayableVariant, .bodyTooLarge: Self.assetErrorCode
        default: Self.generalLinearErrorCode
        }
    }

    /// The viewer did `type` (`pause`, `resume`, `mute`, `unmute`) while `eventID` played: the
    /// current slot's events of that type, each time.
    mutating func viewerAction(_ type: String, eventID: String) -> [BeaconFire] {
        guard let (asset, position) = self.lastSeen[eventID], let planned = self.plans[eventID]?[asset] else {
            return []
        }
        var fires: [BeaconFire] = []
        for plan in planned where plan.type == type && plan.span.contains(position) {
            fires += self.fires(plan, moment: position)
        }
        return fires
    }

    /// `eventID` ended (played out, skipped, cut short, cancelled): nothing more fires for it.
    mutating func finished(eventID: String) {
        self.plans[eventID] = nil
        self.lastSeen[eventID] = nil
        self.knownMacros[eventID] = nil
    }

    /// One fire per URL of `plan`, macros filled (`[ADPLAYHEAD]` is `moment` from the slot's start).
    private mutating func fires(_ plan: Planned, moment: MediaTime, errorCode: Int? = nil) -> [BeaconFire] {
        var known = self.knownMacros[plan.key.eventID]?[plan.key.asset] ?? [:]
        known["ADPLAYHEAD"] = VASTMacros.playhead(MediaTime.max(.zero, moment - plan.span.lowerBound))
        if let universal = plan.universalAdID { known["UNIVERSALADID"] = universal }
        return plan.urls.map { url in
            BeaconFire(
                key: plan.key,
                type: plan.type,
                creative: plan.creative,
                url: self.fillMacros(
                    url,
                    errorCode: plan.type == "error" ? errorCode ?? Self.assetErrorCode : nil,
                    known: known
                ),
                moment: moment
            )
        }
    }

    /// Fills the VAST macros a player knows: `[CACHEBUSTING]` (8 random digits, one value per URL),
    /// for error events `[ERRORCODE]`, and the `known` values (`[ADPLAYHEAD]`, `[CONTENTPLAYHEAD]`,
    /// `[ASSETURI]`, `[UNIVERSALADID]` when the player has them).
    ///
    /// Other macros become `-1` (VAST 4.1: not known), in either spelling (`[NAME]`, `%5BNAME%5D`);
    /// what the URL already percent-encodes is kept as it is (`VASTMacros`).
    mutating func fillMacros(_ url: String, errorCode: Int?, known: [String: String] = [:]) -> String {
        var values = known
        values["CACHEBUSTING"] = String(10_000_000 + self.random.next() % 90_000_000)
        if let errorCode { values["ERRORCODE"] = String(errorCode) }
        return VASTMacros(values).fill(url)
    }
}
