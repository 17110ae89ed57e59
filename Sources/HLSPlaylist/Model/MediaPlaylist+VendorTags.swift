/// A tag the parser does not know by name (a vendor tag such as `EXT-X-CUE-OUT`), where it stands.
public struct PlacedTag: Sendable, Hashable {
    /// The tag.
    public var tag: Tag
    /// The 0-based line.
    public var lineIndex: Int
    /// The segment it precedes: the count of segment URIs before it (equal to the segment count
    /// for a tag after the last segment).
    public var segmentIndex: Int
}

extension MediaPlaylist {
    /// The tags of `names` that the parser does not know (vendor tags: SCTE-35 markers and the
    /// like), in line order, with their line and the segment each precedes.
    ///
    /// Reads the stored lines' bytes: a line is made into a ``Tag`` only when its name matches, so
    /// a 24-hour playlist without any of them costs one pass over its line records and no
    /// allocation.
    public func vendorTags(named names: [TagName]) -> [PlacedTag] {
        let spellings = names.map { Array("#\($0.rawValue)".utf8) }
        var found: [PlacedTag] = []
        var segment = 0
        for index in 0..<self.store.records.count {
            let record = self.store.records[index]
            if record.kind == .uri {
                segment += 1
                continue
            }
            guard record.kind == .tag, record.tag == .unknown else { continue }
            let matches = self.store.withContent(index) { bytes in
                spellings.contains { spelling in
                    guard bytes.count >= spelling.count else { return false }
                    for k in 0..<spelling.count where bytes[k] != spelling[k] { return false }
                    // The name ends there: at the end of the line or at its colon.
                    return bytes.count == spelling.count || bytes[spelling.count] == UInt8(ascii: ":")
                }
            }
            guard matches, let tag = self.store.line(index).tag else { continue }
            found.append(PlacedTag(tag: tag, lineIndex: index, segmentIndex: segment))
        }
        return found
    }
}
