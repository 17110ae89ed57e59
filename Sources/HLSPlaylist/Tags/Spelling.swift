/// A name of the playlist format kept exactly as written: a ``TagName`` or an ``AttributeName``.
///
/// Conforming types store the spelling in `rawValue` and get the other initialisers and
/// `description` from this protocol.
public protocol PlaylistSpelling: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral
where StringLiteralType == String {
    /// The name as written.
    var rawValue: String { get }
    /// Creates the name from its spelling.
    init(rawValue: String)
}

extension PlaylistSpelling {
    /// Creates the name from its spelling.
    public init(_ rawValue: String) {
        self.init(rawValue: rawValue)
    }

    /// Creates the name from a string literal.
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    /// The name as written.
    public var description: String { self.rawValue }
}
