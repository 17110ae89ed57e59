import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntermissionServer
import IntermissionStore
import IntermissionTestSupport
import NIOCore
import Testing

private let trackingKey = Array("tracking-test-key-0123456789abcdef".utf8)

/// The demo with beacons on, signed with `trackingKey`, in `database`.
private func trackingConfiguration(database: String = "memory:") throws -> ServerConfiguration {
    var configuration = try demoConfiguration(clock: ManualWallClock(t0), database: database)
    configuration.tracking = TrackingConfiguration(key: trackingKey)
    configuration.tracking.beacons = true
    configuration.tracking.forwardRetryDelay = .milliseconds(50)
    return configuration
}

/// The path (from `/v1/track/`) of the `event` URL of each entry of an asset list.
private func beaconPaths(_ response: TestResponse, event: TrackingEvent) throws -> [String] {
    let list = try AssetList.decode(response.bytes)
    return try list.assets.map { asset in
        let signaling = try #require(try asset.creativeSignaling())
        let url = try #require(signaling.payload.first?.tracking?.first { $0.type == event.rawValue }?.urls.first)
        let start = try #require(url.range(of: "/v1/track/"))
        return String(url[start.lowerBound...])
    }
}

private let midroll = "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1"

/// The JSON of an admin report.
private func report(_ client: any TestClientProtocol, _ path: String) async throws -> JSONValue {
    let answer = try await client.admin(.get, "/v1/admin/reports/" + path)
    #expect(answer.status == .ok, "\(answer.text)")
    return try #require(answer.json)
}

private func count(_ report: JSONValue, creative: String, event: TrackingEvent, plan: String = "A") -> (Int, Int)? {
    for line in report["lines"]?.arrayValue ?? []
    where line["creativeID"]?.stringValue == creative && line["event"]?.stringValue == event.rawValue
        && line["plan"]?.stringValue == plan
    {
        return (line["beacons"]?.intValue ?? -1, line["duplicates"]?.intValue ?? -1)
    }
    return nil
}

@Suite(.realTime) struct TrackingTests {
    @Test(.timeLimit(.minutes(2)), arguments: [false, true])
    func eachBeaconIsStoredOnceUnderConcurrentDuplicates(sqlite: Bool) async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let configuration = try trackingConfiguration(database: sqlite ? folder + "/t.sqlite" : "memory:")
        try await withServer(configuration) { client in
            let list = try await client.get(midroll + "&_HLS_primary_id=viewer-1")
            #expect(list.status == .ok)
            let decoded = try AssetList.decode(list.bytes)
            let slot = try #require(try decoded.assets.first?.creativeSignaling()?.payload.first)
            #expect(slot.identifiers?.first?.value == "red")
            // Every event but progress, which only an ad server's offsets give.
            #expect(slot.tracking?.map(\.type) == TrackingEvent.allCases.filter { $0 != .progress }.map(\.rawValue))
            let error = try #require(slot.tracking?.first { $0.type == "error" }?.urls.first)
            #expect(error.hasSuffix("/error?errorcode=[ERRORCODE]"))
            let impressions = try beaconPaths(list, event: .impression)
            #expect(impressions.count == 2)
            let answers = try await withThrowingTaskGroup(of: (HTTPResponse.Status, String?).self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        let answer = try await client.get(impressions[0])
                        return (answer.status, answer.headers[HTTPField.Name("X-Intermission-Duplicates")!])
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.allSatisfy { $0.0 == .noContent })
            // Exactly one request stored the beacon; the others were counted as its duplicates.
            #expect(answers.filter { $0.1 == "0" }.count == 1)
            #expect(Set(answers.compactMap { $0.1 }) == Set((0..<16).map(String.init)))
            let byBreak = try await report(client, "breaks/vod-demo/midroll-1")
            #expect(count(byBreak, creative: "red", event: .impression)! == (1, 15))
            #expect(count(byBreak, creative: "green", event: .impression) == nil)
            #expect(byBreak["beacons"]?.intValue == 1 && byBreak["duplicates"]?.intValue == 15)
        }
        if sqlite {
            // Acknowledged beacons are in the file: a second server on it counts the same.
            try await withServer(try trackingConfiguration(database: folder + "/t.sqlite")) { client in
                let byBreak = try await report(client, "breaks/vod-demo/midroll-1")
                #expect(count(byBreak, creative: "red", event: .impression)! == (1, 15))
            }
        }
    }

    @Test(.timeLimit(.minutes(2))) func reportsCountPerBreakAndPerCreative() async throws {
        try await withServer(try trackingConfiguration()) { client in
            for viewer in ["a", "b"] {
                let list = try await client.get(midroll + "&_HLS_primary_id=\(viewer)")
                for path in try beaconPaths(list, event: .impression) + beaconPaths(list, event: .start) {
                    #expect(try await client.get(path).status == .noContent)
                }
                let complete = try beaconPaths(list, event: .complete)[0]
                #expect(try await client.get(complete).status == .noContent)
            }
            let other = try await client.get(
                "/v1/asset-lists/vod-demo/midroll-2.json?_HLS_interstitial_id=midroll-2&_HLS_primary_id=c"
            )
            for path in try beaconPaths(other, event: .impression) {
                #expect(try await client.get(path).status == .noContent)
            }
            let byBreak = try await report(client, "breaks/vod-demo/midroll-1")
            #expect(count(byBreak, creative: "red", event: .impression)! == (2, 0))
            #expect(count(byBreak, creative: "green", event: .start)! == (2, 0))
            #expect(count(byBreak, creative: "red", event: .complete)! == (2, 0))
            #expect(count(byBreak, creative: "green", event: .complete) == nil)
            #expect(byBreak["beacons"]?.intValue == 10)
            let red = try await report(client, "creatives/red")
            // Two viewers in midroll-1 and one in midroll-2.
            #expect(count(red, creative: "red", event: .impression)! == (3, 0))
            let unknown = try await client.admin(.get, "/v1/admin/reports/creatives/red", token: "wrong")
            #expect(unknown.status == .unauthorized)
        }
    }

    @Test(.timeLimit(.minutes(2))) func beaconsAreForwardedWithTheDeviceHeadersAndRetriedAfterA500() async throws {
        let adServer = try #require(
            await PageServer(
                handler: """
                    cls = type(self)
                    if not hasattr(cls, "log"):
                        cls.log = []
                    if self.path == "/log":
                        body = "\\n".join(cls.log).encode()
                        self.send_response(200)
                    else:
                        cls.log.append(self.path + " " + str(self.headers.get("X-Device-IP")) + " " + str(self.headers.get("X-Device-User-Agent")))
                        first = sum(1 for line in cls.log if line.startswith(self.path + " ")) == 1
                        body = b""
                        self.send_response(500 if first else 204)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    """
            )
        )
        defer { adServer.stop() }
        var configuration = try trackingConfiguration()
        for k in configuration.adInsertion.inventory.indices {
            let id = configuration.adInsertion.inventory[k].id
            configuration.adInsertion.inventory[k].tracking = [
                .impression: ["http://127.0.0.1:\(adServer.port)/imp/\(id)"]
            ]
        }
        try await withServer(configuration) { client in
            let list = try await client.get(midroll + "&_HLS_primary_id=forward")
            let path = try beaconPaths(list, event: .impression)[0]
            let headers: HTTPFields = [
                HTTPField.Name("X-Device-IP")!: "203.0.113.7", HTTPField.Name("X-Device-User-Agent")!: "TestTV/1.0",
            ]
            #expect(try await client.get(path, headers: headers).status == .noContent)
            // A duplicate is not forwarded again; an event without URLs is recorded, not forwarded.
            #expect(try await client.get(path, headers: headers).status == .noContent)
            #expect(try await client.get(try beaconPaths(list, event: .start)[0]).status == .noContent)
            var log: [String] = []
            try await waitUntil(within: .seconds(30), checkingEvery: .milliseconds(100)) {
                let answer = try await rawExchange(
                    port: adServer.port,
                    "GET /log HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                )
                log = String(decoding: answer.body, as: UTF8.self).split(separator: "\n").map(String.init)
                return log.count >= 2
            }
            #expect(log == ["/imp/red 203.0.113.7 TestTV/1.0", "/imp/red 203.0.113.7 TestTV/1.0"])
            let byBreak = try await report(client, "breaks/vod-demo/midroll-1")
            #expect(byBreak["forwarding"]?["delivered"]?.intValue == 1)
            #expect(byBreak["forwarding"]?["retried"]?.intValue == 1)
        }
    }

    @Test(.timeLimit(.minutes(2))) func forgedEditedAndHostileBeaconURLsAreRefused() async throws {
        try await withServer(try trackingConfiguration()) { client in
            let list = try await client.get(midroll + "&_HLS_primary_id=victim")
            let path = try beaconPaths(list, event: .impression)[0]
            let token = path.split(separator: "/")[2]
            let parts = token.split(separator: ".")
            // The payload of another viewer with the victim's signature; a signature from another key.
            var edited = Array(parts[0])
            edited[3] = edited[3] == "A" ? "B" : "A"
            let otherKey = "eyJ4IjoxfQ." + String(repeating: "A", count: 43)
            for bad in [String(edited) + "." + parts[1], otherKey, String(parts[0]), "9223372036854775807"] {
                let answer = try await client.get("/v1/track/\(bad)/impression")
                #expect(answer.status == .forbidden, "\(bad)")
                #expect(answer.json?["error"]?["code"]?.stringValue == "badBeaconToken")
            }
            #expect(try await client.get("/v1/track/\(token)/rewind").status == .notFound)
            let hostile = [
                "/v1/track/%00/impression", "/v1/track/\(token)/%00", "/v1/track/%2e%2e/impression",
                "/v1/track/\(token)/%2e%2e", "/v1/track/-9223372036854775808/start",
                "/v1/admin/reports/breaks/vod-demo/%00", "/v1/admin/reports/creatives/%2e%2e",
            ]
            for target in hostile {
                let answer = try await client.admin(.get, target)
                #expect((400..<500).contains(answer.status.code), "\(target.prefix(60)): \(answer.status)")
            }
            let port = try #require(client.port)
            let long = [
                "/v1/track/" + String(repeating: "a", count: 100_000) + "/impression",
                "/v1/admin/reports/breaks/x/" + String(repeating: "b", count: 100_000),
            ]
            for target in long {
                #expect(try await statusOnFreshConnection(port: port, target, token: "secret") == 414)
            }
            // Nothing was stored by any of them.
            let byBreak = try await report(client, "breaks/vod-demo/midroll-1")
            #expect(byBreak["beacons"]?.intValue == 0)
        }
    }

    @Test(.timeLimit(.minutes(2))) func plansChangeTheAssetLists() async throws {
        var configuration = try trackingConfiguration()
        configuration.tracking.beacons = false
        try await withServer(configuration) { client in
            let a = try await client.get(midroll + "&_HLS_primary_id=pa&plan=" + PlanTokens.mint(.a, key: trackingKey))
            let listA = try AssetList.decode(a.bytes)
            #expect(listA.assets.count == 2 && listA.skipControl == nil)
            let b = try await client.get(midroll + "&_HLS_primary_id=pb&plan=" + PlanTokens.mint(.b, key: trackingKey))
            let listB = try AssetList.decode(b.bytes)
            #expect(b.status == .ok && listB.assets.isEmpty)
            let c = try await client.get(midroll + "&_HLS_primary_id=pc&plan=" + PlanTokens.mint(.c, key: trackingKey))
            let listC = try AssetList.decode(c.bytes)
            #expect(listC.assets.count == 2)
            #expect(listC.skipControl?.offset == listC.assets[0].duration)
            #expect(listC.skipControl?.offset == MediaTime(seconds: 10))
            // Without a token: plan A.
            let none = try AssetList.decode(try await client.get(midroll + "&_HLS_primary_id=pn").bytes)
            #expect(none.assets.count == 2 && none.skipControl == nil)
            let token = PlanTokens.mint(.a, key: trackingKey)
            let forged = [
                "B" + token.dropFirst(),
                PlanTokens.mint(.b, key: Array("another key".utf8)),
                PlanTokens.mint(.b, key: trackingKey, expires: 1),
                "B-0", "", "%00", "%2e%2e",
            ]
            for bad in forged {
                let answer = try await client.get(midroll + "&_HLS_primary_id=pf&plan=" + bad)
                #expect(answer.status == .forbidden, "\(bad.prefix(40)): \(answer.status)")
            }
            let long = midroll + "&_HLS_primary_id=pf&plan=" + String(repeating: "x", count: 100_000)
            #expect(try await statusOnFreshConnection(port: try #require(client.port), long) == 414)
        }
        configuration.tracking.requirePlan = true
        try await withServer(configuration) { client in
            #expect(try await client.get(midroll + "&_HLS_primary_id=r").status == .forbidden)
            let b = try await client.get(midroll + "&_HLS_primary_id=r&plan=" + PlanTokens.mint(.b, key: trackingKey))
            #expect(b.status == .ok)
        }
    }

    @Test(.timeLimit(.minutes(2))) func planCBeaconsCarryThePlanIntoTheReports() async throws {
        try await withServer(try trackingConfiguration()) { client in
            let c = try await client.get(midroll + "&_HLS_primary_id=cc&plan=" + PlanTokens.mint(.c, key: trackingKey))
            for path in try beaconPaths(c, event: .impression) {
                #expect(try await client.get(path).status == .noContent)
            }
            let byBreak = try await report(client, "breaks/vod-demo/midroll-1")
            #expect(count(byBreak, creative: "red", event: .impression, plan: "C")! == (1, 0))
            #expect(count(byBreak, creative: "red", event: .impression, plan: "A") == nil)
        }
    }

    @Test(.timeLimit(.minutes(2))) func thePlanTokenTravelsFromTheMultivariantURLToTheAssetLists() async throws {
        var configuration = try trackingConfiguration()
        configuration.tracking.planBRemovesInterstitials = true
        try await withServer(configuration) { client in
            let c = PlanTokens.mint(.c, key: trackingKey)
            let main = try await client.get("/vod/demo/main.m3u8?plan=" + c)
            #expect(main.status == .ok && main.headers[.cacheControl] == "private, no-store")
            let variants = try MultivariantPlaylist(parsing: main.text).variants.map(\.uri)
            #expect(variants == ["prog.m3u8?plan=" + c])
            let media = try await client.get("/vod/demo/" + variants[0])
            #expect(media.status == .ok)
            #expect(errors(media.bytes).isEmpty, "\(errors(media.bytes))")
            let midrollLine = try #require(dateRangeLines(media.text).first { $0.contains("ID=\"midroll-1\"") })
            let marker = "X-ASSET-LIST=\""
            let start = try #require(midrollLine.range(of: marker))
            let uri = String(midrollLine[start.upperBound...].prefix { $0 != "\"" })
            #expect(uri.hasSuffix("&plan=" + c))
            // The asset list the player asks for is plan C's.
            let list = try AssetList.decode(try await client.get(uri + "&_HLS_primary_id=travel").bytes)
            #expect(list.assets.count == 2 && list.skipControl?.offset == MediaTime(seconds: 10))
            // Plan B (configured so): no interstitial tags at all; plan A keeps them.
            let b = PlanTokens.mint(.b, key: trackingKey)
            let mediaB = try await client.get("/vod/demo/prog.m3u8?plan=" + b)
            #expect(mediaB.status == .ok && dateRangeLines(mediaB.text).isEmpty)
            #expect(mediaB.text.contains("#EXTINF"))
            let mediaA = try await client.get("/vod/demo/prog.m3u8?plan=" + PlanTokens.mint(.a, key: trackingKey))
            #expect(dateRangeLines(mediaA.text).count == 4)
            // The shared copy without a token is not the plan's.
            #expect(dateRangeLines(try await client.get("/vod/demo/prog.m3u8").text).count == 4)
            let long = "/vod/demo/main.m3u8?plan=" + String(repeating: "z", count: 100_000)
            #expect(try await statusOnFreshConnection(port: try #require(client.port), long) == 414)
            for bad in ["B" + c.dropFirst(), "%00", "%2e%2e"] {
                let answer = try await client.get("/vod/demo/main.m3u8?plan=" + bad)
                #expect(
                    answer.status == .forbidden || answer.status.code == 414 || answer.status.code == 431,
                    "\(answer.status)"
                )
            }
            let forged = try await client.get("/vod/demo/main.m3u8?plan=" + "B" + c.dropFirst())
            #expect(forged.status == .forbidden && forged.json?["error"] != nil)
        }
    }

    @Test func theConfigurationFileSetsTrackingAndCreativeBeaconURLs() throws {
        let yaml = """
            tracking:
              key: "0123456789abcdef0123"
              beacons: true
              requirePlan: true
              planBRemovesInterstitials: true
              forwardAttempts: 3
              forwardRetryDelay: 0.25
              forwardQueue: 50
            inventory:
              - id: red
                uri: /media/demo/ad-red/main.m3u8
                duration: 10
                tracking:
                  impression: ["https://ads.example.com/i?c=red", "http://b.example/i"]
                  complete: ["https://ads.example.com/c"]
            """
        let configuration = try ConfigurationFile.parse(yaml).apply(to: ServerConfiguration(), relativeTo: "/")
        #expect(configuration.tracking.key == Array("0123456789abcdef0123".utf8))
        #expect(configuration.tracking.beacons && configuration.tracking.requirePlan)
        #expect(configuration.tracking.planBRemovesInterstitials)
        #expect(configuration.tracking.forwardAttempts == 3 && configuration.tracking.forwardQueueCapacity == 50)
        #expect(configuration.tracking.forwardRetryDelay == .milliseconds(250))
        #expect(
            configuration.adInsertion.inventory.first?.tracking
                == [
                    .impression: ["https://ads.example.com/i?c=red", "http://b.example/i"],
                    .complete: ["https://ads.example.com/c"],
                ]
        )
        let bad = [
            "tracking:\n  key: short\n",
            "tracking:\n  forwardAttempts: 9223372036854775807\n",
            "tracking:\n  forwardRetryDelay: 1e308\n",
            "tracking:\n  colour: red\n",
            "inventory:\n  - {id: r, uri: /a.m3u8, duration: 1, tracking: {rewind: [\"https://a/b\"]}}\n",
            "inventory:\n  - {id: r, uri: /a.m3u8, duration: 1, tracking: {progress: [\"https://a/b\"]}}\n",
            "inventory:\n  - {id: r, uri: /a.m3u8, duration: 1, tracking: {start: [\"/local\"]}}\n",
            "inventory:\n  - {id: r, uri: /a.m3u8, duration: 1, tracking: {start: [\"https://a/\u{0}\"]}}\n",
        ]
        for text in bad {
            #expect(throws: ConfigurationError.self, "\(text)") {
                try ConfigurationFile.parse(text).apply(to: ServerConfiguration(), relativeTo: "/")
            }
        }
    }
}

/// Sends one request for `target` on a connection of its own and returns the status: a target too
/// long for the server (414) closes its connection, which must not be the test client's.
func statusOnFreshConnection(port: Int, _ target: String, token: String? = nil) async throws -> Int {
    let authorization = token.map { "Authorization: Bearer \($0)\r\n" } ?? ""
    let answer = try await rawExchange(
        port: port,
        "GET \(target) HTTP/1.1\r\nHost: x\r\n\(authorization)Connection: close\r\n\r\n"
    )
    return answer.status
}
