import HLSPlaylist

// MARK: - One playlist

/// A date range merged from its same-ID tags, with where each attribute came from.
struct MergedDateRange {
    var id: String
    var attributes: AttributeList
    /// Index into the playlist's date ranges of the first tag.
    var first: Int
    /// For each attribute name, the index of the tag that gave it.
    var source: [String: Int]

    var `class`: String? { self.attributes[.`class`]?.quotedString }
    var startDate: DateTime? { self.attributes[.startDate]?.quotedString.flatMap { DateTime(iso8601: $0) } }
    var endDate: DateTime? { self.attributes[.endDate]?.quotedString.flatMap { DateTime(iso8601: $0) } }
    var duration: MediaTime? { self.attributes[.duration].flatMap { Syntax.decimal($0.rawValue, signed: false) } }
    var endOnNext: Bool { self.attributes[.endOnNext] != nil }

    /// The end, when START-DATE and DURATION or END-DATE give one.
    var end: DateTime? {
        if let endDate { return endDate }
        if let start = self.startDate, let duration { return start + duration }
        return nil
    }
}

/// The checks of one media playlist.
struct PlaylistRun {
    let playlist: MediaPlaylist
    let placed: [PlacedDateRange]
    let file: String?
    let includesNotes: Bool
    var diagnostics: [PlaylistDiagnostic] = []
    var merged: [MergedDateRange] = []
    /// For each tag, the index of its merged range.
    var owner: [Int] = []

    /// Attribute values that reference a variable the playlist does not define by value (`IMPORT`,
    /// `QUERYPARAM` or undefined), keyed by tag index and name: they cannot be checked.
    var unresolved: Set<String> = []

    init(playlist: MediaPlaylist, file: String?, includesNotes: Bool) {
        self.playlist = playlist
        self.file = file
        self.includesNotes = includesNotes
        var placed = playlist.dateRanges
        // Variable substitution (§4.4.2.3) before checking values.
        var variables: [String: String] = [:]
        for definition in playlist.definitions {
            if let name = definition[.name]?.quotedString, let value = definition[.value]?.quotedString {
                variables[name] = value
            }
        }
        for k in placed.indices {
            for a in placed[k].dateRange.attributes.indices
            where placed[k].dateRange.attributes[a].value.rawValue.contains("{$") {
                let attribute = placed[k].dateRange.attributes[a]
                let result = VariableContext.substitute(in: attribute.value.rawValue, values: variables)
                placed[k].dateRange.attributes[a].value = AttributeValue(rawValue: result.text)
                if !result.unresolved.isEmpty { self.unresolved.insert("\(k)\u{0}\(attribute.name)") }
            }
        }
        self.placed = placed
    }

    func isUnresolved(tag k: Int, _ name: AttributeName) -> Bool {
        !self.unresolved.isEmpty && self.unresolved.contains("\(k)\u{0}\(name.rawValue)")
    }

    mutating func report(
        _ rule: InterstitialRule,
        tag k: Int,
        attribute: AttributeName? = nil,
        _ message: String,
        hint: String
    ) {
        if rule.severity == .note && !self.includesNotes { return }
        self.diagnostics.append(
            rule.diagnostic(
                message,
                hint: hint,
                at: self.playlist.location(of: self.placed[k], attribute: attribute?.rawValue, file: self.file)
            )
        )
    }

    /// Reports at the tag that gave `attribute` to merged range `m`.
    mutating func report(
        _ rule: InterstitialRule,
        range m: Int,
        attribute: AttributeName? = nil,
        _ message: String,
        hint: String
    ) {
        let range = self.merged[m]
        let tag = attribute.flatMap { range.source[$0.rawValue] } ?? range.first
        self.report(
            rule,
            tag: tag,
            attribute: attribute.flatMap { range.source[$0.rawValue] != nil ? $0 : nil },
            message,
            hint: hint
        )
    }

    mutating func check() {
        self.merge()
        for k in self.placed.indices {
            self.checkAttributes(ofTag: k)
        }
        for m in self.merged.indices {
            self.checkRange(m)
        }
        self.checkEndOnNextOverlaps()
        self.checkDraftNames()
    }

    // MARK: Merging

    mutating func merge() {
        var byID: [String: Int] = [:]
        for (k, placed) in self.placed.enumerated() {
            let attributes = placed.dateRange.attributes
            let id = attributes[.id]?.text
            if let id, !id.isEmpty, let m = byID[id] {
                self.owner.append(m)
                let (added, conflicts) = DateRangeMerge.merge(attributes, into: &self.merged[m].attributes)
                for name in added { self.merged[m].source[name] = k }
                for conflict in conflicts {
                    self.diagnostics.append(
                        DateRangeMerge.diagnostic(
                            conflict,
                            id: id,
                            location: self.playlist.location(of: placed, attribute: conflict.name, file: self.file)
                        )
                    )
                }
                continue
            }
            var source: [String: Int] = [:]
            var unique = AttributeList()
            for attribute in attributes.attributes where source[attribute.name] == nil {
                source[attribute.name] = k
                unique.append(attribute)
            }
            if let id, !id.isEmpty { byID[id] = self.merged.count }
            self.owner.append(self.merged.count)
            self.merged.append(MergedDateRange(id: id ?? "", attributes: unique, first: k, source: source))
        }
    }
}
