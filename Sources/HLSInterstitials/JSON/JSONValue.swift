import HLSPlaylist

/// A JSON value (RFC 8259) whose objects keep their members in written order.
///
/// Objects are arrays of `(key, value)` pairs, so a document read with ``parse(_:options:)-([UInt8],_)``
/// and written with ``serialized(options:)`` keeps its key order, and duplicate keys survive too
/// (lookups by key return the first). Numbers are exact (``JSONNumber``): a number keeps the text
/// it was read with, and reads back as a `MediaTime`, an `Int` or a `Double`.
///
/// Literals make documents pleasant to build; a dictionary literal keeps its order:
///
/// ```swift
/// let list: JSONValue = [
///     "ASSETS": [["URI": "https://example.com/ad1.m3u8", "DURATION": 15]],
///     "SKIP-CONTROL": ["OFFSET": 5],
/// ]
/// String(decoding: list.serialized(), as: UTF8.self)
/// // {"ASSETS":[{"URI":"https://example.com/ad1.m3u8","DURATION":15}],"SKIP-CONTROL":{"OFFSET":5}}
/// ```
///
/// ### Numbers
///
/// ``serialized(options:)`` writes a number's text: as read for a parsed number, and for one made
/// from a `Double` (``number(_:)-(Double)``) the shortest form that reads back as the same `Double`.
/// Whole numbers are written without a fraction (`15`); set
/// ``JSONWritingOptions/forcesFractionalPart`` to write them as `15.0`. Infinity and NaN have no
/// JSON spelling: ``number(_:)-(Double)`` makes them `null`.
public enum JSONValue: Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, exactly.
    case number(JSONNumber)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object: its members in order.
    case object([(String, JSONValue)])
}

extension JSONValue {
    /// The string, if the value is one.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// A number from a `Double`, in its shortest round-trip text; `null` for infinities and NaN.
    public static func number(_ value: Double) -> JSONValue {
        JSONNumber(value).map { .number($0) } ?? .null
    }

    /// A number from an `Int`.
    public static func number(_ value: Int) -> JSONValue {
        .number(JSONNumber(value))
    }

    /// A number of seconds from a media time, exactly (`2.002`).
    public static func number(_ time: MediaTime) -> JSONValue {
        .number(JSONNumber(time))
    }

    /// The exact number, if the value is one.
    public var numberValue: JSONNumber? {
        if case .number(let n) = self { return n }
        return nil
    }

    /// The number as the nearest `Double`, if the value is one.
    public var doubleValue: Double? {
        if case .number(let n) = self { return n.doubleValue }
        return nil
    }

    /// The number as an `Int`, if the value is a whole number that fits.
    public var intValue: Int? {
        if case .number(let n) = self { return n.intValue }
        return nil
    }

    /// The number as seconds of media time, exact to the nanosecond, if the value is a number in
    /// `MediaTime.validRange`.
    public var mediaTimeValue: MediaTime? {
        if case .number(let n) = self { return n.mediaTime }
        return nil
    }

    /// The Boolean, if the value is one.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The elements, if the value is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The members in order, if the value is an object.
    public var objectValue: [(String, JSONValue)]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// Whether the value is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value of the first member named `key`, if the value is an object that has one.
    ///
    /// Setting a value replaces the first member with that key in place, or appends a member;
    /// setting `nil` removes every member with that key. Setting on a non-object does nothing.
    public subscript(key: String) -> JSONValue? {
        get {
            guard case .object(let members) = self else { return nil }
            for (k, v) in members where k == key { return v }
            return nil
        }
        set {
            guard case .object(var members) = self else { return }
            if let newValue {
                if let i = members.firstIndex(where: { $0.0 == key }) {
                    members[i].1 = newValue
                } else {
                    members.append((key, newValue))
                }
            } else {
                members.removeAll { $0.0 == key }
            }
            self = .object(members)
        }
    }

    /// The element at `index`, if the value is an array and the index is in range.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The name of the value's JSON type: `null`, `boolean`, `number`, `string`, `array` or `object`.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension JSONValue: Equatable {
    /// Values are equal when they have the same type and contents; object members are compared in order.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            for (x, y) in zip(a, b) where x.0 != y.0 || x.1 != y.1 {
                return false
            }
            return true
        default: return false
        }
    }
}

extension JSONValue: Hashable {
    /// Hashes the type and contents, object members in order.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0)
        case .bool(let b):
            hasher.combine(1)
            hasher.combine(b)
        case .number(let n):
            hasher.combine(2)
            hasher.combine(n)
        case .string(let s):
            hasher.combine(3)
            hasher.combine(s)
        case .array(let a):
            hasher.combine(4)
            hasher.combine(a)
        case .object(let o):
            hasher.combine(5)
            hasher.combine(o.count)
            for (k, v) in o {
                hasher.combine(k)
                hasher.combine(v)
            }
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral {
    /// `null`.
    public init(nilLiteral: ()) {
        self = .null
    }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// A Boolean.
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// A number.
    public init(integerLiteral value: Int) {
        self = .number(JSONNumber(value))
    }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// A number (`null` for infinities and NaN).
    public init(floatLiteral value: Double) {
        self = .number(value)
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// A string.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// An array.
    public init(arrayLiteral elements: JSONValue...) {
        self = .array(elements)
    }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// An object whose members keep the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(elements)
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text.
    public var description: String {
        String(decoding: self.serialized(), as: UTF8.self)
    }
}
