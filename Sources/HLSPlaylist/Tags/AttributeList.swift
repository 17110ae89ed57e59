/// One `NAME=VALUE` pair of an attribute list.
public struct Attribute: Sendable, Hashable, CustomStringConvertible {
    /// The attribute name as written (`X-ASSET-URI`).
    public var name: String
    /// The value as written.
    public var value: AttributeValue

    /// Creates an attribute.
    public init(name: String, value: AttributeValue) {
        self.name = name
        self.value = value
    }

    /// `NAME=VALUE`.
    public var description: String { self.name + "=" + self.value.rawValue }
}

/// An ordered attribute list (§4.2) that keeps every attribute's order and spelling.
///
/// Reading a value by name finds the first attribute with that name. Setting a value replaces it in
/// place, so the list renders with the original order; a new name is appended at the end.
///
/// ```swift
/// var list = try AttributeList(parsing: #"ID="ad1",CLASS="com.apple.hls.interstitial""#)
/// list["X-RESUME-OFFSET"] = .decimal(0)
/// list.description  // ID="ad1",CLASS="com.apple.hls.interstitial",X-RESUME-OFFSET=0
/// ```
public struct AttributeList: Sendable, Hashable, RandomAccessCollection, MutableCollection, CustomStringConvertible,
    ExpressibleByArrayLiteral
{
    /// The attributes in their written order.
    public var attributes: [Attribute]

    /// Creates a list from attributes.
    public init(_ attributes: [Attribute] = []) {
        self.attributes = attributes
    }

    /// Creates a list from attributes.
    public init(arrayLiteral elements: Attribute...) {
        self.attributes = elements
    }

    /// Parses an attribute list.
    ///
    /// - Throws: ``PlaylistParsingError`` with code ``PlaylistParsingError/Code/malformedAttributeList``
    ///   or ``PlaylistParsingError/Code/duplicateAttribute``, located at the offending byte (line 1).
    public init(parsing text: String) throws {
        var text = text
        let result = text.withUTF8 { b in
            AttributeSyntax.parse(b, from: 0, to: b.count)
        }
        switch result {
        case .success(let list): self = list
        case .failure(let error):
            let problem = error.problem
            throw PlaylistParsingError(
                code: problem.code,
                message: problem.message,
                location: SourceLocation(line: 1, column: problem.offset + 1),
                hint: problem.hint
            )
        }
    }

    /// The position of the first attribute.
    public var startIndex: Int { self.attributes.startIndex }
    /// The position after the last attribute.
    public var endIndex: Int { self.attributes.endIndex }

    /// The attribute at a position, in the order written.
    public subscript(position: Int) -> Attribute {
        get { self.attributes[position] }
        set { self.attributes[position] = newValue }
    }

    /// The value of the first attribute named `name`; setting `nil` removes every attribute of that name.
    public subscript(name: String) -> AttributeValue? {
        get {
            for attribute in self.attributes where attribute.name == name {
                return attribute.value
            }
            return nil
        }
        set {
            if let newValue {
                if let index = self.attributes.firstIndex(where: { $0.name == name }) {
                    self.attributes[index].value = newValue
                } else {
                    self.attributes.append(Attribute(name: name, value: newValue))
                }
            } else {
                self.attributes.removeAll { $0.name == name }
            }
        }
    }

    /// Whether an attribute with this name is present.
    public func contains(_ name: String) -> Bool {
        self.attributes.contains { $0.name == name }
    }

    /// Appends an attribute at the end, even if the name is present (use with care: duplicates are invalid).
    public mutating func append(_ attribute: Attribute) {
        self.attributes.append(attribute)
    }

    /// Appends `NAME=VALUE` at the end.
    public mutating func append(_ name: String, _ value: AttributeValue) {
        self.attributes.append(Attribute(name: name, value: value))
    }

    /// The names of the attributes in order.
    public var names: [String] { self.attributes.map(\.name) }

    /// `NAME=VALUE,NAME=VALUE`, as written.
    public var description: String {
        var out = ""
        for (i, attribute) in self.attributes.enumerated() {
            if i > 0 { out += "," }
            out += attribute.name
            out += "="
            out += attribute.value.rawValue
        }
        return out
    }
}
