/// One element of a small XML document, as the VAST and VMAP decoders read it.
///
/// Names are local (a `vmap:` prefix is dropped); text is the element's own character data,
/// entities and CDATA sections decoded, in document order.
public struct MarkupElement: Sendable, Hashable {
    /// The local name (`VAST`, `AdBreak`).
    public var name: String
    /// The attributes by local name.
    public var attributes: [String: String]
    /// The child elements, in document order.
    public var children: [MarkupElement]
    /// The character data directly inside the element.
    public var text: String
    /// The 1-based line of the element's start tag.
    public var line: Int

    /// Creates an element.
    public init(
        name: String,
        attributes: [String: String] = [:],
        children: [MarkupElement] = [],
        text: String = "",
        line: Int = 1
    ) {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
        self.line = line
    }

    /// The first child named `name`.
    public func child(_ name: String) -> MarkupElement? {
        self.children.first { $0.name == name }
    }

    /// Every child named `name`, in document order.
    public func children(_ name: String) -> [MarkupElement] {
        self.children.filter { $0.name == name }
    }

    /// The text without leading and trailing white space.
    public var trimmedText: String { MarkupTree.trimmed(self.text) }
}

extension MarkupTree {
    /// `text` without leading and trailing XML white space.
    static func trimmed(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard let first = bytes.firstIndex(where: { !MarkupTree.isSpace($0) }),
            let last = bytes.lastIndex(where: { !MarkupTree.isSpace($0) })
        else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}

/// A document that is not well-formed XML, or that passes a bound.
public struct MarkupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// The 1-based line where it was found.
    public var line: Int

    /// Creates an error.
    public init(message: String, line: Int) {
        self.message = message
        self.line = line
    }

    /// The message with its line.
    public var description: String { "line \(self.line): \(self.message)" }
}

/// A small, bounded XML reader: elements, attributes, text, CDATA, comments and processing
/// instructions; a `DOCTYPE` without an internal subset is skipped, one with a subset (where entity
/// expansion attacks live) is refused.
///
/// Iterative (no recursion), so deep nesting cannot exhaust the stack; the depth, the number of
/// elements and the length of a name are bounded.
public enum MarkupTree {
    /// The deepest nesting accepted.
    public static let maximumDepth = 64
    /// The most elements accepted in one document.
    public static let maximumElements = 50_000

    private struct Frame {
        var element: MarkupElement
        var text: [UInt8]
    }

    /// Parses `bytes` (UTF-8) into its root element.
    public static func parse(_ bytes: [UInt8]) throws(MarkupError) -> MarkupElement {
        var reader = Reader(bytes: bytes)
        return try reader.document()
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0
        var line = 1
        var counted = 0
        var stack: [Frame] = []
        var elements = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        /// The line of `position` (positions only move forward).
        mutating func lineHere() -> Int {
            while self.counted < self.position && self.counted < self.bytes.count {
                if self.bytes[self.counted] == 0x0A { self.line += 1 }
                self.counted += 1
            }
            return self.line
        }

        mutating func fail(_ message: String) -> MarkupError {
            MarkupError(message: message, line: self.lineHere())
        }

        func starts(with literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard self.position + count <= self.bytes.count else { return false }
            return literal.withUTF8Buffer { buffer in
                for k in 0..<count where self.bytes[self.position + k] != buffer[k] { return false }
                return true
            }
        }

        /// Moves past the next `end`, or fails.
        mutating func skip(past end: StaticString, what: String) throws(MarkupError) -> Range<Int> {
            let count = end.utf8CodeUnitCount
            let start = self.position
            while self.position + count <= self.bytes.count {
                if self.starts(with: end) {
                    let range = start..<self.position
                    self.position += count
                    return range
                }
                self.position += 1
            }
            throw self.fail("\(what) is not closed")
        }

        mutating func document() throws(MarkupError) -> MarkupElement {
            // A byte order mark is allowed before the declaration.
            if self.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { self.position = 3 }
            var root: MarkupElement?
            while self.position < self.bytes.count {
                let byte = self.bytes[self.position]
                if byte == UInt8(ascii: "<") {
                    if self.starts(with: "<?") {
                        _ = try self.skip(past: "?>", what: "a processing instruction")
                    } else if self.starts(with: "<!--") {
                        _ = try self.skip(past: "-->", what: "a comment")
                    } else if self.starts(with: "<![CDATA[") {
                        guard !self.stack.isEmpty else { throw self.fail("character data outside the root element") }
                        self.position += 9
                        let range = try self.skip(past: "]]>", what: "a CDATA section")
                        self.stack[self.stack.count - 1].text += self.bytes[range]
                    } else if self.starts(with: "<!") {
                        let range = try self.skip(past: ">", what: "a declaration")
                        if self.bytes[range].contains(UInt8(ascii: "[")) {
                            throw self.fail("a DOCTYPE with an internal subset is not accepted")
                        }
                    } else if self.starts(with: "</") {
                        if let closed = try self.endTag() {
                            guard root == nil else { throw self.fail("more than one root element") }
                            root = closed
                        }
                    } else {
                        if let closed = try self.startTag() {
                            guard root == nil else { throw self.fail("more than one root element") }
                            root = closed
                        }
                    }
                } else if self.stack.isEmpty {
                    guard MarkupTree.isSpace(byte) else { throw self.fail("text outside the root element") }
                    self.position += 1
                } else {
                    try self.characters()
                }
            }
            guard self.stack.isEmpty else {
                throw self.fail("<\(self.stack[self.stack.count - 1].element.name)> is not closed")
            }
            guard let root else { throw self.fail("no root element") }
            return root
        }

        /// Character data up to the next `<`, entities decoded.
        mutating func characters() throws(MarkupError) {
            var text: [UInt8] = []
            while self.position < self.bytes.count {
                let byte = self.bytes[self.position]
                if byte == UInt8(ascii: "<") { break }
                if byte == UInt8(ascii: "&") {
                    text += try self.entity()
                    continue
                }
                if byte < 0x20 && !MarkupTree.isSpace(byte) {
                    throw self.fail("control character \(byte) in text")
                }
                text.append(byte)
                self.position += 1
            }
            self.stack[self.stack.count - 1].text += text
        }

        /// Decodes the entity at `position` (`&amp;`, `&#38;`, `&#x26;`).
        mutating func entity() throws(MarkupError) -> [UInt8] {
            var end = self.position + 1
            while end < self.bytes.count && end - self.position <= 12 && self.bytes[end] != UInt8(ascii: ";") {
                end += 1
            }
            guard end < self.bytes.count, self.bytes[end] == UInt8(ascii: ";") else {
                throw self.fail("'&' that starts no entity (write &amp;)")
            }
            let name = String(decoding: self.bytes[(self.position + 1)..<end], as: UTF8.self)
            self.position = end + 1
            switch name {
            case "amp": return [UInt8(ascii: "&")]
            case "lt": return [UInt8(ascii: "<")]
            case "gt": return [UInt8(ascii: ">")]
            case "quot": return [UInt8(ascii: "\"")]
            case "apos": return [UInt8(ascii: "'")]
            default: break
            }
            var value: UInt32?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                value = UInt32(name.dropFirst(2), radix: 16)
            } else if name.hasPrefix("#") {
                value = UInt32(name.dropFirst(), radix: 10)
            }
            guard let value, value != 0, let scalar = Unicode.Scalar(value) else {
                throw self.fail("unknown entity &\(name.prefix(12));")
            }
            return Array(String(Character(scalar)).utf8)
        }

        /// A name: up to white space, `/`, `>`, `=` or `<`.
        mutating func name() throws(MarkupError) -> String {
            let start = self.position
            while self.position < self.bytes.count {
                let byte = self.bytes[self.position]
                if MarkupTree.isSpace(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ">")
                    || byte == UInt8(ascii: "=") || byte == UInt8(ascii: "<")
                {
                    break
                }
                self.position += 1
            }
            guard self.position > start else { throw self.fail("a name is missing") }
            guard self.position - start <= 256 else { throw self.fail("a name longer than 256 bytes") }
            var name = self.bytes[start..<self.position]
            if let colon = name.lastIndex(of: UInt8(ascii: ":")) { name = name[(colon + 1)...] }
            return String(decoding: name, as: UTF8.self)
        }

        mutating func skipSpace() {
            while self.position < self.bytes.count && MarkupTree.isSpace(self.bytes[self.position]) {
                self.position += 1
            }
        }

        /// A start tag; returns the element when it closes the root (`<VAST/>`).
        mutating func startTag() throws(MarkupError) -> MarkupElement? {
            let line = self.lineHere()
            self.position += 1
            let name = try self.name()
            guard self.stack.count < MarkupTree.maximumDepth else {
                throw self.fail("elements nested deeper than \(MarkupTree.maximumDepth)")
            }
            self.elements += 1
            guard self.elements <= MarkupTree.maximumElements else {
                throw self.fail("more than \(MarkupTree.maximumElements) elements")
            }
            var element = MarkupElement(name: name, line: line)
            while true {
                self.skipSpace()
                guard self.position < self.bytes.count else { throw self.fail("<\(name)> is not closed") }
                let byte = self.bytes[self.position]
                if byte == UInt8(ascii: ">") {
                    self.position += 1
                    self.stack.append(Frame(element: element, text: []))
                    return nil
                }
                if byte == UInt8(ascii: "/") {
                    guard self.position + 1 < self.bytes.count, self.bytes[self.position + 1] == UInt8(ascii: ">")
                    else {
                        throw self.fail("'/' in <\(name)> not followed by '>'")
                    }
                    self.position += 2
                    return self.attach(element)
                }
                let attribute = try self.name()
                self.skipSpace()
                guard self.position < self.bytes.count, self.bytes[self.position] == UInt8(ascii: "=") else {
                    throw self.fail("attribute \(attribute) of <\(name)> has no value")
                }
                self.position += 1
                self.skipSpace()
                guard self.position < self.bytes.count,
                    self.bytes[self.position] == UInt8(ascii: "\"") || self.bytes[self.position] == UInt8(ascii: "'")
                else { throw self.fail("attribute \(attribute) of <\(name)> is not quoted") }
                let quote = self.bytes[self.position]
                self.position += 1
                var value: [UInt8] = []
                while true {
                    guard self.position < self.bytes.count else {
                        throw self.fail("attribute \(attribute) is not closed")
                    }
                    let c = self.bytes[self.position]
                    if c == quote { break }
                    if c == UInt8(ascii: "<") { throw self.fail("'<' in attribute \(attribute)") }
                    if c == UInt8(ascii: "&") {
                        value += try self.entity()
                        continue
                    }
                    if c < 0x20 && !MarkupTree.isSpace(c) {
                        throw self.fail("control character \(c) in attribute \(attribute)")
                    }
                    value.append(c)
                    self.position += 1
                }
                self.position += 1
                guard element.attributes[attribute] == nil else {
                    throw self.fail("attribute \(attribute) appears twice in <\(name)>")
                }
                element.attributes[attribute] = String(decoding: value, as: UTF8.self)
            }
        }

        /// An end tag; returns the element when it closes the root.
        mutating func endTag() throws(MarkupError) -> MarkupElement? {
            self.position += 2
            let name = try self.name()
            self.skipSpace()
            guard self.position < self.bytes.count, self.bytes[self.position] == UInt8(ascii: ">") else {
                throw self.fail("</\(name)> is not closed")
            }
            self.position += 1
            guard let frame = self.stack.popLast() else { throw self.fail("</\(name)> closes nothing") }
            guard frame.element.name == name else {
                throw self.fail("</\(name)> closes <\(frame.element.name)>")
            }
            var element = frame.element
            element.text = String(decoding: frame.text, as: UTF8.self)
            return self.attach(element)
        }

        /// Adds a finished element to its parent; returns it when it is the root.
        mutating func attach(_ element: MarkupElement) -> MarkupElement? {
            guard !self.stack.isEmpty else { return element }
            self.stack[self.stack.count - 1].element.children.append(element)
            return nil
        }
    }
}
