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
        self.defects = InterstitialEvent.defects(of: dateRange, start: startDate)
    }

    /// The rules of ``InterstitialRule/unusableRules`` that an interstitial date range breaks.
    ///
    /// Values that reference a variable (`{$name}`) are not checked: they are known only after
    /// substitution.
    static func defects(of dateRange: DateRange, start: DateTime) -> [Defect] {
        let a = dateRange.attributes
        let id = dateRange.id
        var defects: [Defect] = []
        func value(_ name: String) -> AttributeValue? {
            guard let value = a[name], !value.rawValue.contains("{$") else { return nil }
            return value
        }
        func add(_ rule: InterstitialRule, _ attribute: String?, _ message: String, _ hint: String) {
            defects.append(Defect(rule: rule, attribute: attribute, message: message, hint: hint))
        }
        if id.isEmpty {
            add(.idEmpty, "ID", "the interstitial has an empty ID", "give the range a unique, non-empty ID")
        }
        switch (a["X-ASSET-URI"], a["X-ASSET-LIST"]) {
        case (nil, nil):
            add(
                .assetMissing,
                nil,
                "interstitial \"\(id)\" has neither X-ASSET-URI nor X-ASSET-LIST, so it has nothing to play",
                "add X-ASSET-URI=\"https://…/asset.m3u8\" or X-ASSET-LIST=\"…json\""
            )
        case (_?, _?):
            add(
                .assetBoth,
                "X-ASSET-LIST",
                "interstitial \"\(id)\" has both X-ASSET-URI and X-ASSET-LIST",
                "keep one: X-ASSET-URI for a single asset or X-ASSET-LIST for a list of assets"
            )
        default:
            for name in ["X-ASSET-URI", "X-ASSET-LIST"] {
                guard let raw = value(name) else { continue }
                if raw.quotedString == nil {
                    add(
                        .attributeType,
                        name,
                        "\(name)=\(raw.rawValue) of interstitial \"\(id)\" is not a quoted-string",
                        "write \(name)=\"\(raw.rawValue)\""
                    )
                }
                // A relative X-ASSET-URI breaks a MUST but still resolves against the playlist, as
                // clients do: the validator reports it, and the event still plays.
            }
        }
        let cueName = a.contains("CUE") ? "CUE" : "X-CUE"
        if let cue = value(cueName)?.stringList, cue.contains("PRE"), cue.contains("POST") {
            add(
                .cuePreAndPost,
                cueName,
                "\(cueName) of interstitial \"\(id)\" contains both PRE and POST",
                "keep PRE or POST; use two date ranges for both"
            )
        }
        for name in ["DURATION", "PLANNED-DURATION"] {
            if let raw = value(name), raw.decimal == nil {
                let negative = raw.rawValue.hasPrefix("-")
                add(
                    .durationValue,
                    name,
                    "\(name)=\(raw.rawValue) of interstitial \"\(id)\" is \(negative ? "negative" : "not a decimal number of seconds in range")",
                    "write a non-negative number of seconds, e.g. \(name)=30"
                )
            }
        }
        if let raw = value("END-DATE") {
            if let end = raw.quotedString.flatMap({ DateTime(iso8601: $0) }) {
                if end < start {
                    add(
                        .endDateBeforeStart,
                        "END-DATE",
                        "END-DATE of interstitial \"\(id)\" is before its START-DATE",
                        "set END-DATE at or after START-DATE, or use DURATION"
                    )
                } else if let duration = value("DURATION")?.decimal, start + duration != end {
                    add(
                        .endDateMismatch,
                        "END-DATE",
                        "END-DATE of interstitial \"\(id)\" is not START-DATE + DURATION",
                        "drop END-DATE or DURATION, or make them agree"
                    )
                }
            } else {
                add(
                    .dateValue,
                    "END-DATE",
                    "END-DATE=\(raw.rawValue) of interstitial \"\(id)\" is not a quoted ISO-8601 date",
                    "write e.g. END-DATE=\"2024-01-01T00:00:30.000Z\""
                )
            }
        }
        if a["END-ON-NEXT"] != nil, a.contains("DURATION") || a.contains("END-DATE") {
            add(
                .endOnNextWithEnd,
                "END-ON-NEXT",
                "interstitial \"\(id)\" has END-ON-NEXT and an end",
                "remove DURATION and END-DATE, or END-ON-NEXT"
            )
        }
        if let raw = value("X-RESUME-OFFSET"), raw.signedDecimal == nil {
            add(
                .resumeOffsetValue,
                "X-RESUME-OFFSET",
                "X-RESUME-OFFSET=\(raw.rawValue) of interstitial \"\(id)\" is not a signed decimal number of seconds in range",
                "write e.g. X-RESUME-OFFSET=0"
            )
        }
        if let raw = value("X-PLAYOUT-LIMIT"), !(raw.decimal.map { $0 > .zero } ?? false) {
            add(
                .playoutLimitValue,
                "X-PLAYOUT-LIMIT",
                "X-PLAYOUT-LIMIT=\(raw.rawValue) of interstitial \"\(id)\" is not a number of seconds greater than 0",
                "write a positive duration, or remove it"
            )
        }
        return defects
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
