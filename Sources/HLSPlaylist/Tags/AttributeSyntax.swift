/// A problem found while scanning an attribute list.
struct AttributeProblem: Sendable {
    var code: PlaylistParsingError.Code
    var message: String
    var hint: String
    /// Byte offset from the start of the scanned range.
    var offset: Int
}

/// Attribute-list scanning shared by the validator (no allocation) and the parser.
enum AttributeSyntax {
    /// Whether `c` may appear in an attribute name (`A-Z`, `0-9`, `-`).
    static func isNameByte(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z")) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
            || c == UInt8(ascii: "-")
    }

    /// Walks the list and reports each attribute's name and value ranges, or the first problem.
    ///
    /// Tolerated (reported as warnings by the caller through `lenient`): lower-case names, a space
    /// after a comma, and a trailing comma.
    static func scan(
        _ b: UnsafeBufferPointer<UInt8>,
        from start: Int,
        to end: Int,
        visit: (_ nameStart: Int, _ nameEnd: Int, _ valueStart: Int, _ valueEnd: Int) -> Void
    ) -> AttributeProblem? {
        var i = start
        // Skip trailing whitespace at the very end (tolerated, warned by the caller).
        var end = end
        while end > start, b[end - 1] == UInt8(ascii: " ") || b[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        if i == end {
            return AttributeProblem(
                code: .malformedAttributeList,
                message: "the attribute list is empty",
                hint: "write at least one NAME=VALUE pair after the colon",
                offset: 0
            )
        }
        while i < end {
            while i < end, b[i] == UInt8(ascii: " ") { i += 1 }
            let nameStart = i
            while i < end, b[i] != UInt8(ascii: "="), b[i] != UInt8(ascii: ",") {
                let c = b[i]
                let lower = c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")
                if !isNameByte(c) && !lower {
                    return AttributeProblem(
                        code: .malformedAttributeList,
                        message: "unexpected character '\(Character(Unicode.Scalar(c)))' in an attribute name",
                        hint: "attribute names use only A-Z, 0-9 and '-'; quote values that contain other characters",
                        offset: i - start
                    )
                }
                i += 1
            }
            let nameEnd = i
            if nameEnd == nameStart {
                return AttributeProblem(
                    code: .malformedAttributeList,
                    message: "an attribute has no name",
                    hint: "write NAME=VALUE pairs separated by single commas",
                    offset: i - start
                )
            }
            guard i < end, b[i] == UInt8(ascii: "=") else {
                return AttributeProblem(
                    code: .malformedAttributeList,
                    message:
                        "attribute '\(String(decoding: UnsafeBufferPointer(rebasing: b[nameStart..<nameEnd]), as: UTF8.self))' has no '=VALUE'",
                    hint: "write the attribute as NAME=VALUE",
                    offset: i - start
                )
            }
            i += 1
            let valueStart = i
            if i < end, b[i] == UInt8(ascii: "\"") {
                i += 1
                while i < end, b[i] != UInt8(ascii: "\"") { i += 1 }
                guard i < end else {
                    return AttributeProblem(
                        code: .malformedAttributeList,
                        message: "the quoted string that starts here is not closed",
                        hint: "add the closing '\"'; quoted strings cannot span lines or contain '\"'",
                        offset: valueStart - start
                    )
                }
                i += 1
                if i < end, b[i] != UInt8(ascii: ",") {
                    return AttributeProblem(
                        code: .malformedAttributeList,
                        message: "unexpected text after a quoted string",
                        hint: "separate attributes with ','",
                        offset: i - start
                    )
                }
            } else {
                while i < end, b[i] != UInt8(ascii: ",") {
                    if b[i] == UInt8(ascii: "\"") {
                        return AttributeProblem(
                            code: .malformedAttributeList,
                            message: "a quote inside an unquoted value",
                            hint: "quote the whole value: NAME=\"…\"",
                            offset: i - start
                        )
                    }
                    i += 1
                }
                if i == valueStart {
                    return AttributeProblem(
                        code: .malformedAttributeList,
                        message:
                            "attribute '\(String(decoding: UnsafeBufferPointer(rebasing: b[nameStart..<nameEnd]), as: UTF8.self))' has an empty value",
                        hint: "give the attribute a value, or remove it",
                        offset: i - start
                    )
                }
            }
            visit(nameStart, nameEnd, valueStart, i)
            if i < end {
                i += 1  // the comma
                if i == end {
                    return nil  // trailing comma: tolerated
                }
            }
        }
        return nil
    }

    /// How many names ``validate(_:from:to:)`` keeps on the stack; longer lists spill to the heap.
    static let inlineNameCapacity = 32

    /// Checks the list and finds duplicate names.
    ///
    /// Lists of up to ``inlineNameCapacity`` attributes need no allocation: each name is compared
    /// with the earlier ones on the stack. Past that, the names go into a hash set, so every name is
    /// still checked against every earlier one and a 1 MB list of distinct names stays linear.
    static func validate(
        _ b: UnsafeBufferPointer<UInt8>,
        from start: Int,
        to end: Int
    ) -> AttributeProblem? {
        var problem: AttributeProblem? = nil
        withUnsafeTemporaryAllocation(of: (Int, Int).self, capacity: inlineNameCapacity) { inline in
            var count = 0
            var spilled: Set<String> = []
            func text(_ s: Int, _ e: Int) -> String {
                String(decoding: UnsafeBufferPointer(rebasing: b[s..<e]), as: UTF8.self)
            }
            func sameName(_ s: Int, _ e: Int, _ nameStart: Int, _ length: Int) -> Bool {
                guard e - s == length else { return false }
                for j in 0..<length where b[s + j] != b[nameStart + j] { return false }
                return true
            }
            let syntax = scan(b, from: start, to: end) { nameStart, nameEnd, _, _ in
                guard problem == nil else { return }
                let length = nameEnd - nameStart
                var repeated = false
                if count < inlineNameCapacity {
                    for k in 0..<count where sameName(inline[k].0, inline[k].1, nameStart, length) {
                        repeated = true
                        break
                    }
                    inline[count] = (nameStart, nameEnd)
                } else {
                    if count == inlineNameCapacity {
                        for k in 0..<inlineNameCapacity { spilled.insert(text(inline[k].0, inline[k].1)) }
                    }
                    repeated = !spilled.insert(text(nameStart, nameEnd)).inserted
                }
                count += 1
                if repeated {
                    let name = text(nameStart, nameEnd)
                    problem = AttributeProblem(
                        code: .duplicateAttribute,
                        message: "attribute \(name) appears more than once",
                        hint: "keep one \(name) attribute; a name must not repeat in one tag",
                        offset: nameStart - start
                    )
                }
            }
            if let syntax { problem = syntax }
        }
        return problem
    }

    /// Parses into an ``AttributeList``.
    static func parse(
        _ b: UnsafeBufferPointer<UInt8>,
        from start: Int,
        to end: Int
    ) -> Result<AttributeList, AttributeProblemError> {
        if let problem = validate(b, from: start, to: end) {
            return .failure(AttributeProblemError(problem: problem))
        }
        var list: [Attribute] = []
        _ = scan(b, from: start, to: end) { ns, ne, vs, ve in
            let name = String(decoding: UnsafeBufferPointer(rebasing: b[ns..<ne]), as: UTF8.self)
            let value = String(decoding: UnsafeBufferPointer(rebasing: b[vs..<ve]), as: UTF8.self)
            list.append(Attribute(name: name, value: AttributeValue(rawValue: value)))
        }
        return .success(AttributeList(list))
    }
}

/// Wraps an ``AttributeProblem`` so it can travel in a `Result`.
struct AttributeProblemError: Error {
    var problem: AttributeProblem
}
