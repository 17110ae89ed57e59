import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import IntermissionServer
import IntermissionStore
import IntermissionTestSupport
import Logging
import Testing

/// `vod[].vmap` in the configuration file: a VMAP document on a loopback ad server places the
/// asset's breaks at start; a bad one stops the start with an error naming the URL.
@Suite("VMAP documents place VOD breaks", .realTime)
struct VMAPConfigurationTests {
    /// The configuration file text: the demo media mounted, one VOD asset `movie` on the demo
    /// primary (60 s) with the VMAP at `url` and, when given, breaks of its own.
    static func yaml(vmapURL url: String, ownBreaks: String = "") throws -> ServerConfiguration {
        let folder = try #require(ServerConfiguration.demoMediaFolder)
        let text = """
            server:
              database: "memory:"
              port: 0
            media:
              demo: \(folder)
            inventory:
              - {id: red, uri: /media/demo/ad-red/main.m3u8, duration: 10}
            vod:
              - id: movie
                origin: /media/demo/primary/
            \(ownBreaks)
                vmap:
                  url: \(url)
                  breakDuration: 10
                  timeout: 5
            """
        var configuration = try ConfigurationFile.parse(text).apply(to: ServerConfiguration(), relativeTo: "/")
        configuration.hostname = "127.0.0.1"
        configuration.clock = ManualWallClock(t0)
        configuration.logLevel = .error
        return configuration
    }

    @Test(.timeLimit(.minutes(2)))
    func theVMAPBreaksBecomeTheAssetsBreaks() async throws {
        try await withAdServer { base, log in
            let configuration = try Self.yaml(vmapURL: base + "/vast/vmap.xml")
            #expect(configuration.vmapSources["movie"]?.url == base + "/vast/vmap.xml")
            #expect(configuration.adInsertion.assets[0].breaks.isEmpty, "placed at start, not when parsed")
            try await withServer(configuration) { client in
                let media = try await client.get("/vod/movie/prog.m3u8")
                #expect(media.status == .ok, "\(media.text)")
                let lines = dateRangeLines(media.text)
                // vmap.xml on a 60 s primary: start, 50% and end; 00:10:00 is past the end, `#2`
                // is an ordinal and `1e308` no offset.
                let ids = lines.compactMap { line -> String? in
                    guard let start = line.range(of: "ID=\"") else { return nil }
                    return String(line[start.upperBound...].prefix { $0 != "\"" })
                }
                #expect(ids.sorted() == ["half", "postroll", "preroll"], "\(media.text)")
                let pre = try #require(lines.first { $0.contains("ID=\"preroll\"") })
                #expect(pre.contains("CUE=\"PRE\""), "\(pre)")
                let post = try #require(lines.first { $0.contains("ID=\"postroll\"") })
                #expect(post.contains("CUE=\"POST\""), "\(post)")
                let half = try #require(lines.first { $0.contains("ID=\"half\"") })
                #expect(!half.contains("CUE="), "\(half)")
                // 30 s into a primary dated from the default origin date, 2025-01-01T00:00:00Z.
                #expect(half.contains("START-DATE=\"2025-01-01T00:00:30"), "\(half)")
                #expect(half.contains("DURATION=10"), "\(half)")
                // The placed break is decided like a configured one.
                let list = try await client.get("/v1/asset-lists/vod-movie/half.json?_HLS_primary_id=v1")
                #expect(list.status == .ok, "\(list.text)")
                let assets = try AssetList.decode(list.bytes).assets
                #expect(assets.map(\.uri).contains { $0.contains("/media/demo/ad-red/") }, "\(list.text)")
            }
            // Fetched once, at start.
            #expect(await log.hits.filter { $0 == "asked vmap.xml" }.count == 1)
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: ["malformed.xml", "inline.xml", "missing.xml"])
    func aBadVMAPStopsTheStartNamingItsURL(name: String) async throws {
        try await withAdServer { base, _ in
            let url = base + "/vast/" + name
            let configuration = try Self.yaml(vmapURL: url)
            do {
                try await withServer(configuration) { _ in }
                Issue.record("\(name) was accepted")
            } catch let error as ConfigurationError {
                #expect(error.message.contains(url), "\(error.message)")
                #expect(error.message.contains("vod 'movie'"), "\(error.message)")
            }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aVMAPBreakIDTheAssetHasAlreadyIsRefused() async throws {
        try await withAdServer { base, _ in
            let own = """
                    breaks:
                      - {id: half, at: 12, duration: 5}
                """
            let configuration = try Self.yaml(vmapURL: base + "/vast/vmap.xml", ownBreaks: own)
            do {
                try await withServer(configuration) { _ in }
                Issue.record("a duplicate break ID was accepted")
            } catch let error as ConfigurationError {
                #expect(error.message.contains("'half'"), "\(error.message)")
            }
        }
    }

    @Test func vmapKeysAreChecked() throws {
        for (yaml, key) in [
            ("url: ftp://x/vmap.xml", "vod[0].vmap.url"),
            ("url: http://x/v.xml\n      breakDuration: 0", "vod[0].vmap.breakDuration"),
            ("url: http://x/v.xml\n      timeout: .nan", "vod[0].vmap.timeout"),
            ("url: http://x/v.xml\n      timeout: 1e308", "vod[0].vmap.timeout"),
            ("url: http://x/v.xml\n      every: 3", "vod[0].vmap.every"),
        ] {
            let text = "vod:\n  - id: movie\n    origin: /media/demo/primary/\n    vmap:\n      \(yaml)\n"
            do {
                _ = try ConfigurationFile.parse(text).apply(to: ServerConfiguration(), relativeTo: "/")
                Issue.record("accepted: \(yaml)")
            } catch let error as ConfigurationError {
                #expect(error.key == key, "\(yaml): \(error.message)")
            }
        }
    }
}
