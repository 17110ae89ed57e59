import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntermissionServer
import IntermissionTestSupport
import Testing

/// VAST tracking as the IAB defines it, through the server over loopback: `Linear@skipoffset`
/// becomes the list's `SKIP-CONTROL`, every VAST event an ad server gives (progress at its
/// offsets, creativeView, skip, pause, resume, mute, unmute, error) is signaled with a signed
/// `/v1/track` URL and forwarded to the ad server's URLs with its macros filled.
@Suite("VAST tracking events over loopback", .realTime)
struct VASTTrackingTests {
    static let key = Array("vast-tracking-test-key-0123456789".utf8)

    /// The ad server's `skippable.xml` (one 20 s ad, `skipoffset="25%"`) for the demo's 60 s break,
    /// beacons on.
    func configuration(base: String) throws -> ServerConfiguration {
        var configuration = try AdServerTests().configuration(
            base: base,
            template: "/vast/skippable.xml",
            store: InMemoryAdStore()
        )
        configuration.tracking = TrackingConfiguration(key: Self.key)
        configuration.tracking.beacons = true
        configuration.tracking.forwardRetryDelay = .milliseconds(50)
        return configuration
    }

    /// The path (from `/v1/track/`) of a signaled URL.
    func path(_ url: String) throws -> String {
        String(url[try #require(url.range(of: "/v1/track/")).lowerBound...])
    }

    /// The forwards of `name` the ad server saw, once `count` of them arrived.
    func forwards(_ log: AdServerLog, _ name: String, count: Int = 1) async -> [String] {
        let prefix = "beacon skippable-" + name
        let hits = await log.wait { $0.filter { $0.hasPrefix(prefix) }.count >= count }
        return hits.filter { $0.hasPrefix(prefix) }
    }

    /// `skipoffset="25%"` of a 20 s ad is `SKIP-CONTROL` `OFFSET` 5; the slot signals every event
    /// the ad server tracks, progress at 3 s and 10 s (`00:00:03` and `50%`; the offset `soon` is
    /// dropped), and an error URL that carries `[ERRORCODE]` to be filled by the player.
    @Test(.timeLimit(.minutes(2)))
    func skipOffsetAndEventsAreSignaled() async throws {
        try await withAdServer { base, _ in
            try await withServer(try self.configuration(base: base)) { client in
                let list = try await AdServerTests().list(client, viewer: "skip-viewer")
                #expect(list.assets.count == 1)
                #expect(list.assets.first?.duration == 20)
                #expect(list.skipControl?.offset == MediaTime(seconds: 5))
                #expect(list.skipControl?.duration == nil)
                let slot = try #require(try list.assets.first?.creativeSignaling()?.payload.first)
                let types = slot.tracking?.map(\.type) ?? []
                for type in [
                    "impression", "creativeView", "start", "skip", "pause", "resume", "mute", "unmute", "error",
                ] {
                    #expect(types.filter { $0 == type }.count == 1, "\(type)")
                }
                let progress = slot.tracking?.filter { $0.type == "progress" } ?? []
                #expect(progress.map { $0.offset?.doubleValue } == [3, 10])
                #expect(progress.map { $0.urls.first?.hasSuffix("/progress?offset=3000") } == [true, false])
                #expect(progress.last?.urls.first?.hasSuffix("/progress?offset=10000") == true)
                let creativeView = slot.tracking?.first { $0.type == "creativeView" }
                #expect(creativeView?.offset?.doubleValue == 0)
                let error = try #require(slot.tracking?.first { $0.type == "error" }?.urls.first)
                #expect(error.hasSuffix("/error?errorcode=[ERRORCODE]"))
            }
        }
    }

    /// Each beacon reaches the ad server's own URL for it, with `[ERRORCODE]`, `[ADPLAYHEAD]` and
    /// `[UNIVERSALADID]` (`ad-id.org ABCD1234000H`, percent-encoded) filled; `[CONTENTPLAYHEAD]`,
    /// which the server does not know, is `-1`.
    ///
    /// A progress beacon goes to its offset's URL only.
    @Test(.timeLimit(.minutes(2)))
    func eventsAreForwardedWithTheirMacros() async throws {
        try await withAdServer { base, log in
            try await withServer(try self.configuration(base: base)) { client in
                let list = try await AdServerTests().list(client, viewer: "forward-viewer")
                let slot = try #require(try list.assets.first?.creativeSignaling()?.payload.first)
                func url(_ type: String) throws -> String {
                    try self.path(try #require(slot.tracking?.first { $0.type == type }?.urls.first))
                }
                #expect(try await client.get(try url("impression")).status == .noContent)
                #expect(
                    await self.forwards(log, "impression")
                        == ["beacon skippable-impression?uaid=ad-id.org%20ABCD1234000H&cp=-1"]
                )
                let error = try url("error").replacing("[ERRORCODE]", with: "405")
                #expect(try await client.get(error).status == .noContent)
                #expect(
                    await self.forwards(log, "error") == [
                        "beacon skippable-error?code=405&uaid=ad-id.org%20ABCD1234000H"
                    ]
                )
                let progress = slot.tracking?.filter { $0.type == "progress" }.compactMap(\.urls.first) ?? []
                #expect(progress.count == 2)
                #expect(try await client.get(try self.path(progress[1])).status == .noContent)
                #expect(
                    await self.forwards(log, "progress") == ["beacon skippable-progress-half?at=00%3A00%3A10.000"]
                )
                #expect(try await client.get(try self.path(progress[0])).status == .noContent)
                let both = await self.forwards(log, "progress", count: 2)
                #expect(both.last == "beacon skippable-progress-3?at=00%3A00%3A03.000")
                for event in ["creativeView", "skip", "pause", "resume", "mute", "unmute"] {
                    #expect(try await client.get(try url(event)).status == .noContent)
                    #expect(await self.forwards(log, event) == ["beacon skippable-\(event)"], "\(event)")
                }
                // A second progress beacon at one offset is a duplicate: counted, not forwarded.
                let again = try await client.get(try self.path(progress[0]))
                #expect(again.headers[HTTPField.Name("X-Intermission-Duplicates")!] == "1")
                let report = try await client.admin(.get, "/v1/admin/reports/breaks/vod-demo/pod")
                let lines = report.json?["lines"]?.arrayValue ?? []
                let progressLine = lines.first { $0["event"]?.stringValue == "progress" }
                #expect(progressLine?["beacons"]?.intValue == 2)
                #expect(progressLine?["duplicates"]?.intValue == 1)
                #expect(lines.filter { $0["event"]?.stringValue == "progress" }.count == 1)
                #expect(lines.first { $0["event"]?.stringValue == "error" }?["beacons"]?.intValue == 1)
                #expect(await self.forwards(log, "progress").count == 2)
                // The player's error is counted once, with its code.
                let metrics = try await client.get("/metrics").text
                let counted = metrics.split(separator: "\n").filter { $0.hasPrefix("intermission_vast_errors_total{") }
                #expect(counted.count == 1, "\(counted)")
                #expect(counted.first.map { $0.contains("source=\"player\"") && $0.contains("code=\"405\"") } == true)
                #expect(counted.first?.hasSuffix(" 1") == true)
            }
        }
    }

    /// An ad the server drops while deciding (no HLS media file: 403) has its Error URL fired by
    /// the server and is counted as a decision error.
    @Test(.timeLimit(.minutes(2)))
    func decisionErrorsAreCounted() async throws {
        try await withAdServer { base, log in
            let configuration = try AdServerTests().configuration(
                base: base,
                template: "/vast/no-hls.xml",
                store: InMemoryAdStore()
            )
            try await withServer(configuration) { client in
                #expect(try await AdServerTests().list(client).assets.isEmpty)
                let hits = await log.wait { $0.contains("beacon mp4-error?code=403") }
                #expect(hits.filter { $0.hasPrefix("beacon mp4-") } == ["beacon mp4-error?code=403"])
                let metrics = try await client.get("/metrics").text
                let counted = metrics.split(separator: "\n").filter { $0.hasPrefix("intermission_vast_errors_total{") }
                #expect(counted.count == 1, "\(counted)")
                #expect(counted.first.map { $0.contains("source=\"decision\"") && $0.contains("code=\"403\"") } == true)
            }
        }
    }

    /// `/v1/track/{token}/error` needs one VAST error code from 100 to 999 (400 otherwise, nothing
    /// recorded or forwarded); a progress beacon needs one of the slot's own offsets (400 for a
    /// value that is not milliseconds, 404 for an offset the slot does not have).
    @Test(.timeLimit(.minutes(2)))
    func errorCodesAndOffsetsAreChecked() async throws {
        try await withAdServer { base, log in
            try await withServer(try self.configuration(base: base)) { client in
                let list = try await AdServerTests().list(client, viewer: "hostile-viewer")
                let slot = try #require(try list.assets.first?.creativeSignaling()?.payload.first)
                let error = try self.path(try #require(slot.tracking?.first { $0.type == "error" }?.urls.first))
                let bare = String(error.prefix { $0 != "?" })
                for bad in [
                    bare, bare + "?errorcode=99", bare + "?errorcode=1000", bare + "?errorcode=4O5",
                    bare + "?errorcode=-401", bare + "?errorcode=401&errorcode=402",
                    bare + "?errorcode=%5BERRORCODE%5D",
                    bare + "?errorcode=" + String(repeating: "4", count: 40),
                    bare + "?errorcode=nan", bare + "?errorcode=1e308", bare + "?errorcode=%00",
                    bare + "?errorcode=401%00", bare + "?errorcode=%2e%2e", bare + "?errorcode=9223372036854775807",
                ] {
                    let answer = try await client.get(bad)
                    #expect(answer.status == .badRequest, "\(bad.suffix(30))")
                    #expect(answer.json?["error"]?["code"]?.stringValue == "badErrorCode")
                }
                // The upper-case spelling of the macro's name is read too.
                #expect(try await client.get(bare + "?ERRORCODE=401").status == .noContent)
                #expect(
                    await self.forwards(log, "error") == [
                        "beacon skippable-error?code=401&uaid=ad-id.org%20ABCD1234000H"
                    ]
                )
                let progress = try self.path(
                    try #require(slot.tracking?.first { $0.type == "progress" }?.urls.first)
                )
                let progressBare = String(progress.prefix { $0 != "?" })
                for bad in [
                    progressBare, progressBare + "?offset=3.5", progressBare + "?offset=-3000",
                    progressBare + "?offset=nan", progressBare + "?offset=1e308", progressBare + "?offset=%00",
                    progressBare + "?offset=%2e%2e",
                ] {
                    let answer = try await client.get(bad)
                    #expect(answer.status == .badRequest, "\(bad.suffix(20))")
                    #expect(answer.json?["error"]?["code"]?.stringValue == "badOffset")
                }
                #expect(try await client.get(progressBare + "?offset=4000").status == .notFound)
                // A forged token is refused on the error route like on the others.
                #expect(try await client.get("/v1/track/eyJ4IjoxfQ.AAAA/error?errorcode=401").status == .forbidden)
                let report = try await client.admin(.get, "/v1/admin/reports/breaks/vod-demo/pod")
                let lines = report.json?["lines"]?.arrayValue ?? []
                #expect(lines.map { $0["event"]?.stringValue } == ["error"])
            }
        }
    }
}
