import HLSInterstitials
import HLSPlaylist
import Synchronization

/// The ads chosen for one viewer and one break: what an asset list answered, kept so the same
/// question gets the same answer.
public struct AdDecision: Sendable, Hashable, Codable {
    /// One chosen creative.
    public struct Asset: Sendable, Hashable, Codable {
        /// The creative's ID.
        public var creativeID: String
        /// Its URI as configured.
        public var uri: String
        /// Its duration.
        public var duration: MediaTime
        /// The URLs to track it with, when an ad server gave it (`nil` for the local inventory).
        public var tracking: AdTracking?
        /// When the viewer may skip it, from its start (an ad server's `Linear@skipoffset`), or
        /// `nil` when it may not be skipped.
        public var skipOffset: MediaTime?
        /// Its VAST `UniversalAdId` as `[UNIVERSALADID]` is filled (`registry value`), when an ad
        /// server gave one.
        public var universalAdID: String?

        /// Creates an asset.
        public init(
            creativeID: String,
            uri: String,
            duration: MediaTime,
            tracking: AdTracking? = nil,
            skipOffset: MediaTime? = nil,
            universalAdID: String? = nil
        ) {
            self.creativeID = creativeID
            self.uri = uri
            self.duration = duration
            self.tracking = tracking
            self.skipOffset = skipOffset
            self.universalAdID = universalAdID
        }
    }

    /// The viewer (`_HLS_primary_id`); empty for requests without one.
    public var viewer: String
    /// The presentation (`vod-{asset}` or `live-{channel}`).
    public var scope: String
    /// The break's ID.
    public var breakID: String
    /// When it was decided.
    public var decidedAt: DateTime
    /// The `_HLS_start_offset` of the request that decided it (it decided the order, not the length).
    public var startOffset: MediaTime?
    /// The pod to fill: the whole break, whatever the start offset.
    public var podDuration: MediaTime
    /// The creatives, in play order.
    public var assets: [Asset]
    /// A random secret made with the decision and stored with it (32 hex digits; empty for an
    /// anonymous decision, and for one stored before decisions had one).
    ///
    /// The server binds the beacon URLs of the decision to it, so a beacon is accepted only for the
    /// decision stored now, and only from a URL handed out with it: knowing the viewer's ID alone
    /// mints no beacon URL, and the URLs of a decision that was pruned and made again are refused.
    public var nonce: String

    /// Creates a decision.
    public init(
        viewer: String,
        scope: String,
        breakID: String,
        decidedAt: DateTime,
        startOffset: MediaTime?,
        podDuration: MediaTime,
        assets: [Asset],
        nonce: String = ""
    ) {
        self.viewer = viewer
        self.scope = scope
        self.breakID = breakID
        self.decidedAt = decidedAt
        self.startOffset = startOffset
        self.podDuration = podDuration
        self.assets = assets
        self.nonce = nonce
    }

    private enum CodingKeys: String, CodingKey {
        case viewer, scope, breakID, decidedAt, startOffset, podDuration, assets, nonce
    }

    /// Decodes a decision; one encoded before decisions had a ``nonce`` (a journal written by an
    /// earlier version) gets an empty one.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            viewer: try container.decode(String.self, forKey: .viewer),
            scope: try container.decode(String.self, forKey: .scope),
            breakID: try container.decode(String.self, forKey: .breakID),
            decidedAt: try container.decode(DateTime.self, forKey: .decidedAt),
            startOffset: try container.decodeIfPresent(MediaTime.self, forKey: .startOffset),
            podDuration: try container.decode(MediaTime.self, forKey: .podDuration),
            assets: try container.decode([Asset].self, forKey: .assets),
            nonce: try container.decodeIfPresent(String.self, forKey: .nonce) ?? ""
        )
    }

    /// A fresh ``nonce``: 128 random bits from the system's generator, as 32 lowercase hex digits.
    public static func newNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return [generator.next(), generator.next()].map { (word: UInt64) in
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// The key decisions are stored under.
    public var key: DecisionKey { DecisionKey(viewer: self.viewer, scope: self.scope, breakID: self.breakID) }

    /// The asset list to answer with: creative URIs resolved against `base` (a server path such as
    /// `/media/ads/red/main.m3u8` needs the server's own URL, since asset-list URIs must be absolute),
    /// through `cache` when one is given.
    public func assetList(resolvingAgainst base: String, cache: ResolvedURICache? = nil) -> AssetList {
        AssetList(
            assets: self.assets.map {
                AssetList.Asset(
                    uri: cache?.resolve($0.uri, against: base) ?? URIReference.resolve($0.uri, against: base),
                    duration: $0.duration.seconds
                )
            },
            skipControl: self.skipControl
        )
    }

    /// The asset list to answer with, URIs as configured.
    public var assetList: AssetList {
        AssetList(
            assets: self.assets.map { AssetList.Asset(uri: $0.uri, duration: $0.duration.seconds) },
            skipControl: self.skipControl
        )
    }

    /// The list's `SKIP-CONTROL` when the pod's first ad may be skipped (an ad server's
    /// `Linear@skipoffset`): `OFFSET` is that ad's skip offset, so the skip button appears when a
    /// player would show VAST's (Google IMA serves skippable ads this way).
    ///
    /// Skipping skips the
    /// interstitial, as `SKIP-CONTROL` does; the skip offsets of later ads in a pod are not used.
    public var skipControl: AssetList.SkipControlOverride? {
        self.assets.first?.skipOffset.map { AssetList.SkipControlOverride(offset: $0) }
    }
}

/// What identifies a decision: a viewer and a break of a presentation.
public struct DecisionKey: Sendable, Hashable {
    /// The viewer (`_HLS_primary_id`), empty when unknown.
    public var viewer: String
    /// `vod-{asset}` or `live-{channel}`.
    public var scope: String
    /// The break's ID.
    public var breakID: String

    /// Creates a key.
    public init(viewer: String, scope: String, breakID: String) {
        self.viewer = viewer
        self.scope = scope
        self.breakID = breakID
    }
}

/// Chooses the ads of a pod.
///
/// Pure: the inventory, the break and the viewer's recent creatives are
/// arguments.
///
/// An answer always spans the whole break, so a player that enters it `_HLS_start_offset` seconds
/// in (as the spec says it does) finds the right time there, and the primary resumes where the
/// break's tag says. Creatives are chosen most valuable first (ties by shorter duration, then ID),
/// each if it still fits in the break, skipping those the viewer saw within the repeat window.
/// The start offset decides only the order: without one (or with `0`) the pod plays most valuable
/// first; a viewer who joins late gets the least valuable first, so that what plays from the offset
/// on, where the viewer sees it, is the most valuable part and the most valuable creative plays
/// whole at the end. An offset at or past the break's end is answered the same way (the player then
/// plays nothing of it).
public struct AdDecider: Sendable, Hashable {
    /// The creatives to choose from.
    public var inventory: [Creative]

    /// Creates a decider.
    public init(inventory: [Creative]) {
        self.inventory = inventory.sorted { a, b in
            if a.value != b.value { return a.value > b.value }
            if a.duration != b.duration { return a.duration < b.duration }
            return a.id < b.id
        }
    }

    /// Decides a pod.
    ///
    /// - Parameters:
    ///   - key: The viewer and break.
    ///   - breakDuration: The break's duration (after any early return).
    ///   - startOffset: `_HLS_start_offset`, if the viewer joined inside the break.
    ///   - excluding: Creatives the viewer saw within the repeat window.
    ///   - allowed: The creatives the presentation may hold, by ID (`nil`: any; see
    ///     ``VODAsset/inventory``).
    ///   - now: The decision date.
    public func decide(
        _ key: DecisionKey,
        breakDuration: MediaTime,
        startOffset: MediaTime?,
        excluding: Set<String>,
        allowed: Set<String>? = nil,
        now: DateTime
    ) -> AdDecision {
        let pod = max(.zero, breakDuration)
        var remaining = pod
        var chosen: [AdDecision.Asset] = []
        for creative in self.inventory
        where !excluding.contains(creative.id) && creative.duration > .zero
            && (allowed?.contains(creative.id) ?? true) && creative.mayPlay(in: key.scope)
        {
            if creative.duration <= remaining {
                chosen.append(AdDecision.Asset(creativeID: creative.id, uri: creative.uri, duration: creative.duration))
                remaining = remaining - creative.duration
            }
        }
        // A late joiner sees the end of the list: the least valuable go before the offset.
        if let startOffset, startOffset > .zero { chosen.reverse() }
        return AdDecision(
            viewer: key.viewer,
            scope: key.scope,
            breakID: key.breakID,
            decidedAt: now,
            startOffset: startOffset,
            podDuration: pod,
            assets: chosen
        )
    }
}

/// Decides pods and stores them: the same (viewer, break) always gets the stored answer, and the
/// answer is stored before it is returned.
public struct AdDecisionService: Sendable {
    /// The decider.
    public var decider: AdDecider
    /// The policy (repeat window).
    public var policy: DecisionPolicy
    /// Where decisions live.
    public var store: any DecisionStore
    /// The creatives the presentation's pods may hold, by ID (`nil`: any; see ``VODAsset/inventory``).
    public var allowed: Set<String>?

    /// Creates a service.
    public init(decider: AdDecider, policy: DecisionPolicy, store: any DecisionStore, allowed: Set<String>? = nil) {
        self.decider = decider
        self.policy = policy
        self.store = store
        self.allowed = allowed
    }

    /// The decision for a viewer and a break: the stored one, or a new one, stored first.
    ///
    /// - Parameters:
    ///   - viewer: `_HLS_primary_id` (or the playback session). `nil` or empty: an anonymous request,
    ///     answered by ``anonymousDecision(scope:breakID:breakDuration:startOffset:now:)`` (not stored).
    ///   - scope: The presentation.
    ///   - breakID: The break.
    ///   - breakDuration: The break's duration.
    ///   - startOffset: `_HLS_start_offset`.
    ///   - now: The current date.
    /// - Returns: The decision and whether it was made by this call (always `true` when anonymous).
    public func decision(
        viewer: String?,
        scope: AdScope,
        breakID: String,
        breakDuration: MediaTime,
        startOffset: MediaTime?,
        now: DateTime
    ) async throws -> (decision: AdDecision, isNew: Bool) {
        guard let viewer, !viewer.isEmpty else {
            let decision = self.anonymousDecision(
                scope: scope,
                breakID: breakID,
                breakDuration: breakDuration,
                startOffset: startOffset,
                now: now
            )
            return (decision, true)
        }
        let key = DecisionKey(viewer: viewer, scope: scope.rawValue, breakID: breakID)
        let (decider, allowed) = (self.decider, self.allowed)
        let since = now - self.policy.repeatWindow
        // A zero window means repeats are allowed.
        let excludesRecent = self.policy.repeatWindow > .zero
        let nonce = AdDecision.newNonce()
        return try await self.store.findOrCreateDecision(key, recentSince: excludesRecent ? since : nil) { recent in
            var made = decider.decide(
                key,
                breakDuration: breakDuration,
                startOffset: startOffset,
                excluding: recent,
                allowed: allowed,
                now: now
            )
            made.nonce = nonce
            return made
        }
    }

    /// The answer to a request that names no viewer (no `_HLS_primary_id`, no playback session).
    ///
    /// Nothing identifies the viewer, so there is no frequency capping and nothing is stored: the
    /// answer depends only on the inventory, the break, and whether the request joined late (an
    /// offset above zero), so every anonymous request for a break and such a bucket gets the same
    /// list, and one anonymous late joiner changes nothing for the others.
    public func anonymousDecision(
        scope: AdScope,
        breakID: String,
        breakDuration: MediaTime,
        startOffset: MediaTime?,
        now: DateTime
    ) -> AdDecision {
        let key = DecisionKey(viewer: "", scope: scope.rawValue, breakID: breakID)
        let bucket: MediaTime? = (startOffset ?? .zero) > .zero ? startOffset : nil
        return self.decider.decide(
            key,
            breakDuration: breakDuration,
            startOffset: bucket,
            excluding: [],
            allowed: self.allowed,
            now: now
        )
    }
}

/// Remembers URI resolutions: creative URIs are few and so are the bases they are resolved
/// against, so each pair is resolved once.
///
/// Bounded: it starts over past 4,096 pairs.
public final class ResolvedURICache: Sendable {
    private struct Key: Hashable {
        var uri: String
        var base: String
    }

    private let resolved = Mutex<[Key: String]>([:])

    /// Creates an empty cache.
    public init() {}

    /// `URIReference.resolve(uri, against: base)`, remembered.
    public func resolve(_ uri: String, against base: String) -> String {
        let key = Key(uri: uri, base: base)
        if let known = self.resolved.withLock({ $0[key] }) { return known }
        let result = URIReference.resolve(uri, against: base)
        self.resolved.withLock { table in
            if table.count >= 4096 { table.removeAll(keepingCapacity: true) }
            table[key] = result
        }
        return result
    }
}
