import HLSPlaylist

extension InterstitialEvent {
    /// The attribute names the interstitial class defines (Appendix D); other `X-` attributes are
    /// user-defined.
    public static let classAttributeNames: Set<String> = [
        "X-ASSET-URI", "X-ASSET-LIST", "X-RESUME-OFFSET", "X-PLAYOUT-LIMIT", "X-SNAP", "X-RESTRICT",
        "X-CONTENT-MAY-VARY", "X-TIMELINE-OCCUPIES", "X-TIMELINE-STYLE", "X-SKIP-CONTROL-OFFSET",
        "X-SKIP-CONTROL-DURATION", "X-SKIP-CONTROL-LABEL-ID", "X-CUE",
    ]

    /// Reads an event from an interstitial date range, leniently: values that do not parse are left
    /// at their defaults (the validator reports them).
    ///
    /// Returns `nil` when the range is not of class `com.apple.hls.interstitial` or has no
    /// `START-DATE` (a same-ID update must be merged into its first tag first).
    public init?(dateRange: DateRange) {
        guard dateRange.isInterstitial, let startDate = dateRange.startDate else { return nil }
        let a = dateRange.attributes
        self.init(identifier: dateRange.id, date: startDate)
        if let uri = a["X-ASSET-URI"]?.quotedString { self.assetURIs = [uri] }
        self.assetListURI = a["X-ASSET-LIST"]?.quotedString
        self.restrictions = Restrictions(members: a["X-RESTRICT"]?.stringList ?? [])
        self.resumptionOffset = a["X-RESUME-OFFSET"]?.signedDecimal
        self.playoutLimit = a["X-PLAYOUT-LIMIT"]?.decimal
        let cue = dateRange.cue ?? []
        if cue.contains("PRE") && !cue.contains("POST") {
            self.cue = .join
        } else if cue.contains("POST") && !cue.contains("PRE") {
            self.cue = .leave
        }
        self.willPlayOnce = cue.contains("ONCE")
        let snap = a["X-SNAP"]?.stringList ?? []
        self.alignsStartWithPrimarySegmentBoundary = snap.contains("OUT")
        self.alignsResumptionWithPrimarySegmentBoundary = snap.contains("IN")
        if let value = a["X-TIMELINE-OCCUPIES"]?.quotedString, let occupancy = TimelineOccupancy(rawValue: value) {
            self.timelineOccupancy = occupancy
        }
        self.supplementsPrimaryContent = a["X-TIMELINE-STYLE"]?.quotedString == "PRIMARY"
        self.contentMayVary = a["X-CONTENT-MAY-VARY"]?.quotedString != "NO"
        self.duration = dateRange.resolvedDuration
        self.plannedDuration = dateRange.plannedDuration
        if let offset = a["X-SKIP-CONTROL-OFFSET"]?.decimal {
            self.skipControl = SkipControl(
                offset: offset,
                duration: a["X-SKIP-CONTROL-DURATION"]?.decimal,
                labelID: a["X-SKIP-CONTROL-LABEL-ID"]?.quotedString
            )
        }
        self.userDefinedAttributes = a.attributes.filter {
            $0.name.hasPrefix("X-") && !InterstitialEvent.classAttributeNames.contains($0.name)
        }
    }

    /// The event as an interstitial `EXT-X-DATERANGE`, with attributes in the spec's order.
    ///
    /// - Parameter startDate: The `START-DATE` to write; defaults to the event's date. Events
    ///   scheduled at a media time need the date that time maps to on the primary.
    /// - Returns: The date range, or `nil` when the event has no date and none is given.
    public func dateRange(startDate: DateTime? = nil) -> DateRange? {
        guard let start = startDate ?? self.date else { return nil }
        var range = DateRange(id: self.identifier, startDate: nil, class: DateRange.interstitialClass)
        range.startDate = start
        var cue: [String] = []
        if let member = self.cue.member { cue.append(member) }
        if self.willPlayOnce { cue.append("ONCE") }
        if !cue.isEmpty { range.attributes["CUE"] = .stringList(cue) }
        if let duration = self.duration { range.duration = duration }
        if let planned = self.plannedDuration { range.plannedDuration = planned }
        if let list = self.assetListURI {
            range.attributes["X-ASSET-LIST"] = .quoted(list)
        } else if let uri = self.assetURIs.first {
            range.attributes["X-ASSET-URI"] = .quoted(uri)
        }
        if let offset = self.resumptionOffset { range.attributes["X-RESUME-OFFSET"] = .decimal(offset) }
        if let limit = self.playoutLimit { range.attributes["X-PLAYOUT-LIMIT"] = .decimal(limit) }
        var snap: [String] = []
        if self.alignsStartWithPrimarySegmentBoundary { snap.append("OUT") }
        if self.alignsResumptionWithPrimarySegmentBoundary { snap.append("IN") }
        if !snap.isEmpty { range.attributes["X-SNAP"] = .stringList(snap) }
        if !self.restrictions.isEmpty { range.attributes["X-RESTRICT"] = .stringList(self.restrictions.members) }
        if !self.contentMayVary { range.attributes["X-CONTENT-MAY-VARY"] = .quoted("NO") }
        if self.timelineOccupancy == .range { range.attributes["X-TIMELINE-OCCUPIES"] = .quoted("RANGE") }
        if self.supplementsPrimaryContent { range.attributes["X-TIMELINE-STYLE"] = .quoted("PRIMARY") }
        if let skip = self.skipControl {
            range.attributes["X-SKIP-CONTROL-OFFSET"] = .integer(Int(skip.offset.nanoseconds / 1_000_000_000))
            if let duration = skip.duration {
                range.attributes["X-SKIP-CONTROL-DURATION"] = .integer(Int(duration.nanoseconds / 1_000_000_000))
            }
            if let label = skip.labelID { range.attributes["X-SKIP-CONTROL-LABEL-ID"] = .quoted(label) }
        }
        for attribute in self.userDefinedAttributes {
            range.attributes[attribute.name] = attribute.value
        }
        return range
    }
}
