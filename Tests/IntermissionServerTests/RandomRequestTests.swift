import AdInsertion
import Foundation
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import IntermissionServer
import IntermissionTestSupport
import Testing

/// Random requests over every route of the demo configuration, with the hostile edges.
enum RandomRequests {
    static let numbers = [
        "0", "-0", "1", "-1", "0.5", "3600", "3600.000000001", "1e308", "-1e308", "1e-300", "NaN", "nan", "inf", "-inf",
        "Infinity",
        "9223372036", "9223372037", "9223372036.9", "9223372036854775807", "-9223372036854775808",
        "18446744073709551616",
        "1234567890123456789012345678901234567890", "0x1F", "1e3", "1E+3", ".5", "5.", "", "+1", "1_000",
        "00000000000000000000001",
        "0.0000000000000000000000000000001", "12.3456789012345678901234567890",
    ]
    static let strings = [
        "", "a", "demo", "preroll", "midroll-1", "..", ".", "%2e%2e", "%2E%2e", "%00", "%0a", "%0d%0a", "%2f", "%5c",
        "%25", "%ff",
        "%", "%zz", "a%00.html", "auto-1", "auto-0", "auto-9999", "auto-", "news", "x.m3u8", "main.m3u8", "prog.m3u8",
        "seg-000.ts",
        "README.md", "make.sh", "~", "-", "_", "\u{00e9}", "%C3%A9", String(repeating: "a", count: 65),
        String(repeating: "z", count: 5000),
        String(repeating: "y", count: 100_000),
    ]
    static let prefixes = [
        "/vod/demo/", "/vod/", "/live/demo/", "/live/", "/v1/asset-lists/vod-demo/", "/v1/asset-lists/live-demo/",
        "/v1/asset-lists/",
        "/media/demo/", "/media/demo/primary/", "/media/", "/health", "/metrics", "/v1/admin/channels/demo/breaks/",
        "/v1/admin/channels/",
        "/v1/admin/inventory/", "/v1/admin/", "/", "//", "/./", "/../",
    ]
    static let suffixes = ["", ".m3u8", ".json", ".ts", "/", "/early-return", "/main.m3u8", "/prog.m3u8"]
    static let methods = [
        "GET", "GET", "GET", "HEAD", "POST", "POST", "DELETE", "PUT", "OPTIONS", "PATCH", "TRACE", "PURGE", "FROB",
    ]
    static let queryKeys = [
        "_HLS_start_offset", "_HLS_primary_id", "_HLS_interstitial_id", "x", "_HLS_start_offset", "",
    ]
    static let headers = [
        "X-Playback-Session-Id", "Authorization", "Content-Type", "Range", "If-None-Match", "Origin",
        "Access-Control-Request-Headers",
        "Host", "Accept", "X-Forwarded-For",
    ]
    static let jsonKeys = [
        "id", "start", "startIn", "duration", "cue", "restrictions", "snap", "resumeOffset", "after", "at", "uri",
        "value",
    ]

    static func pick<T>(_ values: [T], _ random: inout SeededGenerator) -> T {
        values[Int(random.next() % UInt64(values.count))]
    }

    static func jsonValue(_ random: inout SeededGenerator) -> String {
        switch random.next() % 6 {
        case 0:
            return pick(
                numbers.filter { Double($0) != nil && !$0.lowercased().contains("n") && !$0.hasPrefix("0x") },
                &random
            )
        case 1: return "\"" + pick(strings, &random).prefix(200) + "\""
        case 2: return "[\"" + pick(["PRE", "POST", "ONCE", "SKIP", "JUMP", "OUT", "IN", "X"], &random) + "\"]"
        case 3:
            return pick(
                [
                    "null", "true", "{}", "[]", "\"now\"", "\"2025-01-01T00:00:10Z\"", "\"1734-01-01T00:00:00Z\"",
                    "\"9999-12-31T23:59:59Z\"",
                ],
                &random
            )
        case 4: return String(Double(bitPattern: random.next()))  // includes nan and inf: invalid JSON
        default: return String(Int64(bitPattern: random.next()))
        }
    }

    /// One request as bytes.
    static func request(_ random: inout SeededGenerator) -> [UInt8] {
        let method = pick(methods, &random)
        var path = pick(prefixes, &random)
        for _ in 0..<Int(random.next() % 3) {
            path += pick(strings, &random).prefix(random.next() % 4 == 0 ? 100_000 : 300) + "/"
        }
        if random.next() % 2 == 0, path.hasSuffix("/") { path.removeLast() }
        path += pick(suffixes, &random)
        var query: [String] = []
        for _ in 0..<Int(random.next() % 4) {
            let value = random.next() % 2 == 0 ? pick(numbers, &random) : String(pick(strings, &random).prefix(2000))
            query.append(pick(queryKeys, &random) + "=" + value)
        }
        let target = query.isEmpty ? path : path + "?" + query.joined(separator: "&")
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for _ in 0..<Int(random.next() % 4) {
            let name = pick(headers, &random)
            let value: String
            switch name {
            case "Authorization":
                value = pick(
                    ["Bearer secret", "bearer secret", "Bearer wrong", "Basic c2VjcmV0", "Bearer", ""],
                    &random
                )
            default: value = String(pick(strings, &random).prefix(random.next() % 8 == 0 ? 100_000 : 500))
            }
            head += "\(name): \(value)\r\n"
        }
        var body: [UInt8] = []
        if method == "POST" || method == "PUT" || random.next() % 8 == 0 {
            switch random.next() % 5 {
            case 0: body = Array(String(repeating: " ", count: Int(random.next() % 100_000)).utf8)
            case 1: body = (0..<Int(random.next() % 512)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            default:
                let fields = (0..<Int(random.next() % 6)).map { _ in
                    "\"\(pick(jsonKeys, &random))\": \(jsonValue(&random))"
                }
                body = Array(("{" + fields.joined(separator: ", ") + "}").utf8)
            }
        }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8) + body
    }
}

@Suite(.realTime) struct RandomRequestTests {
    /// 10,000 seeded random requests (random methods, paths, queries, headers and bodies with the
    /// hostile edges) against the demo configuration over loopback, 24 at a time: no answer is a
    /// 5xx, every request gets an answer, and the server still serves the demo afterwards.
    @Test(.timeLimit(.minutes(5))) func tenThousandRandomRequestsGetNo5xx() async throws {
        let clock = ManualWallClock(t0 + 3600)
        try await withServer(try demoConfiguration(clock: clock)) { client in
            let port = try #require(client.port)
            let total = 10_000
            let workers = 24
            let results = try await withThrowingTaskGroup(of: [(Int, String)].self) { group in
                for worker in 0..<workers {
                    group.addTask {
                        var random = SeededGenerator(seed: 0x1234_5678 &+ UInt64(worker))
                        var seen: [(Int, String)] = []
                        for _ in stride(from: worker, to: total, by: workers) {
                            let bytes = RandomRequests.request(&random)
                            let line =
                                String(decoding: bytes.prefix(120), as: UTF8.self).split(separator: "\r\n").first.map(
                                    String.init
                                ) ?? ""
                            let response = try await rawExchange(port: port, bytes, timeout: .seconds(30))
                            seen.append((response.status, line))
                        }
                        return seen
                    }
                }
                var all: [(Int, String)] = []
                for try await part in group { all += part }
                return all
            }
            #expect(results.count == total)
            let serverErrors = results.filter { $0.0 >= 500 }
            #expect(serverErrors.isEmpty, "\(serverErrors.prefix(10))")
            let unanswered = results.filter { $0.0 == 0 }
            #expect(unanswered.isEmpty, "\(unanswered.count) requests got no status line: \(unanswered.prefix(5))")
            // Every class of answer showed up (the generator reaches every route).
            let statuses = Set(results.map(\.0))
            #expect(statuses.isSuperset(of: [200, 400, 401, 404, 405]), "\(statuses.sorted())")
            // On new connections: the test client's own one may have passed the server's idle
            // timeout while a loaded machine took minutes over the 10,000.
            for path in ["/vod/demo/prog.m3u8", "/live/demo/prog.m3u8"] {
                let answer = try await rawExchange(
                    port: port,
                    "GET \(path) HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
                )
                #expect(answer.status == 200, "\(path)")
            }
        }
    }
}
