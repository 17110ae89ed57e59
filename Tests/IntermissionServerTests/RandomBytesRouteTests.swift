import AdInsertion
import Foundation
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import IntermissionTestSupport
import Logging
import Testing

@testable import IntermissionServer

/// Seeded random bytes as query strings and bodies on every route the router has (read from the
/// router, so a new route is covered the day it is added), over loopback.
@Suite(.realTime) struct RandomBytesRouteTests {
    /// A request target for a router path: parameters filled with demo names or random text.
    static func target(_ path: String, _ random: inout SeededGenerator) -> String {
        let segments = path.split(separator: "/").map { segment -> String in
            switch segment {
            case "{asset}", "{channel}", "{mount}": return pick(["demo", "demo", "demo", "nope"], &random)
            case "{scope}": return pick(["vod-demo", "live-demo", "vod-nope", "x"], &random)
            case "{break}.json": return pick(["preroll", "midroll-1", "auto-1", "nope"], &random) + ".json"
            case "{id}": return pick(["auto-1", "auto-2", "red", "blue", "nope"], &random)
            case "**": return pick(["main.m3u8", "prog.m3u8", "primary/main.m3u8", "x/y.m3u8"], &random)
            default: return String(segment)
            }
        }
        return "/" + segments.joined(separator: "/")
    }

    static func pick<T>(_ values: [T], _ random: inout SeededGenerator) -> T {
        values[Int(random.next() % UInt64(values.count))]
    }

    static func bytes(_ count: Int, _ random: inout SeededGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    /// A query string of random bytes: percent-encoded whole, or as `key=value` pairs (with the
    /// HLS query names), or raw bytes the HTTP parser must refuse.
    static func query(_ random: inout SeededGenerator) -> String {
        let hex = Array("0123456789ABCDEF")
        func encoded(_ bytes: [UInt8]) -> String {
            bytes.map { "%" + String(hex[Int($0 >> 4)]) + String(hex[Int($0 & 15)]) }.joined()
        }
        switch random.next() % 4 {
        case 0:
            return encoded(Self.bytes(Int(random.next() % 300), &random))
        case 1:
            let keys = ["_HLS_primary_id", "_HLS_start_offset", "_HLS_interstitial_id", "_HLS_msn", "_HLS_part", "x"]
            return (0..<Int(1 + random.next() % 4)).map { _ in
                pick(keys, &random) + "=" + encoded(Self.bytes(Int(random.next() % 64), &random))
            }.joined(separator: "&")
        case 2:
            // Printable bytes as they are (no space, no `#`): what a careless client sends.
            return String(
                decoding: Self.bytes(Int(random.next() % 200), &random).map { 0x21 + $0 % 94 }.filter { $0 != 0x23 },
                as: UTF8.self
            )
        default:
            // Raw bytes of every value, CR, LF and NUL included: the request line breaks.
            return String(decoding: Self.bytes(Int(1 + random.next() % 40), &random), as: UTF8.self)
        }
    }

    /// One request: the route's method (or HEAD, or another), the random query, a random body.
    static func request(_ route: (method: String, path: String), _ random: inout SeededGenerator) -> [UInt8] {
        let method = random.next() % 8 == 0 ? pick(["HEAD", "POST", "DELETE", "PUT"], &random) : route.method
        let target = Self.target(route.path, &random) + (random.next() % 6 == 0 ? "" : "?" + Self.query(&random))
        var head = Array("\(method) ".utf8) + Array(target.utf8) + Array(" HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8)
        if random.next() % 2 == 0 { head += Array("Authorization: Bearer secret\r\n".utf8) }
        var body: [UInt8] = []
        if method == "POST" || method == "PUT" || random.next() % 4 == 0 {
            switch random.next() % 3 {
            case 0: body = Self.bytes(Int(random.next() % 4096), &random)
            case 1: body = Array("{\"duration\": ".utf8) + Self.bytes(Int(random.next() % 64), &random)
            default:
                body = Array("{\"id\": \"".utf8) + Self.bytes(Int(random.next() % 256), &random) + Array("\"}".utf8)
            }
            let type = pick(["application/json", "application/octet-stream", "text/plain; charset=utf-8"], &random)
            head += Array("Content-Type: \(type)\r\n".utf8)
        }
        head += Array("Content-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8)
        return head + body
    }

    /// 1,200 seeded requests spread over every route: no 5xx, every request answered, and the server
    /// still answers `/health`, `/` and a playlist afterwards.
    @Test(.timeLimit(.minutes(5))) func randomBytesOnEveryRouteGetNo5xx() async throws {
        var configuration = try demoConfiguration(clock: ManualWallClock(t0 + 125))
        // The test client connects at the start and sends its first request after the 1,200 raw
        // ones (over a minute on a busy machine): its head may take that long.
        configuration.requestHeadTimeout = .seconds(600)
        configuration.idleTimeout = .seconds(600)
        let parts = ServerApplicationParts(
            configuration: configuration,
            store: InMemoryAdStore(),
            logger: Logger(label: "t")
        )
        var routes = parts.makeRouter().routes.filter { $0.method != .head }.map { ("\($0.method)", "\($0.path)") }
        routes.append(("GET", "/media/{mount}/**"))
        #expect(routes.count >= 16)
        let all = routes
        try await withServer(configuration) { client in
            let port = try #require(client.port)
            let perRoute = 1200 / all.count
            let results = try await withThrowingTaskGroup(of: [(Int, String)].self) { group in
                for (k, route) in all.enumerated() {
                    group.addTask {
                        var random = SeededGenerator(seed: 0xB17E_5000 &+ UInt64(k))
                        var seen: [(Int, String)] = []
                        for _ in 0..<perRoute {
                            let request = Self.request(route, &random)
                            let answer = try await rawExchange(port: port, request, timeout: .seconds(60))
                            seen.append((answer.status, String(decoding: request.prefix(160), as: UTF8.self)))
                        }
                        return seen
                    }
                }
                var all: [(Int, String)] = []
                for try await part in group { all += part }
                return all
            }
            #expect(results.count == perRoute * all.count)
            let serverErrors = results.filter { $0.0 >= 500 }
            #expect(serverErrors.isEmpty, "\(serverErrors.prefix(5))")
            let unanswered = results.filter { $0.0 == 0 }
            #expect(unanswered.isEmpty, "\(unanswered.count) got no status line: \(unanswered.prefix(3))")
            // Random input reached the handlers, not only the parser's refusals.
            let statuses = Set(results.map(\.0))
            #expect(statuses.isSuperset(of: [200, 400, 404]), "\(statuses.sorted())")
            #expect(try await client.get("/health").status == .ok)
            #expect(try await client.get("/").status == .ok)
            #expect(try await client.get("/vod/demo/main.m3u8").status == .ok)
        }
    }
}
