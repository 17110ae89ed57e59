import AdInsertion
import HLSPlaylist
import IntermissionServer
import Testing

@Suite struct ConfigurationFileTests {
    @Test func readsEveryDocumentedSection() throws {
        let yaml = """
            server:
              port: 9000
              database: "memory:"
              publicBaseURL: https://ads.example.com
              adminToken: t
              logLevel: debug
            media:
              movies: ./media
            repeatWindow: 60
            inventory:
              - {id: red, uri: /media/movies/red/main.m3u8, duration: 10, value: 3}
            vod:
              - id: movie
                origin: /media/movies/movie/
                breaks:
                  - {id: preroll, cue: [PRE, ONCE], duration: 10}
                  - {id: mid1, at: 300, duration: 30}
                  - {id: postroll, cue: [POST], duration: 10}
            channels:
              - id: loop
                loop: /media/movies/movie/
                window: 6
                breaks: {every: 120, duration: 20, snap: [OUT, IN]}
              - id: news
                upstream: https://live.example.com/news/main.m3u8
                staleAfter: 20
            """
        let configuration = try ConfigurationFile.parse(yaml).apply(to: ServerConfiguration(), relativeTo: "/etc/intermission")
        #expect(configuration.port == 9000 && configuration.database == "memory:" && configuration.adminToken == "t")
        #expect(configuration.mounts["movies"] == "/etc/intermission/./media")
        #expect(configuration.adInsertion.policy.repeatWindow == 60)
        let asset = try #require(configuration.adInsertion.asset("movie"))
        #expect(asset.breaks.map(\.id) == ["preroll", "mid1", "postroll"])
        #expect(asset.breaks[0].position == .preRoll && asset.breaks[0].once)
        #expect(asset.breaks[1].position == .midRoll(300) && asset.breaks[1].resumeOffset == .zero)
        #expect(configuration.adInsertion.channel("loop")?.breakPlan?.snap == ["OUT", "IN"])
        #expect(configuration.adInsertion.channel("news")?.source == .upstream("https://live.example.com/news/main.m3u8"))
    }

    @Test func saysWhatIsWrong() {
        #expect(throws: ConfigurationError.self) {
            try ConfigurationFile.parse("vod:\n  - id: x\n").apply(to: ServerConfiguration(), relativeTo: "/")
        }
        do {
            _ = try ConfigurationFile.parse("vod:\n  - id: x\n    origin: /media/a/\n    breaks:\n      - {id: b, duration: 5}\n")
                .apply(to: ServerConfiguration(), relativeTo: "/")
            Issue.record("a break without a place was accepted")
        } catch {
            #expect("\(error)".contains("vod[0].breaks[0] needs 'at'"))
        }
        do {
            _ = try ConfigurationFile.parse("channels:\n  - id: c\n").apply(to: ServerConfiguration(), relativeTo: "/")
            Issue.record("a channel without a source was accepted")
        } catch {
            #expect("\(error)".contains("channels[0] needs exactly one of 'upstream'"))
        }
    }
}
