import HLSPlaylist

extension InterstitialEvent {
    /// The attribute names the interstitial class defines (Appendix D); other `X-` attributes are
    /// user-defined.
    /// (The same names as `AttributeName.interstitialClassNames`, spelled as strings.)
    public static let classAttributeNames: Set<String> = Set(AttributeName.interstitialClassNames.map(\.rawValue))

    /// Reads an event from an interstitial date range, leniently: values that do not parse are left
    /// at their defaults (the validator reports them).
    ///
    /// Returns `nil` when the range is not of class `com.apple.hls.interstitial` or has no
    /// `START-DATE` (a same-ID update must be merged into its first tag first).
    ///
    /// - Parameters:
    ///   - dateRange: The interstitial date range.
    ///   - draftNames: Whether draft and legacy attribute names (`X-CUE`, `X-ENABLE-SKIP-AFTER`, …;
    ///     see ``DraftName``) are read as their spec names (``DraftNamePolicy/accept``, the default)
    ///     or ignored (``DraftNamePolicy/refuse``).
    public init?(dateRange: DateRange, draftNames: DraftNamePolicy = .accept) {
        guard dateRange.isInterstitial, let startDate = dateRange.startDate else { return nil }
        let a = draftNames.resolved(dateRange.attributes)
        self.init(identifier: dateRange.id, date: startDate)
        if let uri = a[.assetURI]?.quotedString { self.assetURIs = [uri] }
        self.assetListURI = a[.assetList]?.quotedString
        self.restrictions = Restrictions(members: a[.restrict]?.stringList ?? [])
        self.resumptionOffset = a[.resumeOffset]?.signedDecimal
        self.playoutLimit = a[.playoutLimit]?.decimal
        let cue = a[.cue]?.stringList ?? []
        if cue.contains(AttributeName.Value.pre) && !cue.contains(AttributeName.Value.post) {
            self.cue = .join
        } else if cue.contains(AttributeName.Value.post) && !cue.contains(AttributeName.Value.pre) {
            self.cue = .leave
        }
        self.willPlayOnce = cue.contains(AttributeName.Value.once)
        let snap = a[.snap]?.stringList ?? []
        self.alignsStartWithPrimarySegmentBoundary = snap.contains(AttributeName.Value.out)
        self.alignsResumptionWithPrimarySegmentBoundary = snap.contains(AttributeName.Value.in)
        if let value = a[.timelineOccupies]?.quotedString, let occupancy = TimelineOccupancy(rawValue: value) {
            self.timelineOccupancy = occupancy
        }
        self.supplementsPrimaryContent = a[.timelineStyle]?.quotedString == AttributeName.Value.primary
        self.contentMayVary = a[.contentMayVary]?.quotedString != AttributeName.Value.no
        self.duration = dateRange.resolvedDuration
        self.plannedDuration = dateRange.plannedDuration
        if let offset = a[.skipControlOffset]?.decimal {
            self.skipControl = SkipControl(
                offset: offset,
                duration: a[.skipControlDuration]?.decimal,
                labelID: a[.skipControlLabelID]?.quotedString
            )
        }
        self.userDefinedAttributes = a.attributes.filter {
            $0.name.hasPrefix("X-") && !AttributeName.interstitialClassNames.contains(AttributeName($0.name))
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
        func value(_ name: AttributeName) -> AttributeValue? {
            guard let value = a[name], !value.rawValue.contains("{$") else { return nil }
            return value
        }
        func add(_ rule: InterstitialRule, _ attribute: AttributeName?, _ message: String, _ hint: String) {
            defects.append(Defect(rule: rule, attribute: attribute?.rawValue, message: message, hint: hint))
        }
        if id.isEmpty {
            add(.idEmpty, .id, "the interstitial has an empty ID", "give the range a unique, non-empty ID")
        }
        switch (a[.assetURI], a[.assetList]) {
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
                .assetList,
                "interstitial \"\(id)\" has both X-ASSET-URI and X-ASSET-LIST",
                "keep one: X-ASSET-URI for a single asset or X-ASSET-LIST for a list of assets"
            )
        default:
            for name in [AttributeName.assetURI, .assetList] {
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
        let cueName: AttributeName = a.contains(.cue) ? .cue : .legacyCue
        if let cue = value(cueName)?.stringList, cue.contains(AttributeName.Value.pre),
            cue.contains(AttributeName.Value.post)
        {
            add(
                .cuePreAndPost,
                cueName,
                "\(cueName) of interstitial \"\(id)\" contains both PRE and POST",
                "keep PRE or POST; use two date ranges for both"
            )
        }
        for name in [AttributeName.duration, .plannedDuration] {
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
        if let raw = value(.endDate) {
            if let end = raw.quotedString.flatMap({ DateTime(iso8601: $0) }) {
                if end < start {
                    add(
                        .endDateBeforeStart,
                        .endDate,
                        "END-DATE of interstitial \"\(id)\" is before its START-DATE",
                        "set END-DATE at or after START-DATE, or use DURATION"
                    )
                } else if let duration = value(.duration)?.decimal, start + duration != end {
                    add(
                        .endDateMismatch,
                        .endDate,
                        "END-DATE of interstitial \"\(id)\" is not START-DATE + DURATION",
                        "drop END-DATE or DURATION, or make them agree"
                    )
                }
            } else {
                add(
                    .dateValue,
                    .endDate,
                    "END-DATE=\(raw.rawValue) of interstitial \"\(id)\" is not a quoted ISO-8601 date",
                    "write e.g. END-DATE=\"2024-01-01T00:00:30.000Z\""
                )
            }
        }
        if a[.endOnNext] != nil, a.contains(.duration) || a.contains(.endDate) {
            add(
                .endOnNextWithEnd,
                .endOnNext,
                "interstitial \"\(id)\" has END-ON-NEXT and an end",
                "remove DURATION and END-DATE, or END-ON-NEXT"
            )
        }
        if let raw = value(.resumeOffset), raw.signedDecimal == nil {
            add(
                .resumeOffsetValue,
                .resumeOffset,
                "X-RESUME-OFFSET=\(raw.rawValue) of interstitial \"\(id)\" is not a signed decimal number of seconds in range",
                "write e.g. X-RESUME-OFFSET=0"
            )
        }
        if let raw = value(.playoutLimit), !(raw.decimal.map { $0 > .zero } ?? false) {
            add(
                .playoutLimitValue,
                .playoutLimit,
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
        if self.willPlayOnce { cue.append(AttributeName.Value.once) }
        if !cue.isEmpty { range.attributes[.cue] = .stringList(cue) }
        if let duration = self.duration { range.duration = duration }
        if let planned = self.plannedDuration { range.plannedDuration = planned }
        if let list = self.assetListURI {
            range.attributes[.assetList] = .quoted(list)
        } else if let uri = self.assetURIs.first {
            range.attributes[.assetURI] = .quoted(uri)
        }
        if let offset = self.resumptionOffset { range.attributes[.resumeOffset] = .decimal(offset) }
        if let limit = self.playoutLimit { range.attributes[.playoutLimit] = .decimal(limit) }
        var snap: [String] = []
        if self.alignsStartWithPrimarySegmentBoundary { snap.append(AttributeName.Value.out) }
        if self.alignsResumptionWithPrimarySegmentBoundary { snap.append(AttributeName.Value.in) }
        if !snap.isEmpty { range.attributes[.snap] = .stringList(snap) }
        if !self.restrictions.isEmpty { range.attributes[.restrict] = .stringList(self.restrictions.members) }
        if !self.contentMayVary { range.attributes[.contentMayVary] = .quoted(AttributeName.Value.no) }
        if self.timelineOccupancy == .range { range.attributes[.timelineOccupies] = .quoted(AttributeName.Value.range) }
        if self.supplementsPrimaryContent { range.attributes[.timelineStyle] = .quoted(AttributeName.Value.primary) }
        if let skip = self.skipControl {
            range.attributes[.skipControlOffset] = .integer(Int(skip.offset.nanoseconds / 1_000_000_000))
            if let duration = skip.duration {
                range.attributes[.skipControlDuration] = .integer(Int(duration.nanoseconds / 1_000_000_000))
            }
            if let label = skip.labelID { range.attributes[.skipControlLabelID] = .quoted(label) }
        }
        for attribute in self.userDefinedAttributes {
            range.attributes[attribute.name] = attribute.value
        }
        return range
    }
}
