import HLSPlaylist

/// The checks of each attribute's value, tag by tag.
extension PlaylistRun {
    // MARK: Attribute values (per tag)

    /// Checks the value of each attribute of tag `k` (the first of each name; the parser reports repeats).
    mutating func checkAttributes(ofTag k: Int) {
        let range = self.merged[self.owner[k]]
        let isInterstitial = range.class == DateRange.interstitialClass
        let isPreload = range.class == DateRange.preloadClass
        let id = range.id
        var seen: Set<String> = []
        for attribute in self.placed[k].dateRange.attributes.attributes where seen.insert(attribute.name).inserted {
            let name = AttributeName(attribute.name)
            if self.isUnresolved(tag: k, name) { continue }
            let value = attribute.value
            let raw = value.rawValue
            switch name {
            case .id:
                if self.requireQuoted(tag: k, attribute: attribute), value.quotedString == "" {
                    self.report(
                        .idEmpty,
                        tag: k,
                        attribute: name,
                        "the date range has an empty ID",
                        hint: "give the range a unique, non-empty ID"
                    )
                }
            case .`class`:
                self.requireQuoted(tag: k, attribute: attribute)
            case .startDate, .endDate:
                if value.quotedString.flatMap({ DateTime(iso8601: $0) }) == nil {
                    self.report(
                        .dateValue,
                        tag: k,
                        attribute: name,
                        "\(name)=\(raw) of date range \"\(id)\" is not a quoted ISO-8601 date",
                        hint: "write a date with time zone and milliseconds, e.g. \(name)=\"2024-01-01T00:00:00.000Z\""
                    )
                }
            case .duration, .plannedDuration:
                if Syntax.decimal(raw, signed: false) == nil {
                    let negative = raw.hasPrefix("-") && MediaTime.read(raw) != .notANumber
                    let outOfRange = !negative && MediaTime.read(raw, allowSign: false) == .outOfRange
                    self.report(
                        .durationValue,
                        tag: k,
                        attribute: name,
                        negative
                            ? "\(name)=\(raw) of date range \"\(id)\" is negative"
                            : outOfRange
                                ? "\(name)=\(raw) of date range \"\(id)\" is out of range (at most \(MediaTime.maximum) s)"
                                : "\(name)=\(raw) of date range \"\(id)\" is not a decimal number",
                        hint:
                            "write the \(name == .duration ? "duration" : "expected duration") in seconds as a non-negative decimal, e.g. \(name)=30.0"
                    )
                }
            case .endOnNext:
                if !(name.allowedValues ?? []).contains(raw) {
                    self.report(
                        .attributeType,
                        tag: k,
                        attribute: name,
                        "END-ON-NEXT=\(raw) is not allowed; its only value is YES",
                        hint: "write END-ON-NEXT=YES or remove it"
                    )
                }
            case .cue:
                self.checkList(tag: k, attribute: attribute)
            case .legacyCue where isInterstitial && !range.attributes.contains(.cue):
                self.checkList(tag: k, attribute: attribute)
            case .scte35Command, .scte35Out, .scte35In:
                if value.hexadecimal == nil {
                    self.report(
                        .attributeType,
                        tag: k,
                        attribute: name,
                        "\(name)=\(raw) is not a hexadecimal-sequence",
                        hint: "write the splice_info_section as 0x… hexadecimal"
                    )
                }
            default:
                guard name.isClientAttribute else { continue }
                if isInterstitial, AttributeName.interstitialClassNames.contains(name) {
                    self.checkInterstitialAttribute(tag: k, attribute: attribute, id: id)
                } else if isPreload, name == .preloadURI || name == .preloadTargetID || name == .preloadTargetClass {
                    self.requireQuoted(tag: k, attribute: attribute)
                } else if isPreload, name == .preloadDurationAtJoin, PreloadRange.positiveDecimal(raw) == nil {
                    self.report(
                        .preloadDurationAtJoinValue,
                        tag: k,
                        attribute: name,
                        "X-DURATION-AT-JOIN=\(raw) of preload range \"\(id)\" is not a positive decimal number",
                        hint: "write the seconds a joining client spreads its load over, e.g. X-DURATION-AT-JOIN=8.0"
                    )
                } else if !Syntax.isClientAttributeValue(raw) {
                    self.report(
                        .clientAttributeType,
                        tag: k,
                        attribute: name,
                        "client attribute \(name)=\(raw) is not a quoted-string, hexadecimal-sequence or signed decimal number",
                        hint: "quote the value: \(name)=\"\(raw)\""
                    )
                }
            }
        }
    }

    /// Reports `attribute` unless its value is a quoted-string; returns whether it is one.
    @discardableResult
    mutating func requireQuoted(tag k: Int, attribute: Attribute) -> Bool {
        guard attribute.value.quotedString == nil else { return true }
        let raw = attribute.value.rawValue
        self.report(
            .attributeType,
            tag: k,
            attribute: AttributeName(attribute.name),
            "\(attribute.name)=\(raw) is not a quoted-string",
            hint: "write \(attribute.name)=\"\(raw)\""
        )
        return false
    }

    /// Checks a quoted list attribute against the members its `AttributeName.allowedValues` allow.
    mutating func checkList(tag k: Int, attribute: Attribute) {
        let name = AttributeName(attribute.name)
        let allowed = name.allowedValues ?? []
        guard let members = attribute.value.stringList else {
            self.report(
                .attributeType,
                tag: k,
                attribute: name,
                "\(name)=\(attribute.value.rawValue) is not a quoted list",
                hint: "quote the comma-separated members: \(name)=\"\(attribute.value.rawValue)\""
            )
            return
        }
        let unknown = members.filter { !allowed.contains($0) }
        if !unknown.isEmpty {
            self.report(
                .unknownMember,
                tag: k,
                attribute: name,
                "\(name) has unknown member\(unknown.count > 1 ? "s" : "") \(unknown.map { "\"\($0)\"" }.joined(separator: ", ")), which clients ignore",
                hint: "use only \(allowed.joined(separator: ", ")) (members are case-sensitive)"
            )
        }
    }

    /// Checks the value of an attribute the interstitial class defines.
    mutating func checkInterstitialAttribute(tag k: Int, attribute: Attribute, id: String) {
        let name = AttributeName(attribute.name)
        let value = attribute.value
        let raw = value.rawValue
        switch name {
        case .assetURI, .assetList:
            self.requireQuoted(tag: k, attribute: attribute)
        case .resumeOffset:
            if Syntax.decimal(raw, signed: true) == nil {
                let outOfRange = MediaTime.read(raw) == .outOfRange
                self.report(
                    .resumeOffsetValue,
                    tag: k,
                    attribute: name,
                    outOfRange
                        ? "X-RESUME-OFFSET=\(raw) of interstitial \"\(id)\" is out of range (at most \(MediaTime.maximum) s either way)"
                        : "X-RESUME-OFFSET=\(raw) of interstitial \"\(id)\" is not a signed decimal number",
                    hint:
                        "write seconds from the scheduled start, unquoted, e.g. X-RESUME-OFFSET=0 or X-RESUME-OFFSET=-2.5"
                )
            }
        case .playoutLimit:
            if let limit = Syntax.decimal(raw, signed: true), limit > .zero, !raw.hasPrefix("-") {
                break
            }
            self.report(
                .playoutLimitValue,
                tag: k,
                attribute: name,
                "X-PLAYOUT-LIMIT=\(raw) of interstitial \"\(id)\" is not a number of seconds greater than 0",
                hint:
                    "write a positive duration such as X-PLAYOUT-LIMIT=30, or remove it to play the assets to their end"
            )
        case .snap, .restrict:
            self.checkList(tag: k, attribute: attribute)
        case .contentMayVary, .timelineOccupies, .timelineStyle:
            let allowed = name.allowedValues ?? []
            guard let text = value.quotedString else {
                self.report(
                    .attributeType,
                    tag: k,
                    attribute: name,
                    "\(name)=\(raw) is not a quoted-string, so clients treat it as absent",
                    hint: "quote the value: \(name)=\"\(raw)\""
                )
                return
            }
            if !allowed.contains(text) {
                self.report(
                    .unknownValue,
                    tag: k,
                    attribute: name,
                    "\(name)=\"\(text)\" is not a known value and is treated as absent (default \"\(allowed.first ?? "")\")",
                    hint: "use \(allowed.map { "\"\($0)\"" }.joined(separator: " or ")) (values are case-sensitive)"
                )
            }
        case .skipControlOffset, .skipControlDuration:
            if value.integer == nil {
                self.report(
                    .skipControlValue,
                    tag: k,
                    attribute: name,
                    "\(name)=\(raw) of interstitial \"\(id)\" is not a decimal integer",
                    hint: "write whole seconds without a fraction or quotes, e.g. \(name)=5"
                )
            }
        case .skipControlLabelID:
            guard let label = value.quotedString else {
                self.report(
                    .skipLabelID,
                    tag: k,
                    attribute: name,
                    "X-SKIP-CONTROL-LABEL-ID=\(raw) is not a quoted-string",
                    hint: "write X-SKIP-CONTROL-LABEL-ID=\"\(raw)\""
                )
                return
            }
            let bad = label.unicodeScalars.filter { c in
                !(("a"..."z").contains(c) || ("A"..."Z").contains(c) || c == "-" || c == "_")
            }
            if !bad.isEmpty || label.isEmpty {
                let shown = bad.map { $0 == " " ? "space" : "'\($0)'" }
                self.report(
                    .skipLabelID,
                    tag: k,
                    attribute: name,
                    label.isEmpty
                        ? "X-SKIP-CONTROL-LABEL-ID is empty"
                        : "X-SKIP-CONTROL-LABEL-ID \"\(label)\" contains \(shown.joined(separator: ", ")), outside [a-zA-Z-_]",
                    hint: "use only letters, '-' and '_' in the label key, e.g. \"Skip-Ad\""
                )
            }
        default:
            break
        }
    }

}
