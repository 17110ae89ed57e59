import AsyncHTTPClient
import HTTPFetch
import IntermissionTestSupport
import Synchronization
import Testing

/// Issue 27: which addresses the outbound policy refuses, in every spelling, and that a fetch with
/// a policy checks the first URL and each redirect before it connects.
@Suite(.serialized, .realTime) struct OutboundPolicyTests {
    static let client = BoundedFetch.makeClient(connectTimeout: .seconds(30), maximumRedirects: 0)

    @Test(arguments: [
        ("127.0.0.1", "127.0.0.1"), ("2130706433", "127.0.0.1"), ("0177.0.0.1", "127.0.0.1"),
        ("0x7f.0.0.1", "127.0.0.1"), ("0x7F000001", "127.0.0.1"), ("127.1", "127.0.0.1"), ("0", "0.0.0.0"),
        ("169.254.169.254", "169.254.169.254"), ("0xa9.0376.43518", "169.254.169.254"),
    ])
    func oddIPv4SpellingsReadAsTheirAddress(_ spelling: String, _ address: String) throws {
        #expect(try #require(IPAddress(spelling)).description == address)
    }

    @Test func refusedAndAllowedAddresses() throws {
        let refused = [
            "127.0.0.1", "127.255.0.9", "0.0.0.0", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.0.1",
            "169.254.169.254", "100.64.0.1", "100.127.255.255", "224.0.0.1", "239.1.1.1", "255.255.255.255",
            "::1", "::", "fe80::1", "febf::1", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1",
            "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::ffff:7f00:1", "[::1]", "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::", "2130706433", "0177.0.0.1", "0x7f.0.0.1",
        ]
        for text in refused {
            #expect(try #require(IPAddress(text), "\(text)").refusal != nil, "\(text)")
        }
        let allowed = [
            "93.184.216.34", "8.8.8.8", "172.32.0.1", "172.15.255.255", "100.128.0.1", "100.63.255.255",
            "192.169.0.1", "2606:4700::1111", "::ffff:8.8.8.8", "2002:808:808::",
        ]
        for text in allowed {
            #expect(try #require(IPAddress(text), "\(text)").refusal == nil, "\(text)")
        }
        for name in ["example.com", "1.2.3.4.5", "256.0.0.1", "0x", "08.0.0.1", "1::2::3", "fe80::1%25eth0", ""] {
            #expect(IPAddress(name) == nil, "\(name)")
        }
    }

    @Test func networksContainTheirAddressesAndMappedForms() throws {
        let network = try #require(IPNetwork("10.2.0.0/16"))
        #expect(network.contains(try #require(IPAddress("10.2.200.1"))))
        #expect(network.contains(try #require(IPAddress("::ffff:10.2.0.9"))))
        #expect(!network.contains(try #require(IPAddress("10.3.0.1"))))
        #expect(try #require(IPNetwork("fd00::/8")).contains(try #require(IPAddress("fd12::1"))))
        #expect(try #require(IPNetwork("0.0.0.0/0")).contains(try #require(IPAddress("127.0.0.1"))))
        for bad in ["10.0.0.0/33", "10.0.0.0/", "fd00::/129", "x/8", "10.0.0.0/8/8", "10.0.0.0/-1"] {
            #expect(IPNetwork(bad) == nil, "\(bad)")
        }
        let policy = OutboundPolicy(allowedNetworks: [network])
        #expect(policy.refusal(of: try #require(IPAddress("10.2.0.1"))) == nil)
        #expect(policy.refusal(of: try #require(IPAddress("10.9.0.1"))) == "a private address")
    }

    /// A name that resolves to loopback, an odd spelling of it, and a redirect from a trusted host
    /// to either: refused before any connection (the server counts every request it is sent).
    @Test func fetchesCheckTheResolvedAddressAndEveryRedirect() async throws {
        let requests = Mutex(0)
        let server = try RawServer { head in
            requests.withLock { $0 += 1 }
            guard head.hasPrefix("GET /hop") else { return [(0, RawServer.response("200 OK", Array("ok".utf8)))] }
            let port = head.split(separator: " ")[1].dropFirst(4)
            return [(0, RawServer.response("302 Found", [], headers: "Location: http://localhost:\(port)/inner\r\n"))]
        }
        defer { server.stop() }
        let fetch = BoundedFetch(client: Self.client, outbound: OutboundPolicy())
        for url in ["http://localhost:\(server.port)/a", "http://2130706433:\(server.port)/a", "http://[::1]:1/a"] {
            do {
                _ = try await fetch.get(FetchRequest(url: url, timeout: .seconds(30), maximumBodySize: 100))
                Issue.record("\(url) was requested")
            } catch {
                #expect(error.code == .forbiddenDestination, "\(url): \(error)")
            }
        }
        #expect(requests.withLock { $0 } == 0)
        // The server is trusted as named; its redirect to a loopback name is not.
        var request = FetchRequest(url: server.base + "/hop\(server.port)", timeout: .seconds(30), maximumBodySize: 100)
        request.trustedHosts = ["127.0.0.1:\(server.port)"]
        do {
            _ = try await fetch.get(request)
            Issue.record("the redirect was followed")
        } catch {
            #expect(error.code == .forbiddenDestination, "\(error)")
            #expect(error.message.contains("localhost resolves to"), "\(error.message)")
        }
        #expect(requests.withLock { $0 } == 1)
        // Allowed by network: the request goes to the checked address, with the name in `Host`.
        let allowed = BoundedFetch(
            client: Self.client,
            outbound: OutboundPolicy(allowedNetworks: [try #require(IPNetwork("127.0.0.0/8"))])
        )
        let response = try await allowed.get(
            FetchRequest(url: "http://2130706433:\(server.port)/a", timeout: .seconds(30), maximumBodySize: 100)
        )
        #expect(response.body == Array("ok".utf8))
        #expect(requests.withLock { $0 } == 2)
    }
    /// A fetch that keeps redirects on its configured hosts follows one to its own host or a trusted
    /// one, and refuses one elsewhere before connecting (a creative to condition is fetched so).
    @Test func redirectsCanBeKeptOnTheConfiguredHosts() async throws {
        let elsewhere = Mutex(0)
        let other = try RawServer { _ in
            elsewhere.withLock { $0 += 1 }
            return [(0, RawServer.response("200 OK", Array("other".utf8)))]
        }
        defer { other.stop() }
        let server = try RawServer { head in
            if head.hasPrefix("GET /away") {
                return [(0, RawServer.response("302 Found", [], headers: "Location: \(other.base)/file\r\n"))]
            }
            if head.hasPrefix("GET /here") {
                return [(0, RawServer.response("302 Found", [], headers: "Location: /file\r\n"))]
            }
            return [(0, RawServer.response("200 OK", Array("own".utf8)))]
        }
        defer { server.stop() }
        let fetch = BoundedFetch(
            client: Self.client,
            outbound: OutboundPolicy(allowedNetworks: [try #require(IPNetwork("127.0.0.0/8"))])
        )
        func request(_ path: String, kept: Bool, trusted: Set<String> = []) -> FetchRequest {
            var request = FetchRequest(url: server.base + path, timeout: .seconds(30), maximumBodySize: 100)
            request.keepsRedirectsOnConfiguredHosts = kept
            request.trustedHosts = trusted
            return request
        }
        // Not kept: the redirect to the other server is followed, as before.
        #expect(try await fetch.get(request("/away", kept: false)).body == Array("other".utf8))
        #expect(elsewhere.withLock { $0 } == 1)
        // Kept: refused before connecting there.
        do {
            _ = try await fetch.get(request("/away", kept: true))
            Issue.record("the redirect off the host was followed")
        } catch {
            #expect(error.code == .forbiddenDestination, "\(error)")
            #expect(error.message.contains("off the hosts it may use"), "\(error.message)")
        }
        #expect(elsewhere.withLock { $0 } == 1)
        // Its own host, or a host the request trusts: followed.
        #expect(try await fetch.get(request("/here", kept: true)).body == Array("own".utf8))
        let endpoint = try #require(OutboundPolicy.endpoint(of: other.base + "/"))
        #expect(try await fetch.get(request("/away", kept: true, trusted: [endpoint])).body == Array("other".utf8))
        #expect(elsewhere.withLock { $0 } == 2)
    }
}
