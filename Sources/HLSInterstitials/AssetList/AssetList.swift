import HLSPlaylist

/// The JSON document an `X-ASSET-LIST` URI returns: the assets of one interstitial, played in order,
/// and an optional skip control (draft-pantos-hls-rfc8216bis Appendix D.3).
///
/// ```json
/// {"ASSETS": [{"URI": "https://example.com/ad1.m3u8", "DURATION": 15},
///             {"URI": "https://example.com/ad2.m3u8", "DURATION": 15}],
///  "SKIP-CONTROL": {"OFFSET": 5, "DURATION": 20, "LABEL-ID": "Exit-Label"}}
/// ```
///
/// Keys the spec does not define (for example SVTA's `X-AD-CREATIVE-SIGNALING`, or tracking data)
/// are kept with their values and their place in the document, at the top level, in each asset and
/// in the skip control, so ``encode(options:)`` writes a decoded list back with its key order.
///
/// ```swift
/// var list = try AssetList.decode(bytes)
/// list.assets[0].uri        // "https://example.com/ad1.m3u8"
/// list.totalDuration        // 30
/// list.assets.removeFirst()
/// let json = list.encode()
/// ```
public struct AssetList: Sendable, Hashable {
    /// `ASSETS`: the assets, to be played back to back in this order.
    ///
    /// May be empty (the client then
    /// applies the resume offset without playing anything).
    public var assets: [Asset]
    /// `SKIP-CONTROL`: overrides the tag's `X-SKIP-CONTROL-*` attributes key by key.
    public var skipControl: SkipControlOverride?
    /// The top-level members other than `ASSETS` and `SKIP-CONTROL`, in written order.
    public var otherMembers: [(key: String, value: JSONValue)] {
        get { self.extras.members }
        set { self.extras.members = newValue }
    }

    var extras: OrderedExtras

    /// Creates an asset list.
    public init(assets: [Asset], skipControl: SkipControlOverride? = nil) {
        self.assets = assets
        self.skipControl = skipControl
        self.extras = OrderedExtras()
    }

    /// The sum of the assets' durations, exactly (clamped to `MediaTime.maximum`).
    public var totalDuration: MediaTime {
        self.assets.reduce(.zero) { $0 + $1.duration }
    }

    /// One entry of `ASSETS`: a URI and its duration.
    public struct Asset: Sendable, Hashable {
        /// `URI`: the asset's playlist (absolute, usually a multivariant playlist).
        public var uri: String
        /// `DURATION`: the asset's duration, exact to the nanosecond as written in the list.
        public var duration: MediaTime
        /// The asset's other members, in written order.
        public var otherMembers: [(key: String, value: JSONValue)] {
            get { self.extras.members }
            set { self.extras.members = newValue }
        }

        var extras: OrderedExtras

        /// Creates an asset.
        public init(uri: String, duration: MediaTime) {
            self.uri = uri
            self.duration = duration
            self.extras = OrderedExtras()
        }

        /// Creates an asset from a duration in seconds as a `Double` (rounded to the nanosecond;
        /// prefer ``init(uri:duration:)-(_,MediaTime)``, which is exact).
        @_disfavoredOverload
        public init(uri: String, duration seconds: Double) {
            self.init(uri: uri, duration: MediaTime(seconds: seconds))
        }

        /// The duration (the same as ``duration``; kept for code written when it was a `Double`).
        public var mediaDuration: MediaTime { self.duration }
    }

    /// `SKIP-CONTROL`: each key present overrides the matching `X-SKIP-CONTROL-*` attribute.
    public struct SkipControlOverride: Sendable, Hashable {
        /// `OFFSET`: how far into the interstitial the skip button appears, exactly.
        public var offset: MediaTime?
        /// `DURATION`: how long the button stays, exactly.
        public var duration: MediaTime?
        /// `LABEL-ID`: the key of the button's localized label.
        public var labelID: String?
        /// The other members, in written order.
        public var otherMembers: [(key: String, value: JSONValue)] {
            get { self.extras.members }
            set { self.extras.members = newValue }
        }

        var extras: OrderedExtras

        /// Creates a skip-control override.
        public init(offset: MediaTime? = nil, duration: MediaTime? = nil, labelID: String? = nil) {
            self.offset = offset
            self.duration = duration
            self.labelID = labelID
            self.extras = OrderedExtras()
        }
    }

    /// The skip control an interstitial uses once this list is loaded: the event's skip control
    /// with each key the list's `SKIP-CONTROL` gives replacing the matching attribute.
    ///
    /// - Parameter event: The interstitial whose tag gave `X-SKIP-CONTROL-*`.
    /// - Returns: The merged skip control, or `nil` when neither sets an offset.
    public func effectiveSkipControl(for event: InterstitialEvent) -> SkipControl? {
        let base = event.skipControl
        guard let override = self.skipControl else { return base }
        let offset = override.offset ?? base?.offset
        guard let offset else { return nil }
        return SkipControl(
            offset: offset,
            duration: override.duration ?? base?.duration,
            labelID: override.labelID ?? base?.labelID
        )
    }
}

/// Unknown members of a JSON object and where the known keys stood among them.
struct OrderedExtras: Sendable, Hashable {
    var members: [(key: String, value: JSONValue)] = []
    /// The keys in document order as decoded (known and unknown); empty for values made in code.
    var order: [String] = []

    init() {}

    /// Compares the unknown members in order; the decoded key order is layout, not content.
    static func == (lhs: OrderedExtras, rhs: OrderedExtras) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(self.members.count)
        for member in self.members {
            hasher.combine(member.key)
            hasher.combine(member.value)
        }
    }

    /// Builds an object: known members (present ones only) at their decoded places, unknown members
    /// at theirs; then known members that were not decoded, in `known` order; then the rest.
    func object(known: [(String, JSONValue?)]) -> JSONValue {
        var result: [(String, JSONValue)] = []
        var knownLeft = known.filter { $0.1 != nil }.map { ($0.0, $0.1!) }
        var extrasLeft = self.members
        for key in self.order {
            if let k = knownLeft.firstIndex(where: { $0.0 == key }) {
                result.append(knownLeft.remove(at: k))
            } else if let k = extrasLeft.firstIndex(where: { $0.key == key }) {
                let member = extrasLeft.remove(at: k)
                result.append((member.key, member.value))
            }
        }
        // Known members that were not in the decoded document (or all of them, for a value made in
        // code) go after the ones placed, before unknown members that were not placed either.
        result.append(contentsOf: knownLeft)
        result.append(contentsOf: extrasLeft.map { ($0.key, $0.value) })
        return .object(result)
    }
}
