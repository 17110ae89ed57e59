import HLSInterstitials
import HLSPlaylist
import Testing

/// Numbers in the JSON tree are exact: they keep their text and read back as media time to the
/// nanosecond, whatever a `Double` would have made of them.
@Suite struct JSONNumberTests {
    @Test func parsedNumbersKeepTheirText() throws {
        let text = #"{"a":123456789.123456789,"b":1E2,"c":-0,"d":1234567890123456789012345678901234567890,"e":2.50}"#
        let value = try JSONValue.parse(Array(text.utf8))
        #expect(value.text() == text)
        #expect(value["a"]?.numberValue?.text == "123456789.123456789")
        #expect(value["a"]?.mediaTimeValue == MediaTime(nanoseconds: 123_456_789_123_456_789))
        #expect(value["b"]?.intValue == 100)
        #expect(value["d"]?.intValue == nil)
        #expect(value["d"]?.doubleValue == 1.2345678901234568e39)
        #expect(value["e"]?.mediaTimeValue == MediaTime(milliseconds: 2_500))
    }

    @Test func equalityIsByValue() {
        #expect(JSONNumber("1") == JSONNumber("1.0"))
        #expect(JSONNumber("1") == JSONNumber("10e-1"))
        #expect(JSONNumber("0") == JSONNumber("-0.000e5"))
        #expect(JSONNumber("100") == JSONNumber("1e2"))
        #expect(JSONNumber("0.1") != JSONNumber("0.10000000000000001"))
        #expect(Set([JSONNumber("1")!, JSONNumber("1.00")!, JSONNumber("1e0")!]).count == 1)
        #expect(JSONValue.number(JSONNumber("2.0")!) == JSONValue.number(2))
    }

    @Test(arguments: [
        "", "+1", ".5", "1.", "01", "-", "1e", "1e+", "0x1F", "NaN", "inf", "-Infinity", " 1", "1 ", "1\u{0}",
        "1.2.3", "--1", "%31",
    ])
    func rejectsWhatTheGrammarDoesNot(_ text: String) {
        #expect(JSONNumber(text) == nil)
    }

    @Test func integersAtTheEdgesOfInt() {
        #expect(JSONNumber("9223372036854775807")?.intValue == Int.max)
        #expect(JSONNumber("-9223372036854775808")?.intValue == Int.min)
        #expect(JSONNumber("9223372036854775808")?.intValue == nil)
        #expect(JSONNumber("-9223372036854775809")?.intValue == nil)
        #expect(JSONNumber("9.223372036854775807e18")?.intValue == Int.max)
        #expect(JSONNumber("3.5")?.intValue == nil)
        #expect(JSONNumber("3.50e1")?.intValue == 35)
        #expect(JSONNumber("-0")?.intValue == 0)
        #expect(JSONNumber("1e-300")?.intValue == nil)
        #expect(JSONNumber("1e1000000000000")?.intValue == nil)
    }

    @Test func mediaTimeAtTheEdges() {
        #expect(JSONNumber("9223372036.854775807")?.mediaTime == MediaTime.maximum)
        #expect(JSONNumber("9223372036.854775808")?.mediaTime == nil)
        #expect(JSONNumber("-9223372036.854775807")?.mediaTime == MediaTime.minimum)
        #expect(JSONNumber("1e308")?.mediaTime == nil)
        #expect(JSONNumber("1e-300")?.mediaTime == .zero)
        #expect(JSONNumber("-1e-300")?.mediaTime == .zero)
        #expect(JSONNumber("-1e-300")?.isNegative == true)
        #expect(JSONNumber("-0.0")?.isNegative == false)
        #expect(JSONNumber("0.000000001e9")?.mediaTime == MediaTime(seconds: 1))
    }

    @Test func numbersMadeInCode() {
        #expect(JSONNumber(MediaTime(milliseconds: 2_002)).text == "2.002")
        #expect(JSONNumber(MediaTime(nanoseconds: -1)).text == "-0.000000001")
        #expect(JSONNumber(Int64.min).text == "-9223372036854775808")
        #expect(JSONNumber(Double.nan) == nil)
        #expect(JSONNumber(-Double.infinity) == nil)
        #expect(JSONValue.number(Double.nan) == .null)
        #expect(JSONValue.number(MediaTime(nanoseconds: 30_000_000_001)).text() == "30.000000001")
        #expect(JSONValue.number(7).text(options: JSONWritingOptions(forcesFractionalPart: true)) == "7.0")
        #expect(
            JSONValue.number(JSONNumber("7e0")!).text(options: JSONWritingOptions(forcesFractionalPart: true)) == "7e0"
        )
    }

    @Test func assetListDurationsRoundTripExactly() throws {
        let text =
            #"{"ASSETS":[{"URI":"https://a.example/1.m3u8","DURATION":30.000000001}],"SKIP-CONTROL":{"OFFSET":4.999999999}}"#
        let list = try AssetList.decode(text)
        #expect(list.assets[0].duration == MediaTime(nanoseconds: 30_000_000_001))
        #expect(list.skipControl?.offset == MediaTime(nanoseconds: 4_999_999_999))
        #expect(String(decoding: list.encode(), as: UTF8.self) == text)
    }

    @Test func scalarArraysOnOneLine() {
        let value: JSONValue = ["a": [1, "x", nil], "b": [[1]], "c": []]
        let expected = """
            {
              "a": [1, "x", null],
              "b": [
                [1]
              ],
              "c": []
            }
            """
        #expect(value.text(options: JSONWritingOptions(indent: 2, keepsScalarArraysOnOneLine: true)) == expected)
    }
}
