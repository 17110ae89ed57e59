import HLSInterstitials
import IntermissionTestSupport
import Testing

@Suite struct JSONTests {
    @Test func parsesAndWritesOrderedObject() throws {
        let value = try JSONValue.parse(#"{"b":1,"a":[true,null,"x"]}"#)
        #expect(value.objectValue?.map(\.0) == ["b", "a"])
        #expect(value["a"]?[2] == "x")
        #expect(value.text() == #"{"b":1,"a":[true,null,"x"]}"#)
    }

    @Test func parsesEveryKindWithWhitespace() throws {
        let value = try JSONValue.parse(
            " \t\r\n{ \"n\" : -12.5e1 , \"s\":\"\\u00e9\\ud83d\\ude00\\n\\\"\\/\" ,\"f\":false,\"o\":{},\"a\":[] } \n"
        )
        #expect(value["n"]?.doubleValue == -125)
        #expect(value["s"]?.stringValue == "é😀\n\"/")
        #expect(value["f"] == .bool(false))
        #expect(value["o"] == .object([]))
        #expect(value["a"] == .array([]))
        #expect(value["missing"] == nil)
    }

    @Test func keepsDuplicateKeysInOrder() throws {
        let value = try JSONValue.parse(#"{"k":1,"k":2}"#)
        #expect(value["k"] == 1)
        #expect(value.objectValue?.count == 2)
        #expect(value.text() == #"{"k":1,"k":2}"#)
    }

    @Test(arguments: [
        ("", JSONParsingError.Code.unexpectedEnd, 0),
        ("01", .invalidNumber, 0),
        ("+1", .unexpectedCharacter, 0),
        (".5", .unexpectedCharacter, 0),
        ("1.", .invalidNumber, 2),
        ("1e", .invalidNumber, 2),
        ("-", .invalidNumber, 1),
        ("[1,]", .unexpectedCharacter, 3),
        (#"{"a":1,}"#, .unexpectedCharacter, 7),
        (#"{"a" 1}"#, .unexpectedCharacter, 5),
        (#"{a:1}"#, .unexpectedCharacter, 1),
        ("[1 2]", .unexpectedCharacter, 3),
        ("1 2", .trailingCharacters, 2),
        ("\"a\tb\"", .controlCharacterInString, 2),
        (#""\x""#, .invalidEscape, 1),
        (#""\u12G4""#, .invalidEscape, 5),
        (#""\ud800""#, .unpairedSurrogate, 1),
        (#""\udc00""#, .unpairedSurrogate, 1),
        ("tru", .unexpectedEnd, 3),
        ("nul!", .unexpectedCharacter, 3),
        ("1e400", .numberOutOfRange, 0),
        ("[", .unexpectedEnd, 1),
        (#"{"a":"#, .unexpectedEnd, 5),
        (#""abc"#, .unexpectedEnd, 4),
    ])
    func rejectsWithCodeAndOffset(_ input: String, _ code: JSONParsingError.Code, _ offset: Int) {
        #expect {
            _ = try JSONValue.parse(input)
        } throws: { error in
            guard let error = error as? JSONParsingError else { return false }
            return error.code == code && error.byteOffset == offset
        }
    }

    @Test func rejectsInvalidUTF8AndBOM() {
        #expect(throws: JSONParsingError.self) { try JSONValue.parse([0x22, 0xC3, 0x28, 0x22]) }
        // A UTF-8 encoded surrogate.
        #expect(throws: JSONParsingError.self) { try JSONValue.parse([0x22, 0xED, 0xA0, 0x80, 0x22]) }
        #expect(throws: JSONParsingError.self) { try JSONValue.parse([0xEF, 0xBB, 0xBF, 0x31]) }
        #expect((try? JSONValue.parse([0x22, 0xE2, 0x82, 0xAC, 0x22])) == "€")
    }

    @Test func limitsDepth() throws {
        let ok = String(repeating: "[", count: 128) + String(repeating: "]", count: 128)
        let deep = String(repeating: "[", count: 129) + String(repeating: "]", count: 129)
        _ = try JSONValue.parse(ok)
        #expect {
            _ = try JSONValue.parse(deep)
        } throws: { ($0 as? JSONParsingError)?.code == .tooDeep && ($0 as? JSONParsingError)?.byteOffset == 128 }
        #expect(throws: JSONParsingError.self) {
            _ = try JSONValue.parse(String(repeating: "[", count: 100_000))
        }
        _ = try JSONValue.parse("[[[1]]]", options: JSONParsingOptions(maximumDepth: 3))
        #expect(throws: JSONParsingError.self) {
            _ = try JSONValue.parse("[[[[1]]]]", options: JSONParsingOptions(maximumDepth: 3))
        }
    }

    @Test(arguments: [
        (15.0, "15", "15.0"),
        (-3.0, "-3", "-3.0"),
        (0.1, "0.1", "0.1"),
        (15.5, "15.5", "15.5"),
        (1e-7, "1e-07", "1e-07"),
        (1e300, "1e+300", "1e+300"),
        (-0.0, "-0", "-0.0"),
        (9_007_199_254_740_992.0, "9007199254740992.0", "9007199254740992.0"),
        (Double.infinity, "null", "null"),
    ])
    func writesNumbers(_ value: Double, _ shortest: String, _ forced: String) {
        #expect(JSONValue.number(value).text() == shortest)
        #expect(JSONValue.number(value).text(options: JSONWritingOptions(forcesFractionalPart: true)) == forced)
    }

    @Test func escapesStrings() {
        let value = JSONValue.string("a\"b\\c\n\u{01}/é")
        #expect(value.text() == #""a\"b\\c\n\u0001/é""#)
        #expect(value.text(options: JSONWritingOptions(escapesSlashes: true)) == #""a\"b\\c\n\u0001\/é""#)
    }

    @Test func prettyPrints() {
        let value: JSONValue = ["a": [1, 2], "b": [:], "c": []]
        let expected = """
            {
              "a": [
                1,
                2
              ],
              "b": {},
              "c": []
            }
            """
        #expect(value.text(options: .pretty) == expected)
    }

    @Test func editsObjectsInPlace() {
        var value: JSONValue = ["z": 1, "a": 2]
        value["z"] = "one"
        value["m"] = true
        #expect(value.text() == #"{"z":"one","a":2,"m":true}"#)
        value["z"] = nil
        #expect(value.text() == #"{"a":2,"m":true}"#)
        #expect(JSONValue.number(3).intValue == 3)
        #expect(JSONValue.number(3.5).intValue == nil)
    }

    // MARK: - Properties

    static func randomString(_ rng: inout SeededGenerator) -> String {
        let alphabet: [Character] = [
            "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{01}", "é", "€", "😀", "-", "_",
        ]
        return String((0..<Int.random(in: 0...8, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
    }

    static func randomValue(_ rng: inout SeededGenerator, depth: Int = 0) -> JSONValue {
        switch Int.random(in: 0...(depth > 3 ? 3 : 5), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2:
            switch Int.random(in: 0...2, using: &rng) {
            case 0: return .number(Double(Int.random(in: -1_000_000...1_000_000, using: &rng)))
            case 1: return .number(Double.random(in: -1e6...1e6, using: &rng))
            default: return .number(Double(bitPattern: rng.next() & 0xFFEF_FFFF_FFFF_FFFF))  // any finite double
            }
        case 3: return .string(randomString(&rng))
        case 4: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) })
        default:
            return .object(
                (0..<Int.random(in: 0...4, using: &rng)).map { _ in
                    (randomString(&rng), randomValue(&rng, depth: depth + 1))
                }
            )
        }
    }

    @Test func randomValuesRoundTrip() throws {
        var rng = SeededGenerator(seed: 20_240_101)
        for _ in 0..<500 {
            let value = Self.randomValue(&rng)
            let compact = value.serialized()
            #expect(try JSONValue.parse(compact) == value)
            let pretty = value.serialized(options: JSONWritingOptions(indent: 3, forcesFractionalPart: true))
            #expect(try JSONValue.parse(pretty) == value)
            #expect(try JSONValue.parse(compact).serialized() == compact)
        }
    }

    @Test func randomBytesNeverCrash() {
        var rng = SeededGenerator(seed: 7)
        let interesting: [UInt8] =
            Array(#"{}[],:"\/-+.0123456789eEtrufalsn u"#.utf8) + [0, 0x1F, 0x80, 0xC3, 0xED, 0xF4, 0xFF]
        var accepted = 0
        for round in 0..<20_000 {
            let count = Int.random(in: 0...24, using: &rng)
            let bytes: [UInt8] = (0..<count).map { _ in
                round % 2 == 0 ? interesting.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng)
            }
            if let value = try? JSONValue.parse(bytes) {
                accepted += 1
                // Whatever was accepted must write back to something that parses to the same value.
                #expect((try? JSONValue.parse(value.serialized())) == value)
            }
        }
        #expect(accepted > 0)
    }

    @Test func mutatedDocumentsNeverCrash() {
        var rng = SeededGenerator(seed: 99)
        let seed = Array(#"{"ASSETS":[{"URI":"https://a/b.m3u8","DURATION":15.5}],"SKIP-CONTROL":{"OFFSET":5}}"#.utf8)
        for _ in 0..<5_000 {
            var bytes = seed
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let i = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0...2, using: &rng) {
                case 0: bytes[i] = UInt8.random(in: 0...255, using: &rng)
                case 1: bytes.remove(at: i)
                default: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: i)
                }
                if bytes.isEmpty { bytes = [0x7B] }
            }
            _ = try? JSONValue.parse(bytes)
            _ = try? AssetList.decode(bytes)
        }
    }
}
