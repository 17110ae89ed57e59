import HLSPlaylist

/// A preload hint: a `CLASS="com.apple.hls.preload"` date range (spec Appendix F), which asks
/// clients to load a resource (an interstitial's asset list) at a random moment inside its window
/// instead of all at once when the target is reached.
///
/// The server ends the window at or just before the target's scheduled start. A client picks a
/// uniformly random moment inside the window (its start clamped to the playhead, its end to the
/// moment it would load the target anyway), loads ``uri`` once then, and uses that answer for the
/// target ``targetID``. It ignores preload ranges in a playlist with `EXT-X-ENDLIST`, and discards
/// an answer when the range disappears before the target plays, when ``targetClass`` is not the
/// target's `CLASS`, or when ``uri`` lacks the query items of the target's URI.
///
/// ## X-DURATION-AT-JOIN
///
/// Apple's preliminary WWDC 2026 draft of the spec adds `X-DURATION-AT-JOIN` (an unquoted
/// decimal) to preload ranges; its text is known here only from secondary sources (third-party
/// implementations that parse it as a number and one that rejects 0), which give no semantics.
/// The reading used (``durationAtJoinReading``, ``JoinReading/windowFromJoin``): a client that
/// joins while the window is already open does not spread its load over what is left of the
/// window (possibly a sliver, so every late joiner would load at once) but over
/// `X-DURATION-AT-JOIN` seconds from the moment it joined, still never later than it would load
/// the target without the hint. Change the reading in one place: ``durationAtJoinReading``.
public struct PreloadRange: Sendable, Hashable {
    /// The preload range's own `ID`.
    public var identifier: String
    /// `X-URI`: the resource to preload, as written (resolve it against the playlist).
    public var uri: String?
    /// `X-TARGET-ID`: the `ID` of the date range the resource is for.
    public var targetID: String?
    /// `X-TARGET-CLASS`: the `CLASS` of the target range.
    public var targetClass: String?
    /// `START-DATE`: the window's start.
    public var start: DateTime
    /// The window's end: `END-DATE`, or `START-DATE` + `DURATION`.
    public var end: DateTime?
    /// `X-DURATION-AT-JOIN` when it is a positive decimal number.
    public var durationAtJoin: MediaTime?

    /// How `X-DURATION-AT-JOIN` is read.
    public enum JoinReading: Sendable, Hashable {
        /// A client that joins inside the window spreads over `X-DURATION-AT-JOIN` from its join.
        case windowFromJoin
        /// The attribute is ignored: a late joiner spreads over the rest of the window.
        case ignored
    }

    /// The reading of `X-DURATION-AT-JOIN` in force (see the type's documentation): the one
    /// place to change it.
    public static let durationAtJoinReading = JoinReading.windowFromJoin

    /// Creates a preload range.
    public init(
        identifier: String,
        start: DateTime,
        end: DateTime?,
        uri: String?,
        targetID: String?,
        targetClass: String?,
        durationAtJoin: MediaTime? = nil
    ) {
        self.identifier = identifier
        self.start = start
        self.end = end
        self.uri = uri
        self.targetID = targetID
        self.targetClass = targetClass
        self.durationAtJoin = durationAtJoin
    }

    /// Reads a preload range from a merged date range, leniently (the validator reports bad
    /// values): `nil` unless its `CLASS` is `com.apple.hls.preload` and it has a `START-DATE`.
    public init?(dateRange: DateRange) {
        guard dateRange.class == DateRange.preloadClass, let start = dateRange.startDate else { return nil }
        let a = dateRange.attributes
        var end = dateRange.endDate
        if end == nil, let duration = dateRange.duration { end = start + duration }
        self.init(
            identifier: dateRange.id,
            start: start,
            end: end,
            uri: a[.preloadURI]?.quotedString,
            targetID: a[.preloadTargetID]?.quotedString,
            targetClass: a[.preloadTargetClass]?.quotedString,
            durationAtJoin: a[.preloadDurationAtJoin].flatMap { PreloadRange.positiveDecimal($0.rawValue) }
        )
    }

    /// The preload ranges of a playlist, same-ID tags merged, in playlist order (none when the
    /// playlist has `EXT-X-ENDLIST`: clients ignore them then).
    public static func ranges(in playlist: MediaPlaylist) -> [PreloadRange] {
        guard !playlist.hasEndList else { return [] }
        return DateRangeTracker(playlist: playlist).preloadRanges
    }

    /// The range as an `EXT-X-DATERANGE`: `ID`, `CLASS`, `START-DATE`, `DURATION` (when the end is
    /// known), `X-URI`, `X-TARGET-ID`, `X-TARGET-CLASS` and `X-DURATION-AT-JOIN`, when present.
    public func dateRange() -> DateRange {
        var range = DateRange(id: self.identifier, startDate: nil, class: DateRange.preloadClass)
        range.startDate = self.start
        if let end = self.end { range.duration = end - self.start }
        if let uri = self.uri { range.attributes[.preloadURI] = .quoted(uri) }
        if let target = self.targetID { range.attributes[.preloadTargetID] = .quoted(target) }
        if let targetClass = self.targetClass { range.attributes[.preloadTargetClass] = .quoted(targetClass) }
        if let join = self.durationAtJoin { range.attributes[.preloadDurationAtJoin] = .decimal(join) }
        return range
    }

    /// Whether the range has what a client needs to use it: a URI, a target and an end.
    public var isUsable: Bool { self.uri != nil && self.targetID != nil && self.targetClass != nil && self.end != nil }

    /// A positive decimal-floating-point number, or `nil`.
    static func positiveDecimal(_ raw: String) -> MediaTime? {
        guard let value = Syntax.decimal(raw, signed: false), value > .zero else { return nil }
        return value
    }

    // MARK: Matching the target

    /// Whether `uri` carries every query item (name and value, as written) of `targetURI`, as the
    /// appendix asks of `X-URI` ("SHOULD carry the target URI's query parameters").
    ///
    /// Extra items in
    /// `uri` are allowed.
    public static func carriesQuery(of targetURI: String, in uri: String) -> Bool {
        let own = URIReference.queryItems(of: uri)
        return URIReference.queryItems(of: targetURI).allSatisfy { item in
            own.contains { $0.name == item.name && $0.value == item.value }
        }
    }

    /// Why a preloaded answer must not be used for `target` (`nil`: it may be used): the target's
    /// `CLASS` differs from ``targetClass``, or ``uri`` lacks the query items of the target's
    /// `X-ASSET-LIST` (or `X-ASSET-URI`).
    public func mismatch(with target: DateRange) -> String? {
        if let expected = self.targetClass, target.class != expected {
            return "X-TARGET-CLASS \"\(expected)\" is not the target's CLASS \"\(target.class ?? "")\""
        }
        let a = target.attributes
        if let uri = self.uri, let targetURI = (a[.assetList] ?? a[.assetURI])?.quotedString,
            !PreloadRange.carriesQuery(of: targetURI, in: uri)
        {
            return "X-URI \"\(uri)\" lacks the query of the target's URI \"\(targetURI)\""
        }
        return nil
    }

    // MARK: The window

    /// The span of primary time (or of wall-clock time: any axis on which the window and the
    /// playhead are both given) inside which a client loads the resource.
    ///
    /// - Parameters:
    ///   - start: The window's start on that axis.
    ///   - end: The window's end (the range end).
    ///   - playhead: Where the playhead is now.
    ///   - normalLoad: Where the client would load the target without the hint (its start minus
    ///     the usual lead; the window's end when the target is not known yet: the appendix says to
    ///     assume it appears at the next reload at the range's end).
    ///   - joined: Whether the client joined while the window was open (its first sight of the
    ///     range had the playhead past the window's start).
    ///   - reading: How to read `X-DURATION-AT-JOIN`.
    /// - Returns: The span to pick a uniformly random moment from; empty spans (`lower == upper`)
    ///   mean "now". `nil` when the window is over.
    public func loadSpan(
        start: MediaTime,
        end: MediaTime,
        playhead: MediaTime,
        normalLoad: MediaTime,
        joined: Bool,
        reading: JoinReading = PreloadRange.durationAtJoinReading
    ) -> ClosedRange<MediaTime>? {
        guard playhead <= end else { return nil }
        let lower = MediaTime.max(start, playhead)
        var upper = MediaTime.min(end, normalLoad)
        if joined, reading == .windowFromJoin, let join = self.durationAtJoin {
            upper = MediaTime.min(playhead + join, normalLoad)
        }
        return lower...MediaTime.max(lower, upper)
    }
}

extension DateRangeTracker {
    /// The merged preload ranges (Appendix F) with a `START-DATE`, in first-seen order.
    public var preloadRanges: [PreloadRange] {
        self.dateRanges.compactMap { PreloadRange(dateRange: $0) }
    }
}
