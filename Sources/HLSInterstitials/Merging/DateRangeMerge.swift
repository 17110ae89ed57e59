import HLSPlaylist

/// Merging a later same-ID `EXT-X-DATERANGE` tag into the first (§4.4.5.1: later tags may add
/// attributes, never change them).
enum DateRangeMerge {
    /// An attribute a later tag gives a different value.
    struct Conflict {
        var name: String
        var kept: AttributeValue
        var rejected: AttributeValue
    }

    /// Adds the attributes of `update` that `merged` lacks, keeps the values `merged` has, and
    /// reports the ones `update` gives differently.
    static func merge(
        _ update: AttributeList,
        into merged: inout AttributeList
    ) -> (added: [String], conflicts: [Conflict]) {
        var added: [String] = []
        var conflicts: [Conflict] = []
        var seen: Set<String> = []
        for attribute in update.attributes where seen.insert(attribute.name).inserted {
            if let existing = merged[attribute.name] {
                if !sameValue(attribute.name, existing, attribute.value) {
                    conflicts.append(Conflict(name: attribute.name, kept: existing, rejected: attribute.value))
                }
            } else {
                merged.append(attribute)
                added.append(attribute.name)
            }
        }
        return (added, conflicts)
    }

    /// The attributes whose values are enumerated-string lists (member order does not matter).
    static let listAttributes: Set<String> = Set(
        [AttributeName.cue, .legacyCue, .snap, .restrict].map(\.rawValue)
    )

    /// Whether two spellings mean the same value: equal dates, equal numbers (`15` and `15.0`),
    /// equal sets of list members, or the same text.
    static func sameValue(_ name: String, _ a: AttributeValue, _ b: AttributeValue) -> Bool {
        if a.rawValue == b.rawValue { return true }
        if name == AttributeName.startDate.rawValue || name == AttributeName.endDate.rawValue {
            if let x = DateTime(iso8601: a.text), let y = DateTime(iso8601: b.text) { return x == y }
            return false
        }
        if listAttributes.contains(name), let x = a.stringList, let y = b.stringList {
            return Set(x) == Set(y)
        }
        if a.form == .number, b.form == .number, let x = a.signedDecimal, let y = b.signedDecimal {
            return x == y
        }
        return false
    }

    /// The diagnostic for a changed value.
    static func diagnostic(
        _ conflict: Conflict,
        id: String,
        location: SourceLocation
    ) -> PlaylistDiagnostic {
        let name = conflict.name
        let message: String
        let hint: String
        if name == AttributeName.startDate.rawValue || name == AttributeName.`class`.rawValue {
            message =
                "date range \"\(id)\" is given \(name)=\(conflict.rejected.rawValue) but an earlier tag with this ID has \(name)=\(conflict.kept.rawValue); the first value is kept"
            hint =
                "an ID must never be reused for a new range: give this range a new ID, or repeat \(name)=\(conflict.kept.rawValue)"
        } else {
            message =
                "date range \"\(id)\" changes \(name) from \(conflict.kept.rawValue) to \(conflict.rejected.rawValue); later tags may add attributes but not change them, so the first value is kept"
            hint = "repeat \(name)=\(conflict.kept.rawValue) or leave \(name) out of the later tag"
        }
        return InterstitialRule.dateRangeChanged.diagnostic(message, hint: hint, at: location)
    }
}
