/// A playlist tag: a name and the text after the colon.
///
/// A tag keeps its value as written. Typed views (``attributes``, ``integer``) read it; the
/// initializers that take typed values render them in the spec's form.
///
/// ```swift
/// let tag = Tag(name: .dateRange, attributes: [
///     Attribute(name: "ID", value: .quoted("ad1")),
///     Attribute(name: "START-DATE", value: .quoted("2021-01-04T05:00:05.000Z")),
/// ])
/// tag.rendered  // #EXT-X-DATERANGE:ID="ad1",START-DATE="2021-01-04T05:00:05.000Z"
/// ```
public struct Tag: Sendable, Hashable, CustomStringConvertible {
    /// The tag's name.
    public var name: TagName
    /// The text after the colon, or `nil` for a tag without one (`#EXT-X-ENDLIST`).
    public var value: String?

    /// Creates a tag from its name and value text.
    public init(name: TagName, value: String? = nil) {
        self.name = name
        self.value = value
    }

    /// Creates an attribute-list tag.
    public init(name: TagName, attributes: AttributeList) {
        self.name = name
        self.value = attributes.description
    }

    /// Creates an integer tag (`#EXT-X-TARGETDURATION:6`).
    public init(name: TagName, integer: Int) {
        self.name = name
        self.value = String(integer)
    }

    /// Parses a whole tag line (`#EXT-X-KEY:METHOD=NONE`); `nil` unless it starts with `#EXT`.
    public init?(line: String) {
        guard line.hasPrefix("#EXT") else { return nil }
        let body = line.dropFirst()
        if let colon = body.firstIndex(of: ":") {
            self.name = TagName(String(body[..<colon]))
            self.value = String(body[body.index(after: colon)...])
        } else {
            var name = String(body)
            while name.last == " " || name.last == "\t" { name.removeLast() }
            self.name = TagName(name)
            self.value = nil
        }
    }

    /// An `EXTINF` tag: `#EXTINF:<duration>,<title>` with the duration written with `places` decimals.
    public static func segmentInformation(duration: MediaTime, title: String = "", places: Int = 3) -> Tag {
        Tag(name: .segmentInformation, value: duration.decimalString(places: places) + "," + title)
    }

    /// An `EXT-X-PROGRAM-DATE-TIME` tag.
    public static func programDateTime(_ date: DateTime) -> Tag {
        Tag(name: .programDateTime, value: date.iso8601)
    }

    /// An `EXT-X-BYTERANGE` tag.
    public static func byteRange(_ range: ByteRange) -> Tag {
        Tag(name: .byteRange, value: range.description)
    }

    /// The value parsed as an attribute list, or `nil`.
    public var attributes: AttributeList? {
        guard let value else { return nil }
        return try? AttributeList(parsing: value)
    }

    /// The value parsed as a decimal-integer, or `nil`.
    public var integer: Int? {
        guard let value else { return nil }
        return AttributeValue(rawValue: value).integer
    }

    /// The whole line: `#NAME` or `#NAME:VALUE`.
    public var rendered: String {
        if let value { return "#" + self.name.rawValue + ":" + value }
        return "#" + self.name.rawValue
    }

    /// The whole line.
    public var description: String { self.rendered }
}

/// A byte range of a resource: `EXT-X-BYTERANGE` / `BYTERANGE` (§4.4.4.2).
public struct ByteRange: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The number of bytes.
    public var length: Int
    /// The first byte, or `nil` when it follows the previous range of the same resource.
    public var offset: Int?

    /// Creates a byte range.
    public init(length: Int, offset: Int? = nil) {
        self.length = length
        self.offset = offset
    }

    /// Parses `<n>[@<o>]`: decimal-integers of at most ``PlaylistParser/maximumInteger`` each.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2, let n = AttributeValue(rawValue: String(parts[0])).integer else { return nil }
        self.length = n
        if parts.count == 2 {
            guard let o = AttributeValue(rawValue: String(parts[1])).integer else { return nil }
            self.offset = o
        } else {
            self.offset = nil
        }
    }

    /// `<n>[@<o>]`.
    public var description: String {
        if let offset { return "\(self.length)@\(offset)" }
        return String(self.length)
    }

    /// The HTTP `Range` header value for this range (`bytes=o-(o+n-1)`), when the offset is known.
    ///
    /// `nil` too when the range is empty or its last byte does not fit `Int`.
    public var httpRangeHeader: String? {
        guard let offset, offset >= 0, self.length > 0 else { return nil }
        let (end, overflow) = offset.addingReportingOverflow(self.length - 1)
        guard !overflow else { return nil }
        return "bytes=\(offset)-\(end)"
    }
}
