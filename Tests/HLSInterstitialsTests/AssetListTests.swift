import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import Testing

@Suite struct AssetListTests {
    static let specExample = """
        {"ASSETS": [{"URI": "https://ads.example.com/ad1.m3u8", "DURATION": 15},
                    {"URI": "https://ads.example.com/ad2.m3u8", "DURATION": 15.5}],
         "SKIP-CONTROL": {"OFFSET": 5, "DURATION": 20, "LABEL-ID": "Exit-Label"}}
        """

    @Test func decodesTheSpecExample() throws {
        let list = try AssetList.decode(Self.specExample)
        #expect(list.assets.map(\.uri) == ["https://ads.example.com/ad1.m3u8", "https://ads.example.com/ad2.m3u8"])
        #expect(list.assets.map(\.duration) == [MediaTime(seconds: 15), MediaTime(milliseconds: 15_500)])
        #expect(list.assets[1].mediaDuration == MediaTime(nanoseconds: 15_500_000_000))
        #expect(list.totalDuration == MediaTime(milliseconds: 30_500))
        #expect(list.skipControl?.offset == 5)
        #expect(list.skipControl?.duration == 20)
        #expect(list.skipControl?.labelID == "Exit-Label")
        #expect(list.otherMembers.isEmpty)
        #expect(
            String(decoding: list.encode(), as: UTF8.self)
                == #"{"ASSETS":[{"URI":"https://ads.example.com/ad1.m3u8","DURATION":15},{"URI":"https://ads.example.com/ad2.m3u8","DURATION":15.5}],"SKIP-CONTROL":{"OFFSET":5,"DURATION":20,"LABEL-ID":"Exit-Label"}}"#
        )
    }

    @Test func keepsUnknownKeysAndTheirOrder() throws {
        let input =
            #"{"X-AD-CREATIVE-SIGNALING":{"version":2},"SKIP-CONTROL":{"LABEL-ID":"L","X-NOTE":true,"OFFSET":0},"ASSETS":[{"DURATION":10,"TRACKING_EVENTS":[{"event":"start","uri":"https://t/1"}],"URI":"https://a/1.m3u8"}],"TRACKING":null}"#
        let list = try AssetList.decode(input)
        #expect(list.otherMembers.map(\.key) == ["X-AD-CREATIVE-SIGNALING", "TRACKING"])
        #expect(list.otherMembers[0].value["version"] == 2)
        #expect(list.assets[0].otherMembers.map(\.key) == ["TRACKING_EVENTS"])
        #expect(list.skipControl?.otherMembers.map(\.key) == ["X-NOTE"])
        #expect(String(decoding: list.encode(), as: UTF8.self) == input)
    }

    @Test func editsKeepThePlaceOfEveryOtherKey() throws {
        var list = try AssetList.decode(#"{"A":1,"ASSETS":[{"URI":"u","X":1,"DURATION":5}],"B":2}"#)
        list.assets[0].duration = MediaTime(milliseconds: 6_250)
        list.assets.append(AssetList.Asset(uri: "v", duration: 1))
        list.skipControl = AssetList.SkipControlOverride(offset: 3)
        #expect(
            String(decoding: list.encode(), as: UTF8.self)
                == #"{"A":1,"ASSETS":[{"URI":"u","X":1,"DURATION":6.25},{"URI":"v","DURATION":1}],"B":2,"SKIP-CONTROL":{"OFFSET":3}}"#
        )
    }

    @Test func encodesAListMadeInCode() throws {
        var asset = AssetList.Asset(uri: "https://a/1.m3u8", duration: 15)
        asset.otherMembers = [("X-ID", "c-1")]
        var list = AssetList(assets: [asset], skipControl: .init(offset: 5, labelID: "Skip"))
        list.otherMembers = [("X-V", 1)]
        #expect(
            String(decoding: list.encode(), as: UTF8.self)
                == #"{"ASSETS":[{"URI":"https://a/1.m3u8","DURATION":15,"X-ID":"c-1"}],"SKIP-CONTROL":{"OFFSET":5,"LABEL-ID":"Skip"},"X-V":1}"#
        )
        #expect(try AssetList.decode(list.encode()) == list)
        #expect(String(decoding: AssetList(assets: []).encode(), as: UTF8.self) == #"{"ASSETS":[]}"#)
    }

    @Test(arguments: [
        (#"{"ASSETS":[}"#, AssetListDecodingError.Code.invalidJSON, ""),
        (#"[]"#, .notAnObject, ""),
        (#"{}"#, .missingAssets, ""),
        (#"{"assets":[]}"#, .missingAssets, ""),
        (#"{"ASSETS":{}}"#, .assetsNotAnArray, "ASSETS"),
        (#"{"ASSETS":[{"URI":"a","DURATION":1},{"DURATION":1}]}"#, .invalidAsset, "ASSETS[1]"),
        (#"{"ASSETS":[{"URI":"a"}]}"#, .invalidAsset, "ASSETS[0]"),
        (#"{"ASSETS":[{"URI":"a","DURATION":"15"}]}"#, .invalidAsset, "ASSETS[0].DURATION"),
        (#"{"ASSETS":[{"URI":"a","DURATION":-1}]}"#, .invalidAsset, "ASSETS[0].DURATION"),
        (#"{"ASSETS":[{"URI":5,"DURATION":1}]}"#, .invalidAsset, "ASSETS[0].URI"),
        (#"{"ASSETS":["a"]}"#, .invalidAsset, "ASSETS[0]"),
        (#"{"ASSETS":[],"SKIP-CONTROL":[]}"#, .invalidSkipControl, "SKIP-CONTROL"),
        (#"{"ASSETS":[],"SKIP-CONTROL":{"LABEL-ID":1}}"#, .invalidSkipControl, "SKIP-CONTROL.LABEL-ID"),
    ])
    func rejectsDocumentsThatAreNotAssetLists(_ input: String, _ code: AssetListDecodingError.Code, _ path: String) {
        #expect {
            _ = try AssetList.decode(input)
        } throws: { error in
            guard let error = error as? AssetListDecodingError else { return false }
            return error.code == code && error.path == path
        }
    }

    @Test func invalidJSONCarriesTheByteOffset() {
        #expect {
            _ = try AssetList.decode(#"{"ASSETS":[}"#)
        } throws: { ($0 as? AssetListDecodingError)?.byteOffset == 11 }
    }

    @Test func skipControlOverridesTheTagKeyByKey() {
        var event = InterstitialEvent(identifier: "ad1", time: 10)
        event.skipControl = SkipControl(offset: 10, duration: 5, labelID: "Tag-Label")
        let list = AssetList(assets: [], skipControl: .init(offset: 2))
        #expect(list.effectiveSkipControl(for: event) == SkipControl(offset: 2, duration: 5, labelID: "Tag-Label"))
        let none = AssetList(assets: [])
        #expect(none.effectiveSkipControl(for: event) == event.skipControl)
        let fromList = AssetList(assets: [], skipControl: .init(offset: 5, duration: 20, labelID: "L"))
        #expect(
            fromList.effectiveSkipControl(for: InterstitialEvent(identifier: "x", time: 0))
                == SkipControl(offset: 5, duration: 20, labelID: "L")
        )
        #expect(
            AssetList(assets: [], skipControl: .init(labelID: "L")).effectiveSkipControl(
                for: InterstitialEvent(identifier: "x", time: 0)
            ) == nil
        )
    }

    /// Builds the members of an object in a random order, with unknown keys mixed in, and the
    /// expected JSON text written independently of the encoder.
    static func shuffledObject(
        _ known: [(String, String)],
        _ rng: inout SeededGenerator
    ) -> (text: String, extra: [String]) {
        var members = known
        var extra: [String] = []
        for k in 0..<Int.random(in: 0...3, using: &rng) {
            let key = "X-EXTRA-\(k)"
            extra.append(key)
            members.append((key, ["1", "\"s\"", "[true,null]", #"{"n":-2.5}"#].randomElement(using: &rng)!))
        }
        members.shuffle(using: &rng)
        let ordered = members.map(\.0).filter { extra.contains($0) }
        return ("{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}", ordered)
    }

    @Test func randomKeyOrdersRoundTrip() throws {
        var rng = SeededGenerator(seed: 42)
        for _ in 0..<300 {
            var assets: [String] = []
            var expectedAssets: [(String, MediaTime)] = []
            for n in 0..<Int.random(in: 0...3, using: &rng) {
                let hundredths = Int.random(in: 0...6000, using: &rng)
                let duration = Double(hundredths) / 100
                let uri = "https://ads.example.com/\(n).m3u8"
                expectedAssets.append((uri, MediaTime(milliseconds: Int64(hundredths) * 10)))
                assets.append(
                    Self.shuffledObject([("URI", "\"\(uri)\""), ("DURATION", JSONValue.numberText(duration))], &rng)
                        .text
                )
            }
            var top: [(String, String)] = [("ASSETS", "[" + assets.joined(separator: ",") + "]")]
            let hasSkip = Bool.random(using: &rng)
            if hasSkip {
                top.append(
                    ("SKIP-CONTROL", Self.shuffledObject([("OFFSET", "5"), ("LABEL-ID", "\"Skip\"")], &rng).text)
                )
            }
            let (text, extra) = Self.shuffledObject(top, &rng)
            let list = try AssetList.decode(text)
            #expect(list.assets.map(\.uri) == expectedAssets.map(\.0))
            #expect(list.assets.map(\.duration) == expectedAssets.map(\.1))
            #expect(list.otherMembers.map(\.key) == extra)
            #expect(list.skipControl?.offset == (hasSkip ? 5 : nil))
            #expect(String(decoding: list.encode(), as: UTF8.self) == text)
            #expect(try AssetList.decode(list.encode()) == list)
        }
    }
}
