import AdInsertion
import Foundation
import HLSPlaylist
import Testing

@Suite("VAST offsets, skip offsets, progress and UniversalAdId")
struct VASTOffsetTests {
    @Test("offsets: HH:MM:SS(.mmm) or n% from 0 to 100; anything else is refused")
    func offsets() {
        #expect(VASTOffset("00:00:05") == .time(MediaTime(seconds: 5)))
        #expect(VASTOffset(" 00:01:02.250 ") == .time(MediaTime(milliseconds: 62_250)))
        #expect(VASTOffset("25%") == .percent(25))
        #expect(VASTOffset("12.5%") == .percent(12.5))
        #expect(VASTOffset("100%") == .percent(100))
        for bad in ["", "5", "%", "101%", "-1%", "1e2%", "nan%", "00:00:60", "5s", "00:05", "soon", "25 %"] {
            #expect(VASTOffset(bad) == nil, "\(bad)")
        }
        // A percentage is taken of the creative's duration; a time past the end is the end.
        #expect(VASTOffset.percent(12.5).moment(in: MediaTime(seconds: 8)) == MediaTime(seconds: 1))
        #expect(VASTOffset.percent(50).moment(in: MediaTime(seconds: 20)) == MediaTime(seconds: 10))
        #expect(VASTOffset.time(MediaTime(seconds: 30)).moment(in: MediaTime(seconds: 20)) == MediaTime(seconds: 20))
        #expect(VASTOffset.time(MediaTime(milliseconds: 3_500)).description == "00:00:03.500")
        #expect(VASTOffset.percent(25).description == "25%")
        #expect(VASTOffset.percent(12.5).description == "12.5%")
    }

    @Test("skipoffset, progress offsets and the UniversalAdId registry are read; a bad offset is a diagnostic")
    func skippable() throws {
        let (document, diagnostics) = try VASTDecoder.decode(vastFixture("skippable.xml"))
        #expect(diagnostics.map(\.rule) == ["vast.progress"])
        let creative = try #require(document.ads.first?.creatives.first)
        #expect(creative.universalAdID == "ABCD1234000H")
        #expect(creative.universalAdIDRegistry == "ad-id.org")
        let linear = try #require(creative.linear)
        #expect(linear.skipOffset == .percent(25))
        let progress = linear.tracking.filter { $0.event == "progress" }
        #expect(progress.map(\.offset) == [.time(MediaTime(seconds: 3)), .percent(50)])
        #expect(
            linear.tracking.map(\.event).filter { $0 != "progress" } == [
                "creativeView", "start", "skip", "pause", "resume", "mute", "unmute",
            ]
        )

        // Resolved: the skip offset in seconds, the registry and value for [UNIVERSALADID], progress
        // kept apart from the other events with its offsets.
        let walk = AdServerResolution(breakDuration: MediaTime(seconds: 60)).walk(document, answering: nil)
        let ad = try #require(walk.ads.first)
        #expect(ad.skipOffset == MediaTime(seconds: 5))
        #expect(ad.universalAdID == "ad-id.org ABCD1234000H")
        #expect(ad.creativeID == "ABCD1234000H")
        #expect(
            ad.tracking.progress.map(\.url) == [
                "http://ads.test/beacon/skippable-progress-3?at=[ADPLAYHEAD]",
                "http://ads.test/beacon/skippable-progress-half?at=[ADPLAYHEAD]",
            ]
        )
        #expect(ad.tracking.events["progress"] == nil)
        #expect(ad.tracking.events["skip"] == ["http://ads.test/beacon/skippable-skip"])
        #expect(ad.tracking.error == ["http://ads.test/beacon/skippable-error?code=[ERRORCODE]&uaid=[UNIVERSALADID]"])

        // Stored and read back (JSON): the progress offsets keep their VAST text; tracking stored
        // before progress was kept (no `progress` member) reads with none.
        let encoded = try JSONEncoder().encode(ad.tracking)
        #expect(String(decoding: encoded, as: UTF8.self).contains("\"offset\":\"50%\""))
        #expect(try JSONDecoder().decode(AdTracking.self, from: encoded) == ad.tracking)
        let old = Data(#"{"impression":["http://a.test/i"],"error":[],"events":{},"clickTracking":[]}"#.utf8)
        #expect(try JSONDecoder().decode(AdTracking.self, from: old) == AdTracking(impression: ["http://a.test/i"]))
    }

    @Test("a skipoffset that is neither a time nor a percentage leaves the ad unskippable, with a diagnostic")
    func badSkipOffset() throws {
        let xml = """
            <VAST version="4.1"><Ad><InLine><Creatives><Creative><Linear skipoffset="later">
            <Duration>00:00:10</Duration></Linear></Creative></Creatives></InLine></Ad></VAST>
            """
        let (document, diagnostics) = try VASTDecoder.decode(Array(xml.utf8))
        #expect(diagnostics.map(\.rule) == ["vast.skipoffset"])
        #expect(document.ads.first?.creatives.first?.linear?.skipOffset == nil)
    }
}
