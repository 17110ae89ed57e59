import HLSPlaylist

/// Rewrites draft, legacy and non-spec names (``DraftName``) to the spec spelling, losslessly:
/// every byte other than the rewritten names stays as it was.
///
/// In a playlist it renames the draft attributes of `EXT-X-DATERANGE` tags that are (or look like)
/// interstitials, writes `SKIP` for the `X-RESTRICT` member `SEEK`, and adds
/// `CLASS="com.apple.hls.interstitial"` after the `ID` of a tag that has `X-ASSET-URI` or
/// `X-ASSET-LIST` but no `CLASS`. In an asset list it renames the draft keys of `SKIP-CONTROL`.
/// A name is left alone (and listed in ``Result/unchanged``) when it has no unambiguous spec name
/// or when its spec name is already there.
///
/// ```swift
/// let result = DraftNameFixer().fix(playlist: bytes)
/// try result.bytes.write(…)            // X-CUE= became CUE=, …
/// for change in result.changes { print(change) }   // 7:88: X-CUE -> CUE
/// ```
public struct DraftNameFixer: Sendable {
    /// One rewrite, or one name left alone.
    public struct Change: Sendable, Hashable, CustomStringConvertible {
        /// 1-based line of the name in the input.
        public var line: Int
        /// 1-based byte column of the name in the input.
        public var column: Int
        /// The name as written.
        public var original: String
        /// What it was rewritten to; for a name left alone, why.
        public var replacement: String

        /// Creates a change.
        public init(line: Int, column: Int, original: String, replacement: String) {
            self.line = line
            self.column = column
            self.original = original
            self.replacement = replacement
        }

        /// `line:column: original -> replacement`.
        public var description: String { "\(self.line):\(self.column): \(self.original) -> \(self.replacement)" }
    }

    /// The rewritten input and what changed.
    public struct Result: Sendable, Hashable {
        /// The input with the draft names rewritten.
        public var bytes: [UInt8]
        /// The rewrites, in input order.
        public var changes: [Change]
        /// Draft names left alone, with the reason as the ``Change/replacement``.
        public var unchanged: [Change]
    }

    private struct Edit {
        var range: Range<Int>
        var text: String
    }

    /// Creates a fixer.
    public init() {}

    /// Rewrites the draft names of a playlist.
    ///
    /// - Parameter bytes: The playlist file.
    /// - Returns: The playlist with spec names, the changes and the names left alone.
    public func fix(playlist bytes: [UInt8]) -> Result {
        var edits: [Edit] = []
        var result = Result(bytes: bytes, changes: [], unchanged: [])
        var interstitialIDs: Set<String> = []
        for line in DraftNameScan.lines(bytes) where DraftNameScan.isDateRange(line, in: bytes) {
            let attributes = DraftNameScan.attributes(of: line, in: bytes)
            func text(_ a: DraftNameScan.Attribute) -> String? {
                a.quotedContents(in: bytes).map { String(decoding: bytes[$0], as: UTF8.self) }
            }
            func change(_ offset: Int, _ original: String, _ replacement: String) -> Change {
                Change(
                    line: line.number,
                    column: offset - line.range.lowerBound + 1,
                    original: original,
                    replacement: replacement
                )
            }
            let names = Set(attributes.map(\.name))
            let id = attributes.first { $0.name == AttributeName.id.rawValue }
            let idText = id.flatMap(text)
            let classText = attributes.first { $0.name == AttributeName.`class`.rawValue }.flatMap(text)
            let hasAsset =
                names.contains(AttributeName.assetURI.rawValue) || names.contains(AttributeName.assetList.rawValue)
            if classText == DateRange.interstitialClass || (classText == nil && hasAsset), let idText {
                interstitialIDs.insert(idText)
            }
            let looksInterstitial =
                classText == DateRange.interstitialClass || hasAsset || idText.map(interstitialIDs.contains) == true
            var taken = names
            for attribute in attributes {
                if let draft = DraftName.attributes[attribute.name] {
                    if draft.needsInterstitial && !looksInterstitial { continue }
                    let at = attribute.nameRange.lowerBound
                    guard let spec = draft.specName else {
                        result.unchanged.append(change(at, draft.name, "no unambiguous spec name: \(draft.hint)"))
                        continue
                    }
                    guard taken.insert(spec).inserted else {
                        result.unchanged.append(change(at, draft.name, "\(spec) is already given"))
                        continue
                    }
                    edits.append(Edit(range: attribute.nameRange, text: spec))
                    result.changes.append(change(at, draft.name, spec))
                } else if attribute.name == AttributeName.restrict.rawValue, looksInterstitial,
                    let contents = attribute.quotedContents(in: bytes)
                {
                    let members = DraftNameScan.members(contents, in: bytes)
                    let seek = DraftName.restrictSeek
                    guard let spec = seek.specName, let found = members.first(where: { $0.0 == seek.name }) else {
                        continue
                    }
                    if members.contains(where: { $0.0 == spec }) {
                        result.unchanged.append(change(found.1.lowerBound, seek.name, "\(spec) is already given"))
                    } else {
                        edits.append(Edit(range: found.1, text: spec))
                        result.changes.append(change(found.1.lowerBound, seek.name, spec))
                    }
                }
            }
            if classText == nil, hasAsset, !names.contains(AttributeName.`class`.rawValue) {
                let inserted = "CLASS=\"\(DateRange.interstitialClass)\""
                if let id {
                    let at = id.valueRange.upperBound
                    edits.append(Edit(range: at..<at, text: "," + inserted))
                    result.changes.append(change(at + 1, "(no CLASS)", inserted))
                } else if let first = attributes.first {
                    let at = first.nameRange.lowerBound
                    edits.append(Edit(range: at..<at, text: inserted + ","))
                    result.changes.append(change(at, "(no CLASS)", inserted))
                }
            }
        }
        result.bytes = Self.apply(edits, to: bytes)
        return result
    }

    /// Rewrites the draft keys of an asset list's `SKIP-CONTROL` object.
    ///
    /// - Parameter bytes: The asset-list JSON.
    /// - Returns: The JSON with spec keys, the changes and the keys left alone.
    public func fix(assetList bytes: [UInt8]) -> Result {
        var edits: [Edit] = []
        var result = Result(bytes: bytes, changes: [], unchanged: [])
        let keys = DraftNameScan.jsonKeys(bytes)
        var taken: [Int: Set<String>] = [:]
        for key in keys { taken[key.object, default: []].insert(key.name) }
        for key in keys where key.container == "SKIP-CONTROL" {
            guard let draft = DraftName.assetListKeys[key.name], let spec = draft.specName else { continue }
            let (line, column) = DraftNameScan.lineAndColumn(of: key.range.lowerBound, in: bytes)
            if taken[key.object, default: []].insert(spec).inserted {
                edits.append(Edit(range: key.range, text: spec))
                result.changes.append(Change(line: line, column: column, original: key.name, replacement: spec))
            } else {
                result.unchanged.append(
                    Change(line: line, column: column, original: key.name, replacement: "\(spec) is already given")
                )
            }
        }
        result.bytes = Self.apply(edits, to: bytes)
        return result
    }

    private static func apply(_ edits: [Edit], to bytes: [UInt8]) -> [UInt8] {
        var output = bytes
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            output.replaceSubrange(edit.range, with: Array(edit.text.utf8))
        }
        return output
    }
}
