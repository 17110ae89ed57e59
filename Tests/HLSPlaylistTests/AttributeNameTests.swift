import HLSPlaylist
import Testing

@Suite struct AttributeNameTests {
    @Test func namesReadAndWriteTheSameAttributeAsTheirSpelling() throws {
        var list = try AttributeList(parsing: #"ID="a",X-ASSET-URI="https://a.example/x.m3u8",CUE="PRE,ONCE""#)
        #expect(list[.assetURI]?.quotedString == "https://a.example/x.m3u8")
        #expect(list[.cue]?.stringList == ["PRE", "ONCE"])
        #expect(list.contains(.id))
        #expect(!list.contains(.assetList))
        list[.resumeOffset] = .decimal(.zero)
        list.append(.restrict, .stringList(["SKIP"]))
        #expect(
            list.description
                == #"ID="a",X-ASSET-URI="https://a.example/x.m3u8",CUE="PRE,ONCE",X-RESUME-OFFSET=0,X-RESTRICT="SKIP""#
        )
        list[.cue] = nil
        #expect(list.names == ["ID", "X-ASSET-URI", "X-RESUME-OFFSET", "X-RESTRICT"])
    }

    @Test func spellingsAreTheSpecs() {
        // Appendix D.2 and §4.4.5.1, typed out here rather than read from the code.
        let expected: [(AttributeName, String)] = [
            (.assetURI, "X-ASSET-URI"), (.assetList, "X-ASSET-LIST"), (.resumeOffset, "X-RESUME-OFFSET"),
            (.playoutLimit, "X-PLAYOUT-LIMIT"), (.snap, "X-SNAP"), (.restrict, "X-RESTRICT"),
            (.contentMayVary, "X-CONTENT-MAY-VARY"), (.timelineOccupies, "X-TIMELINE-OCCUPIES"),
            (.timelineStyle, "X-TIMELINE-STYLE"), (.skipControlOffset, "X-SKIP-CONTROL-OFFSET"),
            (.skipControlDuration, "X-SKIP-CONTROL-DURATION"), (.skipControlLabelID, "X-SKIP-CONTROL-LABEL-ID"),
            (.cue, "CUE"), (.startDate, "START-DATE"), (.endDate, "END-DATE"), (.endOnNext, "END-ON-NEXT"),
            (.plannedDuration, "PLANNED-DURATION"), (.scte35Out, "SCTE35-OUT"),
            (.timeOffset, "TIME-OFFSET"), (.import, "IMPORT"), (.queryParameter, "QUERYPARAM"),
            (.default, "DEFAULT"), (.recentlyRemovedDateRanges, "RECENTLY-REMOVED-DATERANGES"),
            (.lastMediaSequenceNumber, "LAST-MSN"), (.byteRangeStart, "BYTERANGE-START"), (.groupID, "GROUP-ID"),
            (.averageBandwidth, "AVERAGE-BANDWIDTH"), (.hdcpLevel, "HDCP-LEVEL"),
            (.requiredVideoLayout, "REQ-VIDEO-LAYOUT"),
            (.initializationVector, "IV"), (.keyFormatVersions, "KEYFORMATVERSIONS"), (.serverURI, "SERVER-URI"),
        ]
        for (name, spelling) in expected {
            #expect(name.rawValue == spelling)
        }
        #expect(AttributeName.interstitialClassNames.count == 13)
        #expect(AttributeName.interstitialClassNames.allSatisfy { $0.rawValue.hasPrefix("X-") })
    }

    @Test func allowedValuesOfEachEnumeratedAttribute() {
        #expect(AttributeName.cue.allowedValues == ["PRE", "POST", "ONCE"])
        #expect(AttributeName.legacyCue.allowedValues == ["PRE", "POST", "ONCE"])
        #expect(AttributeName.restrict.allowedValues == ["SKIP", "JUMP"])
        #expect(AttributeName.snap.allowedValues == ["OUT", "IN"])
        #expect(AttributeName.contentMayVary.allowedValues == ["YES", "NO"])
        #expect(AttributeName.timelineOccupies.allowedValues == ["POINT", "RANGE"])
        #expect(AttributeName.timelineStyle.allowedValues == ["HIGHLIGHT", "PRIMARY"])
        #expect(AttributeName.endOnNext.allowedValues == ["YES"])
        #expect(AttributeName.duration.allowedValues == nil)
        #expect(AttributeName("X-COM-EXAMPLE").allowedValues == nil)
        #expect(AttributeName.restrict.isMemberList && !AttributeName.timelineStyle.isMemberList)
    }
}
