import AdInsertion
import HLSInterstitials
import HLSPlaylist
import HTTPFetch
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntermissionServer
import IntermissionStore
import IntermissionTestSupport
import Testing

/// Waits (short polls, up to 20 s) until `/metrics` has a line starting with `line`; whether it did.
private func waitForMetric(_ client: any TestClientProtocol, _ line: String) async throws -> Bool {
    try await waitUntil(within: .seconds(20), checkingEvery: .milliseconds(50)) {
        let text = try await client.get("/metrics").text
        return text.split(separator: "\n").contains(where: { $0.hasPrefix(line) })
    }
}

/// Waits (short polls, up to 20 s) until the forwarding counts of the break report satisfy
/// `done`; the last counts seen.
private func waitForForwarding(
    _ client: any TestClientProtocol,
    until done: @Sendable (JSONValue) -> Bool
) async throws -> JSONValue? {
    var last: JSONValue?
    try await waitUntil(within: .seconds(20), checkingEvery: .milliseconds(50)) {
        last = try await client.admin(.get, "/v1/admin/reports/breaks/vod-demo/pod").json?["forwarding"]
        return last.map(done) ?? false
    }
    return last
}

/// The `/v1/track/…` path of the impression beacon of an asset list's first entry.
private func impressionPath(_ list: AssetList) throws -> String {
    let signaling = try #require(try list.assets.first?.creativeSignaling())
    let url = try #require(signaling.payload.first?.tracking?.first { $0.type == "impression" }?.urls.first)
    return String(url[try #require(url.firstRange(of: "/v1/track/")).lowerBound...])
}

/// Issue 27: URLs that come from ad servers' documents (wrappers, redirects, error and tracking
/// URLs) never reach loopback, private or link-local addresses unless the operator allows them;
/// beacon forwards are capped per event and rate-limited per host; media files with credentials
/// never reach viewers.
@Suite("Outbound requests over loopback", .realTime)
struct OutboundTests {
    let ads = AdServerTests()

    /// The ad server answering `template` within 10 s, no inventory, with the configuration-file
    /// text `yaml` applied on top.
    func configuration(base: String, template: String, yaml: String = "") throws -> ServerConfiguration {
        let configuration = try self.ads.configuration(
            base: base,
            template: template,
            timeout: 10,
            store: InMemoryAdStore()
        )
        return yaml.isEmpty
            ? configuration : try ConfigurationFile.parse(yaml).apply(to: configuration, relativeTo: "/")
    }

    /// The ad server answering `many-beacons.xml` (40 impression URLs), beacons on, and the
    /// `tracking:` keys `tracking` adds (YAML lines).
    func beacons(base: String, tracking: String) throws -> ServerConfiguration {
        try self.configuration(
            base: base,
            template: "/vast/many-beacons.xml",
            yaml: "tracking:\n  key: outbound-tracking-key-0123456789\n  beacons: true\n" + tracking
        )
    }

    @Test(.timeLimit(.minutes(2)))
    func wrappersRedirectsAndErrorURLsToInnerAddressesAreRefused() async throws {
        try await withAdServer { base, log in
            let configuration = try self.configuration(base: base, template: "/vast/inner-wrappers.xml")
            try await withServer(configuration) { client in
                let list = try await self.ads.list(client)
                #expect(list.assets.isEmpty)
                // Eight wrappers (decimal, octal, hex, IPv4-mapped, localhost, 0.0.0.0, a redirect
                // off the ad server, the metadata address) and one error URL, refused and counted.
                #expect(try await waitForMetric(client, "intermission_outbound_refused_total{purpose=\"vast\"} 8"))
                #expect(try await waitForMetric(client, "intermission_outbound_refused_total{purpose=\"forward\"} 1"))
                // The wrappers' error URLs on the ad server itself are still fired, with 301.
                let names = ["decimal", "octal", "hex", "mapped", "name", "zero", "redirect", "metadata"]
                let expected = names.map { "beacon inner-\($0)-error?code=301" }
                let hits = await log.wait { hits in expected.allSatisfy { hits.contains($0) } }
                #expect(expected.allSatisfy { hits.contains($0) }, "\(hits)")
                #expect(hits.filter { $0.hasPrefix("asked via-") || $0.contains("inner-leak") }.isEmpty, "\(hits)")
                #expect(hits.count { $0 == "asked inner-wrappers.xml" } == 1)
            }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func theAllowListLetsAnOperatorReachAPrivateAdNetwork() async throws {
        try await withAdServer { base, log in
            let configuration = try self.configuration(
                base: base,
                template: "/vast/inner-wrappers.xml",
                yaml: "outbound:\n  allow: [\"127.0.0.0/8\", \"::1\"]\n"
            )
            try await withServer(configuration) { client in
                _ = try await self.ads.list(client)
                let reached = ["asked via-decimal", "asked via-octal", "asked via-hex", "asked via-redirect"]
                let hits = await log.wait { hits in reached.allSatisfy { hits.contains($0) } }
                #expect(reached.allSatisfy { hits.contains($0) }, "\(hits)")
            }
        }
    }

    /// 40 impression URLs in one ad: one beacon makes 16 forwards (the inventory's limit), the
    /// first 16 in document order.
    @Test(.timeLimit(.minutes(2)))
    func aBeaconIsForwardedToAtMost16URLsPerEvent() async throws {
        try await withAdServer { base, log in
            let configuration = try self.beacons(base: base, tracking: "")
            try await withServer(configuration) { client in
                let list = try await self.ads.list(client, viewer: "capped")
                #expect(try await client.get(try impressionPath(list)).status == .noContent)
                let counts = try await waitForForwarding(client) { $0["delivered"]?.intValue == 16 }
                #expect(counts?["delivered"]?.intValue == 16)
                let sent = await log.hits.filter { $0.hasPrefix("beacon many-imp-") }
                // Four workers send them, so in any order.
                #expect(sent.count == 16 && Set(sent) == Set((1...16).map { "beacon many-imp-\($0)" }))
            }
        }
    }

    /// Three viewers' impressions (48 forwards to one host) with a burst of 20 and a rate that adds
    /// no token within the test: 20 are sent, 28 dropped and counted, none queued.
    @Test(.timeLimit(.minutes(2)))
    func forwardsAreRateLimitedPerDestinationHost() async throws {
        try await withAdServer { base, log in
            let configuration = try self.beacons(
                base: base,
                tracking: "  forwardRatePerHost: 0.01\n  forwardBurstPerHost: 20\n"
            )
            try await withServer(configuration) { client in
                for viewer in ["r1", "r2", "r3"] {
                    let list = try await self.ads.list(client, viewer: viewer)
                    #expect(try await client.get(try impressionPath(list)).status == .noContent)
                }
                let counts = try await waitForForwarding(client) {
                    $0["delivered"]?.intValue == 20 && $0["rateLimited"]?.intValue == 28
                }
                #expect(counts?["delivered"]?.intValue == 20 && counts?["rateLimited"]?.intValue == 28)
                #expect(counts?["waiting"]?.intValue == 0)
                #expect(
                    try await waitForMetric(client, "intermission_forwards_dropped_total{reason=\"rateLimited\"} 28")
                )
                #expect(await log.hits.count { $0.hasPrefix("beacon many-imp-") } == 20)
            }
        }
    }

    /// The inventory's rule (no `user:password@` in a URI handed to viewers) holds for VAST media
    /// files: the file with credentials is passed over for one without, and an ad with only such
    /// files is not played (VAST error 403).
    @Test(.timeLimit(.minutes(2)))
    func mediaFilesWithCredentialsNeverReachViewers() async throws {
        try await withAdServer { base, log in
            let configuration = try self.configuration(base: base, template: "/vast/credentials.xml")
            try await withServer(configuration) { client in
                let list = try await self.ads.list(client)
                #expect(list.assets.map(\.uri) == ["\(base)/media/clean.m3u8"])
                let hits = await log.wait { $0.contains("beacon only-credentials-error?code=403") }
                #expect(hits.contains("beacon only-credentials-error?code=403"))
            }
        }
    }

    @Test func outboundAndRateKeysAreChecked() throws {
        let yaml = """
            outbound:
              allow: ["10.2.0.0/16", "fd00::/8", "192.168.1.5", "ads.internal", "Ads.Internal:8080", "[::1]:9000"]
              maxRedirects: 2
            tracking:
              forwardRatePerHost: 5
              forwardBurstPerHost: 10
            """
        let configuration = try ConfigurationFile.parse(yaml).apply(to: ServerConfiguration(), relativeTo: "/")
        #expect(
            configuration.outbound.allowedNetworks.map(\.description) == [
                "10.2.0.0/16", "fd00:0:0:0:0:0:0:0/8", "192.168.1.5/32",
            ]
        )
        #expect(configuration.outbound.allowedHosts == ["ads.internal", "ads.internal:8080", "[::1]:9000"])
        #expect(configuration.outbound.maximumRedirects == 2 && !configuration.outbound.allowsEveryDestination)
        #expect(configuration.tracking.forwardRatePerHost == 5 && configuration.tracking.forwardBurstPerHost == 10)
        for bad in [
            "outbound:\n  allow: [\"10.0.0.0/33\"]\n", "outbound:\n  allow: [\"user@host\"]\n",
            "outbound:\n  allow: [\"host:0\"]\n", "outbound:\n  allow: [\"ho st\"]\n",
            "outbound:\n  maxRedirects: 21\n", "outbound:\n  colour: red\n",
            "tracking:\n  forwardRatePerHost: 0\n", "tracking:\n  forwardRatePerHost: .nan\n",
            "tracking:\n  forwardBurstPerHost: 0\n", "tracking:\n  forwardBurstPerHost: 9223372036854775807\n",
        ] {
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try ConfigurationFile.parse(bad).apply(to: ServerConfiguration(), relativeTo: "/")
            }
        }
    }
}
