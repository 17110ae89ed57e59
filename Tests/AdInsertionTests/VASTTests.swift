import AdInsertion
import HLSPlaylist
import IntermissionTestSupport
import Testing

/// A VAST fixture of `Tests/Fixtures/vast`, its `{{BASE}}` made `base`.
func vastFixture(_ name: String, base: String = "http://ads.test") -> [UInt8] {
    Array(Fixture.text("vast/" + name).replacing("{{BASE}}", with: base).utf8)
}

@Suite("VAST and VMAP decoding")
struct VASTDecodingTests {
    @Test("an InLine ad: its creative, duration, tracking events, clicks and media files")
    func inline() throws {
        let (document, diagnostics) = try VASTDecoder.decode(vastFixture("inline.xml"))
        #expect(diagnostics.isEmpty)
        #expect(document.version == "4.2")
        let ad = try #require(document.ads.first)
        #expect(ad.id == "inline-ad" && ad.kind == .inLine && ad.sequence == nil)
        #expect(ad.impressionURLs == ["http://ads.test/beacon/inline-impression"])
        #expect(ad.errorURLs == ["http://ads.test/beacon/inline-error?code=[ERRORCODE]"])
        let creative = try #require(ad.creatives.first)
        #expect(creative.universalAdID == "UAID-INLINE")
        let linear = try #require(creative.linear)
        #expect(linear.duration == MediaTime(seconds: 15))
        #expect(linear.tracking.map(\.event) == ["start", "firstQuartile", "midpoint", "thirdQuartile", "complete"])
        #expect(linear.clickThrough == "https://advertiser.example.com/landing?a=1&b=2")
        #expect(linear.mediaFiles.map(\.bitrate) == [1500, 4000, 1200, 600])
        #expect(linear.mediaFiles.map(\.isHLS) == [false, true, true, true])
    }

    @Test("the media file is chosen by type and nearest bitrate, never by document order")
    func mediaChoice() throws {
        let (document, _) = try VASTDecoder.decode(vastFixture("inline.xml"))
        let files = try #require(document.ads.first?.creatives.first?.linear?.mediaFiles)
        let near1500 = AdServerResolution(breakDuration: MediaTime(seconds: 30), targetBitrate: 1500)
        #expect(near1500.mediaFile(files)?.url == "http://ads.test/media/inline-1200.m3u8")
        #expect(near1500.mediaFile(files.reversed())?.url == "http://ads.test/media/inline-1200.m3u8")
        let near100 = AdServerResolution(breakDuration: MediaTime(seconds: 30), targetBitrate: 100)
        #expect(near100.mediaFile(files)?.url == "http://ads.test/media/inline-600.m3u8")
        let highest = AdServerResolution(breakDuration: MediaTime(seconds: 30))
        #expect(highest.mediaFile(files.shuffled())?.url == "http://ads.test/media/inline-4000.m3u8")
        #expect(highest.mediaFile(files.filter { !$0.isHLS }) == nil)
    }

    @Test("durations: HH:MM:SS(.mmm) within a day; anything else is refused")
    func durations() {
        #expect(VASTDecoder.duration("00:00:15") == MediaTime(seconds: 15))
        #expect(VASTDecoder.duration("01:02:03.250") == MediaTime(milliseconds: 3_723_250))
        for bad in [
            "1e308", "15", "00:00:60", "24:00:00", "-1:00:00", "00:00:1", "00:00:15.", "00:00:15.1234567890",
            "nan", "00:00:1\u{0}", String(repeating: "9", count: 100_000),
        ] {
            #expect(VASTDecoder.duration(bad) == nil, "\(bad.prefix(20))")
        }
    }

    @Test("a malformed document is VAST error 100 with its line; a root that is not VAST is 101")
    func malformed() {
        #expect(throws: VASTError.self) { try VASTDecoder.decode(vastFixture("malformed.xml")) }
        do {
            _ = try VASTDecoder.decode(vastFixture("malformed.xml"))
        } catch {
            #expect(error.code == .xmlParsing)
            #expect(error.line == 10)
        }
        do {
            _ = try VASTDecoder.decode(Array("<VMAP/>".utf8))
            Issue.record("a VMAP root was read as VAST")
        } catch {
            #expect(error.code == .schemaValidation)
        }
    }

    @Test("hostile documents: deep nesting, NUL, entity declarations, huge strings, 1e308 durations")
    func hostile() throws {
        let deep = String(repeating: "<a>", count: 100_000) + String(repeating: "</a>", count: 100_000)
        #expect(throws: MarkupError.self) { try MarkupTree.parse(Array(deep.utf8)) }
        #expect(throws: MarkupError.self) { try MarkupTree.parse(Array("<VAST>a\u{0}b</VAST>".utf8)) }
        let bomb = "<!DOCTYPE VAST [<!ENTITY a \"aaaa\">]><VAST>&a;</VAST>"
        #expect(throws: MarkupError.self) { try MarkupTree.parse(Array(bomb.utf8)) }
        #expect(throws: MarkupError.self) { try MarkupTree.parse(Array("<VAST>&#0;</VAST>".utf8)) }
        #expect(throws: MarkupError.self) { try MarkupTree.parse(Array("<VAST></VAST><VAST/>".utf8)) }
        #expect(throws: MarkupError.self) { try MarkupTree.parse([]) }
        let huge = String(repeating: "x", count: 100_000)
        let text = """
            <VAST version="4.2"><Ad id="\(huge)" sequence="1e308"><InLine><Impression>http://ads.test/\(huge)</Impression>
            <Creatives><Creative><Linear><Duration>1e308</Duration><MediaFiles>
            <MediaFile type="application/x-mpegURL" bitrate="1e308">http://ads.test/a.m3u8</MediaFile>
            </MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>
            """
        let (document, diagnostics) = try VASTDecoder.decode(Array(text.utf8))
        let ad = try #require(document.ads.first)
        #expect(ad.sequence == nil)
        #expect(ad.impressionURLs.isEmpty)
        #expect(ad.creatives.first?.linear?.duration == nil)
        #expect(ad.creatives.first?.linear?.mediaFiles.first?.bitrate == nil)
        #expect(Set(diagnostics.map(\.rule)) == ["vast.sequence", "vast.url", "vast.duration"])
        #expect(diagnostics.allSatisfy { $0.line >= 1 && !$0.fix.isEmpty && $0.message.utf8.count < 400 })
        // No usable duration: the ad is refused with 101, its error URLs named.
        let walk = AdServerResolution(breakDuration: MediaTime(seconds: 30)).walk(document, answering: nil)
        #expect(walk.ads.isEmpty)
        #expect(walk.failures.map(\.code) == [.schemaValidation])
    }

    @Test("VMAP: start, times, percentages and end become VOD break positions; ordinals and bad offsets do not")
    func vmap() throws {
        let (document, diagnostics) = try VMAPDecoder.decode(vastFixture("vmap.xml"))
        #expect(document.breaks.map(\.id) == ["preroll", "midroll-1", "half", "ordinal", "postroll"])
        #expect(diagnostics.map(\.rule) == ["vmap.timeOffset"])
        #expect(document.breaks[0].adTagURI == "http://ads.test/vast/inline.xml")
        #expect(document.breaks[1].vast?.ads.first?.id == "embedded")
        let positions = document.vodPositions(presentationDuration: MediaTime(seconds: 3600))
        #expect(positions.map { $0.id } == ["preroll", "midroll-1", "half", "postroll"])
        #expect(
            positions.map { $0.position } == [
                .preRoll, .midRoll(MediaTime(seconds: 600)), .midRoll(MediaTime(seconds: 1800)), .postRoll,
            ]
        )
        // A time past the end of a short presentation is left out.
        let short = document.vodPositions(presentationDuration: MediaTime(seconds: 300))
        #expect(short.map { $0.id } == ["preroll", "half", "postroll"])
        #expect(VMAPDecoder.timeOffset("100%") == .percentage(100))
        #expect(VMAPDecoder.timeOffset("nan%") == nil && VMAPDecoder.timeOffset("101%") == nil)
    }
}

@Suite("VMAP break types, repeated IDs and repeatAfter")
struct VMAPPlacementRuleTests {
    static let document = """
        <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
          <vmap:AdBreak timeOffset="start" breakType="linear" breakId="ad"/>
          <vmap:AdBreak timeOffset="00:10:00" breakType="linear" breakId="ad"/>
          <vmap:AdBreak timeOffset="00:12:00" breakType="nonlinear" breakId="overlay"/>
          <vmap:AdBreak timeOffset="00:13:00" breakType="display" breakId="companion"/>
          <vmap:AdBreak timeOffset="00:14:00" breakType="linear,nonlinear" breakId="both"/>
          <vmap:AdBreak timeOffset="00:05:00" breakType="linear" breakId="every" repeatAfter="00:15:00"/>
          <vmap:AdBreak timeOffset="00:07:00" breakType="linear" breakId="bad" repeatAfter="soon"/>
          <vmap:AdBreak timeOffset="end" breakType="linear" breakId="ad"/>
        </vmap:VMAP>
        """

    @Test func nonLinearBreaksAreLeftOutRepeatedIDsAreNumberedAndRepeatAfterRepeats() throws {
        let (document, diagnostics) = try VMAPDecoder.decode(Array(Self.document.utf8))
        #expect(diagnostics.map(\.rule) == ["vmap.breakType", "vmap.breakType", "vmap.repeatAfter"])
        let positions = document.vodPositions(presentationDuration: MediaTime(seconds: 3600))
        let minutes = { (m: Int) in VODBreakPosition.midRoll(MediaTime(seconds: 60 * m)) }
        #expect(positions.map(\.id) == ["ad", "ad-2", "both", "every", "every-2", "every-3", "every-4", "bad", "ad-3"])
        #expect(
            positions.map(\.position) == [
                .preRoll, minutes(10), minutes(14), minutes(5), minutes(20), minutes(35), minutes(50), minutes(7),
                .postRoll,
            ]
        )
        // A repeat every millisecond of a day-long presentation stops at the cap.
        let dense = VMAPDocument(breaks: [
            VMAPBreak(id: "dense", timeOffset: .start, repeatAfter: MediaTime(milliseconds: 1))
        ])
        #expect(
            dense.vodPositions(presentationDuration: MediaTime(seconds: 86_400)).count == VMAPDocument.maximumRepeats
        )
    }
}

@Suite("Ad-server resolution")
struct AdServerResolutionTests {
    let resolution = AdServerResolution(breakDuration: MediaTime(seconds: 60), targetBitrate: 1500)

    func document(_ name: String) throws -> VASTDocument {
        try VASTDecoder.decode(vastFixture(name)).0
    }

    @Test("a pod plays in sequence order whatever the document order; stand-alone ads fill what is left")
    func podOrder() throws {
        let walk = self.resolution.walk(try self.document("pod.xml"), answering: nil)
        #expect(walk.failures.isEmpty && walk.pending.isEmpty)
        let pod = self.resolution.pod(walk.ads)
        #expect(pod.map(\.creativeID) == ["UAID-FIRST", "UAID-SECOND", "UAID-THIRD", "UAID-FILLER"])
        #expect(pod.last?.duration == MediaTime(milliseconds: 10_500))
        // A 30 s break holds the pod and no fill.
        let short = AdServerResolution(breakDuration: MediaTime(seconds: 30))
        #expect(short.pod(walk.ads).map(\.creativeID) == ["UAID-FIRST", "UAID-SECOND", "UAID-THIRD"])
    }

    @Test("a wrapper chain carries every wrapper's impression, tracking and error URLs to the final creative")
    func wrapperChain() throws {
        var walk = self.resolution.walk(try self.document("wrapper-1.xml"), answering: nil)
        let first = try #require(walk.pending.first)
        #expect(first.url == "http://ads.test/vast/wrapper-2.xml" && first.depth == 1)
        walk = self.resolution.walk(try self.document("wrapper-2.xml"), answering: first)
        let second = try #require(walk.pending.first)
        #expect(second.url == "http://ads.test/vast/inline.xml" && second.depth == 2)
        walk = self.resolution.walk(try self.document("inline.xml"), answering: second)
        let ad = try #require(walk.ads.first)
        #expect(ad.creativeID == "UAID-INLINE")
        #expect(ad.uri == "http://ads.test/media/inline-1200.m3u8")
        #expect(ad.duration == MediaTime(seconds: 15))
        let t = ad.tracking
        #expect(
            t.impression == [
                "http://ads.test/beacon/w1-impression", "http://ads.test/beacon/w2-impression",
                "http://ads.test/beacon/inline-impression",
            ]
        )
        #expect(
            t.error == [
                "http://ads.test/beacon/w1-error?code=[ERRORCODE]", "http://ads.test/beacon/w2-error?code=[ERRORCODE]",
                "http://ads.test/beacon/inline-error?code=[ERRORCODE]",
            ]
        )
        #expect(
            t.events["start"] == [
                "http://ads.test/beacon/w1-start", "http://ads.test/beacon/w2-start",
                "http://ads.test/beacon/inline-start",
            ]
        )
        #expect(t.events["complete"]?.count == 3)
        #expect(t.events["midpoint"] == ["http://ads.test/beacon/inline-mid"])
        #expect(t.clickThrough == "https://advertiser.example.com/landing?a=1&b=2")
        #expect(t.clickTracking.count == 3)
    }

    @Test("a wrapper loop stops after five wrappers with error 302 on every wrapper's error URL")
    func wrapperLimit() throws {
        let loop = try self.document("loop.xml")
        var walk = self.resolution.walk(loop, answering: nil)
        var depth = 1
        while let pending = walk.pending.first {
            #expect(pending.depth == depth)
            walk = self.resolution.walk(loop, answering: pending)
            depth += 1
        }
        #expect(depth == 6)
        let failure = try #require(walk.failures.first)
        #expect(failure.code == .wrapperLimit)
        #expect(failure.urls.count == 6)
        #expect(failure.filledURLs(cacheBuster: "1").allSatisfy { $0.hasSuffix("code=302") })
    }

    @Test("no ad is 303, no HLS media file 403, an unreachable wrapper 301; [ERRORCODE] is filled")
    func errorCodes() throws {
        let none = self.resolution.walk(try self.document("no-ad.xml"), answering: nil)
        #expect(none.failures.map(\.code) == [.noAdsAfterWrapper])
        #expect(none.failures[0].filledURLs(cacheBuster: "7") == ["http://ads.test/beacon/no-ad?code=303"])
        let mp4 = self.resolution.walk(try self.document("no-hls.xml"), answering: nil)
        #expect(mp4.ads.isEmpty)
        #expect(mp4.failures.map(\.code) == [.noSupportedMediaFile])
        #expect(mp4.failures[0].filledURLs(cacheBuster: "7") == ["http://ads.test/beacon/mp4-error?code=403"])
        let dead = self.resolution.walk(try self.document("wrapper-dead.xml"), answering: nil)
        let pending = try #require(dead.pending.first)
        let failure = self.resolution.failed(pending, code: .wrapperTimeout, reason: "refused")
        #expect(failure.filledURLs(cacheBuster: "7") == ["http://ads.test/beacon/wrapper-dead-error?code=301"])
        #expect(
            AdServerResolution.fill(
                "http://x/e?c=%5BERRORCODE%5D&r=[CACHEBUSTING]",
                code: .wrapperLimit,
                cacheBuster: "42"
            )
                == "http://x/e?c=302&r=42"
        )
    }

    @Test("an ad of non-linear creatives only is 201; a VAST 1.x answer is 102")
    func linearityAndVersion() throws {
        let overlay = self.resolution.walk(try self.document("nonlinear.xml"), answering: nil)
        #expect(overlay.ads.isEmpty)
        #expect(overlay.failures.map(\.code) == [.unexpectedLinearity])
        #expect(overlay.failures[0].filledURLs(cacheBuster: "7") == ["http://ads.test/beacon/overlay-error?code=201"])
        let roots = [
            "<VideoAdServingTemplate><Ad id=\"a\"><InLine/></Ad></VideoAdServingTemplate>",
            "<VAST version=\"1.0\"><Ad id=\"a\"/></VAST>",
        ]
        for root in roots {
            do {
                _ = try VASTDecoder.decode(Array(root.utf8))
                Issue.record("a VAST 1.x answer was read: \(root)")
            } catch {
                #expect(error.code == .unsupportedVersion, "\(root)")
            }
        }
        #expect(throws: Never.self) { try VASTDecoder.decode(Array("<VAST version=\"2.0\"/>".utf8)) }
    }

    @Test("the URL template's macros are filled and percent-encoded")
    func template() {
        let settings = AdServerSettings(
            urlTemplate:
                "http://ads.test/vast?d=[BREAKDURATION]&r=[REMAININGDURATION]&n=[PODSIZE]&v=[VIEWERID]&b=[BREAKID]&s=[SCOPE]&cb=[CACHEBUSTING]"
        )
        let url = settings.url(
            breakDuration: MediaTime(milliseconds: 45_500),
            startOffset: MediaTime(seconds: 5),
            viewer: "a b&c",
            breakID: "mid",
            scope: "vod-demo",
            cacheBuster: "12345678"
        )
        #expect(url == "http://ads.test/vast?d=45.5&r=40.5&n=4&v=a%20b%26c&b=mid&s=vod-demo&cb=12345678")
        let late = settings.url(
            breakDuration: MediaTime(seconds: 30),
            startOffset: MediaTime(seconds: 1e9),
            viewer: "",
            breakID: "x",
            scope: "live-c",
            cacheBuster: "1"
        )
        #expect(late.contains("r=0&n=2&v=&"))
    }
}
