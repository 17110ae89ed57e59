import HLSInterstitials
import HLSPlaylist
import Testing

@Suite struct CreativeSignalingTests {
    /// An asset list whose entry carries SVTA2053-2 signaling with members this model does not
    /// name at every level, numbers written with trailing zeros, and a pod with its slots.
    static let document = #"""
        {"ASSETS":[{"URI":"https://a.example/ad.m3u8","X-AD-CREATIVE-SIGNALING":{"type":"pod","version":2,"vendor":{"k":[1,null]},"payload":[{"start":0.000,"duration":30.0,"tracking":[{"urls":["https://t.example/podStart"],"type":"podStart","x":true}],"slots":[{"type":"linear","start":0,"duration":15.000,"identifiers":[{"scheme":"adId","value":"red","extra":"e"}],"tracking":[{"type":"firstQuartile","offset":3.75,"urls":["https://t.example/q1","https://u.example/q1"]}],"layout":{"viewport":"0 0 0 0"}}]}]},"DURATION":30}]}
        """#

    @Test func decodesTheSignalingOfAnEntryAndEncodesItByteForByte() throws {
        let list = try AssetList.decode(Self.document)
        #expect(String(decoding: list.encode(), as: UTF8.self) == Self.document)
        let signaling = try #require(try list.assets[0].creativeSignaling())
        #expect(signaling.type == "pod" && signaling.version?.intValue == 2)
        #expect(signaling.otherMembers.map(\.key) == ["vendor"])
        let pod = try #require(signaling.payload.first)
        #expect(pod.type == nil && pod.duration?.mediaTime == MediaTime(seconds: 30))
        #expect(pod.tracking?.first?.type == "podStart" && pod.tracking?.first?.otherMembers.map(\.key) == ["x"])
        let slot = try #require(pod.slots?.first)
        #expect(slot.identifiers?.first?.value == "red" && slot.identifiers?.first?.otherMembers.count == 1)
        #expect(slot.tracking?.first?.offset?.mediaTime == MediaTime(milliseconds: 3750))
        #expect(slot.tracking?.first?.urls == ["https://t.example/q1", "https://u.example/q1"])
        #expect(slot.otherMembers.map(\.key) == ["layout"])
        // Written back through the model, in place: the same bytes.
        var copy = list
        copy.assets[0].setCreativeSignaling(signaling)
        #expect(String(decoding: copy.encode(), as: UTF8.self) == Self.document)
    }

    @Test func signalingMadeInCodeReadsBackTheSame() throws {
        let slot = CreativeSignaling.Item(
            start: JSONNumber(0),
            duration: JSONNumber(MediaTime(seconds: 10)),
            identifiers: [CreativeSignaling.Identifier(scheme: "creativeId", value: "blue")],
            tracking: [CreativeSignaling.TrackingEvent(type: "impression", offset: JSONNumber(0), urls: ["/i"])]
        )
        var asset = AssetList.Asset(uri: "https://a.example/b.m3u8", duration: MediaTime(seconds: 10))
        #expect(try asset.creativeSignaling() == nil)
        asset.setCreativeSignaling(CreativeSignaling(payload: [slot]))
        let text = String(decoding: AssetList(assets: [asset]).encode(), as: UTF8.self)
        #expect(text.contains(#""X-AD-CREATIVE-SIGNALING":{"version":2,"type":"slot","payload":[{"type":"linear""#))
        let back = try AssetList.decode(text)
        #expect(try back.assets[0].creativeSignaling() == CreativeSignaling(payload: [slot]))
        var removed = back.assets[0]
        removed.setCreativeSignaling(nil)
        #expect(removed.otherMembers.isEmpty)
    }

    @Test(arguments: [
        (#"[]"#, "X-AD-CREATIVE-SIGNALING"),
        (#"{"type":"slot"}"#, "X-AD-CREATIVE-SIGNALING"),
        (
            #"{"payload":[{"tracking":[{"type":"start","urls":"https://x"}]}]}"#,
            "X-AD-CREATIVE-SIGNALING.payload[0].tracking[0].urls"
        ),
        (
            #"{"payload":[{"tracking":[{"type":"start","urls":[1]}]}]}"#,
            "X-AD-CREATIVE-SIGNALING.payload[0].tracking[0].urls[0]"
        ),
        (#"{"payload":[{"identifiers":[{"scheme":"s"}]}]}"#, "X-AD-CREATIVE-SIGNALING.payload[0].identifiers[0]"),
        (#"{"payload":[{"duration":"15"}]}"#, "X-AD-CREATIVE-SIGNALING.payload[0].duration"),
        (#"{"version":"2","payload":[]}"#, "X-AD-CREATIVE-SIGNALING.version"),
    ])
    func malformedSignalingIsAnErrorWithItsPathButTheListStillDecodes(value: String, path: String) throws {
        let list = try AssetList.decode(
            #"{"ASSETS":[{"URI":"https://a/b.m3u8","DURATION":1,"X-AD-CREATIVE-SIGNALING":"# + value + "}]}"
        )
        #expect(String(decoding: list.encode(), as: UTF8.self).contains(value))
        do {
            _ = try list.assets[0].creativeSignaling()
            Issue.record("no error for \(value)")
        } catch let error as AssetListDecodingError {
            #expect(error.code == .invalidCreativeSignaling)
            #expect(error.path == path)
        }
    }
}
