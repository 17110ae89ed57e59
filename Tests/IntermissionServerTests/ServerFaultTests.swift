import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntermissionSQLite
import IntermissionServer
import IntermissionTestSupport
import NIOCore
import Testing

/// A port on loopback that refuses connections: bound by a socket that is then closed.
func refusingPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(fd >= 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    try #require(bound)
    return Int(UInt16(bigEndian: address.sin_port))
}

/// One HTTP/1.1 GET over a plain socket, with the `Host` header given (the test client always
/// sends its own); returns the body.
///
/// The blocking socket calls run on a dispatch queue, not on the
/// cooperative threads the server in this process answers on.
func rawGET(port: Int, path: String, host: String) async throws -> [UInt8] {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try blockingGET(port: port, path: path, host: host) })
        }
    }
}

/// A blocking TCP socket connected to `127.0.0.1:port`, or `nil` when the connection fails.
func connectLoopback(port: Int) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
    guard connected else {
        close(fd)
        return nil
    }
    return fd
}

private func blockingGET(port: Int, path: String, host: String) throws -> [UInt8] {
    let fd = try #require(connectLoopback(port: port))
    defer { close(fd) }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let request = Array("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n".utf8)
    try #require(request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) } == request.count)
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count <= 0 { break }
        answer += buffer[..<count]
    }
    let separator: [UInt8] = [13, 10, 13, 10]
    guard let end = (0..<max(0, answer.count - 3)).first(where: { Array(answer[$0..<$0 + 4]) == separator }) else {
        return []
    }
    return Array(answer[(end + 4)...])
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

extension TestResponse {
    /// The creative paths of an asset list, in order (`/media/demo/ad-red/main.m3u8` → `red`).
    var creatives: [String] {
        ((try? AssetList.decode(self.bytes))?.assets ?? []).map { asset in
            asset.uri.components(separatedBy: "/ad-").last?.components(separatedBy: "/").first ?? asset.uri
        }
    }
}

@Suite(.realTime) struct BoundedWorkTests {
    /// Break IDs far from now, or that are no plain index, are answered 404 at once; while several
    /// clients send them, live playlists are still served within 50 ms.
    @Test(.timeLimit(.minutes(1))) func farOrMalformedBreakIDsAre404AtOnceAndLivePlaylistsStayFast() async throws {
        let clock = ManualWallClock(t0 + 110)
        try await withServer(try demoConfiguration(clock: clock)) { client in
            let hostile = [
                "auto-61900552", "auto-62400000", "auto-76861433", "auto-1000", "auto-31", "auto-9223372036854775807",
                "auto-" + String(repeating: "9", count: 40), "auto--1", "auto-1e5", "auto-0x10", "auto-00",
            ]
            for id in hostile {
                // A same-run reference: one health check, timed just before, shows how slow the
                // machine is right now (not a live playlist: the server's count of those is checked
                // below).
                let referenceStart = ContinuousClock.now
                _ = try await client.get("/health")
                let reference = ContinuousClock.now - referenceStart
                let started = ContinuousClock.now
                let response = try await client.get("/v1/asset-lists/live-demo/\(id).json?_HLS_primary_id=p")
                #expect(response.status == .notFound, "\(id)")
                #expect(response.json?["error"]?["code"]?.stringValue == "notFound")
                // Today's main walked the plan for seconds (8 s for the first ID); 4 s, plus four
                // times what the health check took just before (a machine starved of CPU beside
                // every other suite has taken 6 s), still tells an answer at once from that walk.
                let took = ContinuousClock.now - started
                #expect(took < .seconds(4) + reference * 4, "\(id): \(took), the health check \(reference)")
            }
            // Within an hour of now: answered (auto-0 starts in 10 s, auto-29 in 58 min 10 s).
            #expect(try await client.get("/v1/asset-lists/live-demo/auto-0.json?_HLS_primary_id=p").status == .ok)
            #expect(try await client.get("/v1/asset-lists/live-demo/auto-29.json?_HLS_primary_id=p").status == .ok)

            let latencies = try await withThrowingTaskGroup(of: [Duration].self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        for round in 0..<15 {
                            let id = hostile[(worker + round) % hostile.count]
                            _ = try await client.get("/v1/asset-lists/live-demo/\(id).json?_HLS_primary_id=w\(worker)")
                        }
                        return []
                    }
                }
                group.addTask {
                    var measured: [Duration] = []
                    for _ in 0..<20 {
                        let started = ContinuousClock.now
                        let playlist = try await client.get("/live/demo/prog.m3u8")
                        measured.append(ContinuousClock.now - started)
                        #expect(playlist.status == .ok)
                    }
                    return measured
                }
                var all: [Duration] = []
                for try await part in group { all += part }
                return all.sorted()
            }
            #expect(latencies.count == 20)
            // The server's own time for each playlist (its histogram, so that a client thread the
            // machine was slow to schedule does not count): within 50 ms, one outlier allowed for a
            // machine busy with other work. Seen from the client: a median within 500 ms and nothing
            // near the seconds a walk over the plan took (the client's median gets a wider bound: the
            // test runs beside every other suite on a 2-core machine, real-time group playback
            // among them, and the server's own figure above is the one that measures the server).
            let metrics = try await client.get("/metrics").text.split(separator: "\n")
            func bucket(_ le: String) -> Int? {
                metrics.first {
                    $0.hasPrefix("intermission_http_request_duration_seconds_bucket{")
                        && $0.contains(#"route="/live/{channel}/**""#) && $0.contains(#"le="\#(le)""#)
                }
                .flatMap { $0.split(separator: " ").last.flatMap { Int($0) } }
            }
            let within50 = try #require(bucket("0.05"), "\(metrics.filter { $0.contains("live") })")
            #expect(bucket("+Inf") == 20)
            #expect(within50 >= 19, "\(metrics.filter { $0.contains("live") })")
            #expect(latencies[10] < .milliseconds(500), "\(latencies.map(seconds))")
            // The slowest of 20 seen by the client: the full suite on two cores has put it just
            // past 1 s (1.03 and 1.05 s) while the server's own figures above stayed within bounds.
            #expect(latencies[19] < .seconds(3), "\(latencies.map(seconds))")
        }
    }
}

@Suite(.realTime) struct OriginFaultTests {
    /// Headers at once, then a byte every half second: the deadline covers the body too.
    @Test(.timeLimit(.minutes(1))) func aSlowBodyOriginIs502WithinTheTimeout() async throws {
        let origin = try #require(
            await PageServer(
                handler: """
                    self.send_response(200)
                    self.send_header("Content-Length", "400")
                    self.end_headers()
                    self.wfile.write(b"#EXTM3U\\n")
                    try:
                        # Real time on purpose: the server's 1 s deadline is what is under test,
                        # and a body that keeps coming (never idle) must not escape it.
                        for _ in range(400):
                            time.sleep(0.5)
                            self.wfile.write(b"#")
                            self.wfile.flush()
                    except Exception:
                        pass
                    """
            )
        )
        defer { origin.stop() }
        let (response, elapsed) = try await Self.askUpstream(port: origin.port, timeout: .seconds(1))
        #expect(response.status == .badGateway)
        #expect(
            response.json?["error"]?["message"]?.stringValue?.contains("did not send its whole answer within 1.000 s")
                == true,
            "\(response.text)"
        )
        // Under the full suite on two cores the answer has been seen 4+ s (and unbounded, 8+ s) after
        // the 1 s timeout; what matters is that it is a 502 about the timeout, well before the
        // origin's 200 s of trickling would end, not a hang.
        #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(50), "\(elapsed)")
    }

    /// A refused connection is a 502 at once, not after the timeout.
    @Test(.timeLimit(.minutes(1))) func aRefusedConnectionIs502AtOnce() async throws {
        let (response, elapsed) = try await Self.askUpstream(port: try refusingPort(), timeout: .seconds(40))
        #expect(response.status == .badGateway)
        #expect(response.json?["error"]?["message"]?.stringValue?.contains("is unreachable") == true)
        // Before the 40 s deadline: the refusal is the answer, not the timeout. (The deadline is far
        // from any answer time, which a busy shared machine has stretched past 6 s.)
        #expect(elapsed < .seconds(40), "\(elapsed)")
    }

    /// The 502 says what the origin did, in the words of the shared fetch: the status it answered
    /// (the origin answers 418 only to the server's User-Agent), a Content-Length over the limit,
    /// a refused connection with its address.
    @Test(.timeLimit(.minutes(1))) func originFailuresAreSaidInWords() async throws {
        let teapot = try #require(
            await PageServer(
                handler: """
                    agent = self.headers.get("User-Agent", "")
                    self.send_response(418 if agent == "intermission-server/0.1" else 400)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    """
            )
        )
        defer { teapot.stop() }
        let (answered, _) = try await Self.askUpstream(port: teapot.port, timeout: .seconds(8))
        #expect(answered.status == .badGateway)
        #expect(
            answered.json?["error"]?["message"]?.stringValue
                == "upstream http://127.0.0.1:\(teapot.port)/live.m3u8 answered HTTP 418",
            "\(answered.text)"
        )

        let huge = try #require(
            await PageServer(
                handler: """
                    self.send_response(200)
                    self.send_header("Content-Length", "1000000000000")
                    self.end_headers()
                    """
            )
        )
        defer { huge.stop() }
        let limit = try demoConfiguration(clock: ManualWallClock(t0)).maximumUpstreamBytes
        let (large, _) = try await Self.askUpstream(port: huge.port, timeout: .seconds(8))
        #expect(large.status == .badGateway)
        #expect(
            large.json?["error"]?["message"]?.stringValue
                == "upstream http://127.0.0.1:\(huge.port)/live.m3u8 is too large (more than \(limit) bytes)",
            "\(large.text)"
        )

        let port = try refusingPort()
        let (refused, _) = try await Self.askUpstream(port: port, timeout: .seconds(8))
        #expect(
            refused.json?["error"]?["message"]?.stringValue
                == "upstream http://127.0.0.1:\(port)/live.m3u8 is unreachable: cannot connect to 127.0.0.1:\(port): connection refused",
            "\(refused.text)"
        )
    }

    /// The timeout is held within 1 ms … 1 hour: zero gives up after 1 ms (and says so), and
    /// `Int64.max` seconds neither overflows nor delays a refused connection.
    @Test(.timeLimit(.minutes(1))) func theUpstreamTimeoutIsKeptInRange() async throws {
        let silent = try #require(
            await PageServer(
                handler: """
                    gate.wait()
                    """
            )
        )
        defer { silent.stop() }
        let (zero, elapsed) = try await Self.askUpstream(port: silent.port, timeout: .zero)
        #expect(zero.status == .badGateway)
        #expect(
            zero.json?["error"]?["message"]?.stringValue
                == "upstream http://127.0.0.1:\(silent.port)/live.m3u8 did not send its whole answer within 0.001 s",
            "\(zero.text)"
        )
        // The origin holds its answer until it is stopped: the 1 ms timeout gave up, well within 30 s.
        #expect(elapsed < .seconds(30), "\(elapsed)")

        // Refused at once rather than held for the (unbounded) timeout: well before the test's limit.
        let (refused, fast) = try await Self.askUpstream(port: try refusingPort(), timeout: .seconds(Int64.max))
        #expect(refused.status == .badGateway)
        #expect(fast < .seconds(30), "\(fast)")
    }

    /// Asks a server whose channel `up` reads `http://127.0.0.1:{port}/live.m3u8` for it: the answer
    /// and how long it took.
    static func askUpstream(port: Int, timeout: Duration) async throws -> (TestResponse, Duration) {
        var configuration = try demoConfiguration(clock: ManualWallClock(t0))
        configuration.upstreamTimeout = timeout
        configuration.adInsertion.channels.append(
            LiveChannel(id: "up", source: .upstream("http://127.0.0.1:\(port)/live.m3u8"))
        )
        return try await withServer(configuration) { client in
            let started = ContinuousClock.now
            let response = try await client.get("/live/up/live.m3u8")
            return (response, ContinuousClock.now - started)
        }
    }

    /// An origin that fails now and then: its last good playlist stands in for three target
    /// durations (6 s here), then the channel answers 503 with Retry-After until it is back.
    @Test(.timeLimit(.minutes(1))) func aFlappingOriginServesTheLastGoodPlaylistThen503() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Two 2 s segments, dated.
        let live =
            [
                "#EXTM3U", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:100",
                "#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:00.000Z",
            ]
            .joined(separator: "\n") + "\n#EXTINF:2.0,\ns100.ts\n#EXTINF:2.0,\ns101.ts\n"
        try write(live, to: folder + "/up/live.m3u8")
        let origin = try #require(await PageServer(directory: URL(fileURLWithPath: folder)))
        defer { origin.stop() }
        let clock = ManualWallClock(t0 + 4)
        var configuration = try demoConfiguration(clock: clock)
        configuration.adInsertion.channels += [
            LiveChannel(id: "flap", source: .upstream("http://127.0.0.1:\(origin.port)/up/live.m3u8")),
            LiveChannel(
                id: "bounded",
                source: .upstream("http://127.0.0.1:\(origin.port)/up/live.m3u8"),
                lastGoodLimit: 1
            ),
        ]
        try await withServer(configuration) { client in
            let good = try await client.get("/live/flap/live.m3u8")
            #expect(good.status == .ok && good.text.contains("s101.ts"))
            #expect(try await client.get("/live/bounded/live.m3u8").status == .ok)
            try FileManager.default.removeItem(atPath: folder + "/up/live.m3u8")  // the origin now answers 404
            clock.advance(by: 5)
            let standIn = try await client.get("/live/flap/live.m3u8")
            #expect(standIn.status == .ok)
            #expect(standIn.text == good.text)
            // 5 s old is over the configured 1 s of the other channel.
            let bounded = try await client.get("/live/bounded/live.m3u8")
            #expect(bounded.status == .serviceUnavailable)
            clock.advance(by: 1)  // exactly 6 s: still served
            #expect(try await client.get("/live/flap/live.m3u8").text == good.text)
            clock.advance(by: MediaTime(milliseconds: 1))
            let gone = try await client.get("/live/flap/live.m3u8")
            #expect(gone.status == .serviceUnavailable)
            #expect(gone.headers[.retryAfter] == "2")
            #expect(gone.json?["error"]?["code"]?.stringValue == "upstreamUnavailable")
            let health = try await client.admin(.get, "/health")
            #expect(health.json?["status"]?.stringValue == "degraded")
            #expect(
                health.json?["channels"]?.arrayValue?.first { $0["id"]?.stringValue == "flap" }?["state"]?.stringValue
                    == "unreachable"
            )
            // Back: fresh again, and healthy.
            try write(
                live.replacingOccurrences(of: "s101.ts", with: "s101.ts\n#EXTINF:2.0,\ns102.ts"),
                to: folder + "/up/live.m3u8"
            )
            let back = try await client.get("/live/flap/live.m3u8")
            #expect(back.status == .ok && back.text.contains("s102.ts"))
            _ = try await client.get("/live/bounded/live.m3u8")
            #expect(try await client.get("/health").json?["status"]?.stringValue == "ok")
        }
    }
}

extension OriginFaultTests {
    /// An upstream's numbers are its own: a target duration of Int64.max neither traps nor keeps a
    /// failed channel's last playlist for ever (the stand-in time is capped at three hours).
    @Test(.timeLimit(.minutes(1))) func aHugeTargetDurationIsCapped() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:9223372036854775807\n#EXTINF:2.0,\ns0.ts\n"
        try write(playlist, to: folder + "/up/live.m3u8")
        let origin = try #require(await PageServer(directory: URL(fileURLWithPath: folder)))
        defer { origin.stop() }
        let clock = ManualWallClock(t0)
        var configuration = try demoConfiguration(clock: clock)
        configuration.adInsertion.channels.append(
            LiveChannel(id: "huge", source: .upstream("http://127.0.0.1:\(origin.port)/up/live.m3u8"))
        )
        try await withServer(configuration) { client in
            let first = try await client.get("/live/huge/live.m3u8")
            #expect(first.status == .ok || first.status == .badGateway)
            guard first.status == .ok else { return }
            try FileManager.default.removeItem(atPath: folder + "/up/live.m3u8")
            clock.advance(by: 3 * 3600)
            #expect(try await client.get("/live/huge/live.m3u8").status == .ok)
            clock.advance(by: 1)
            let gone = try await client.get("/live/huge/live.m3u8")
            #expect(gone.status == .serviceUnavailable)
            #expect(gone.headers[.retryAfter] == "3600")
        }
    }
}

@Suite(.realTime) struct SecretTests {
    /// Credentials and query strings of configured URLs never show: not in 502 messages, not in
    /// `/health` (whose detail needs the admin token).
    @Test(.timeLimit(.minutes(1))) func upstreamCredentialsAndTokensAreRedacted() async throws {
        let port = try refusingPort()
        var configuration = try demoConfiguration(clock: ManualWallClock(t0))
        configuration.adInsertion.channels.append(
            LiveChannel(
                id: "secret",
                source: .upstream("http://operator:pa55word@127.0.0.1:\(port)/live/main.m3u8?token=s3cr3t&x=1")
            )
        )
        try await withServer(configuration) { client in
            let failed = try await client.get("/live/secret/main.m3u8")
            #expect(failed.status == .badGateway)
            let message = failed.json?["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains("127.0.0.1:\(port)/live/main.m3u8"), "\(message)")
            let variant = try await client.get("/live/secret/other.m3u8?token=mine")
            for text in [failed.text, variant.text] {
                #expect(!text.contains("pa55word") && !text.contains("operator") && !text.contains("s3cr3t"), "\(text)")
            }
            // The public part: only the status.
            let open = try await client.get("/health")
            #expect(open.status == .ok)
            #expect(open.json?["status"]?.stringValue == "degraded")
            #expect(open.json?["channels"] == nil && open.json?["decisions"] == nil && open.json?["storage"] == nil)
            #expect(!open.text.contains("127.0.0.1"))
            let wrong = try await client.get("/health", headers: [.authorization: "Bearer nope"])
            #expect(wrong.json?["channels"] == nil)
            // The detail, with the token: still redacted.
            let detail = try await client.admin(.get, "/health")
            let entry = detail.json?["channels"]?.arrayValue?.first { $0["id"]?.stringValue == "secret" }
            #expect(entry?["state"]?.stringValue == "unreachable")
            #expect(entry?["upstream"]?.stringValue == "http://REDACTED@127.0.0.1:\(port)/live/main.m3u8?REDACTED")
            #expect(!detail.text.contains("pa55word") && !detail.text.contains("s3cr3t"), "\(detail.text)")
            #expect(detail.json?["decisions"]?.intValue == 0)
            #expect(detail.json?["storage"]?["state"]?.stringValue == "ok")
        }
    }

    /// One request for a rendition the upstream does not have is that client's 502, not the
    /// channel's trouble: `/health` stays ok.
    @Test(.timeLimit(.minutes(1))) func aMissingRenditionDoesNotMakeTheChannelDegraded() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try write(
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PROGRAM-DATE-TIME:2025-01-01T00:00:00.000Z\n#EXTINF:2.0,\ns0.ts\n",
            to: folder + "/up/live.m3u8"
        )
        let origin = try #require(await PageServer(directory: URL(fileURLWithPath: folder)))
        defer { origin.stop() }
        var configuration = try demoConfiguration(clock: ManualWallClock(t0 + 2))
        configuration.adInsertion.channels.append(
            LiveChannel(id: "up", source: .upstream("http://127.0.0.1:\(origin.port)/up/live.m3u8"))
        )
        try await withServer(configuration) { client in
            #expect(try await client.get("/live/up/live.m3u8").status == .ok)
            let missing = try await client.get("/live/up/nonexistent-rendition.m3u8")
            #expect(missing.status == .badGateway)
            #expect(try await client.get("/health").json?["status"]?.stringValue == "ok")
            let detail = try await client.admin(.get, "/health")
            #expect(
                detail.json?["channels"]?.arrayValue?.first { $0["id"]?.stringValue == "up" }?["state"]?.stringValue
                    == "ok"
            )
        }
    }
}

@Suite(.realTime) struct AssetListOffsetTests {
    let base = "/v1/asset-lists/live-demo/auto-0.json?_HLS_interstitial_id=auto-0"

    /// The answer always spans the whole break; the offset only puts the valuable ads where the
    /// viewer will see them, and the stored answer does not change with later offsets.
    @Test(.timeLimit(.minutes(1))) func aLateJoinerGetsTheWholeBreakAndKeepsIt() async throws {
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0 + 132))) { client in
            let late = try await client.get(self.base + "&_HLS_primary_id=late&_HLS_start_offset=12")
            #expect(late.status == .ok)
            #expect(late.headers[HTTPField.Name("X-Intermission-Decision")!] == "stored")
            let list = try AssetList.decode(late.bytes)
            #expect(list.totalDuration == 20)
            // Red (worth 3) plays from 10 s to 20 s, where a viewer joining at 12 s sees it.
            #expect(late.creatives == ["green", "red"])
            for offset in ["", "&_HLS_start_offset=0", "&_HLS_start_offset=19.5", "&_HLS_start_offset=3"] {
                let again = try await client.get(self.base + "&_HLS_primary_id=late" + offset)
                #expect(again.bytes == late.bytes)
            }
            let fromStart = try await client.get(self.base + "&_HLS_primary_id=early")
            #expect(fromStart.creatives == ["red", "green"])
            // A VOD seek into a replaced span: the same rule.
            let seek = try await client.get(
                "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_primary_id=seeker&_HLS_start_offset=15"
            )
            #expect(seek.creatives == ["green", "red"])
            #expect(try AssetList.decode(seek.bytes).totalDuration == 20)
            // Past the break's end: accepted, the same whole-break answer.
            let past = try await client.get(self.base + "&_HLS_primary_id=past&_HLS_start_offset=25")
            #expect(past.status == .ok && past.creatives == ["green", "red"])
        }
    }

    /// Anonymous requests share an answer per break and "joined late or not", are not stored, and
    /// one late anonymous request does not change the pod of the others.
    @Test(.timeLimit(.minutes(1))) func anonymousRequestsAreNotStoredAndDoNotSteerEachOther() async throws {
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0 + 110))) { client in
            let late = try await client.get(self.base + "&_HLS_start_offset=19.5")
            #expect(late.status == .ok)
            #expect(late.headers[HTTPField.Name("X-Intermission-Decision")!] == "anonymous")
            #expect(late.creatives == ["green", "red"])
            for _ in 0..<3 {
                let plain = try await client.get(self.base)
                #expect(plain.creatives == ["red", "green"])
            }
            // No frequency capping for anonymous requests: the next break starts with red again.
            #expect(try await client.get("/v1/asset-lists/live-demo/auto-1.json").creatives == ["red", "green"])
            #expect(try await client.admin(.get, "/health").json?["decisions"]?.intValue == 0)
            // A session header names a viewer.
            let session = try await client.get(self.base, headers: [HTTPField.Name("X-Playback-Session-Id")!: "S1"])
            #expect(session.headers[HTTPField.Name("X-Intermission-Decision")!] == "stored")
            #expect(try await client.admin(.get, "/health").json?["decisions"]?.intValue == 1)
        }
    }

    /// `_HLS_start_offset` is a plain decimal from 0 to 3600: anything else is a 400 that names it,
    /// and nothing traps.
    // Three minutes: a hang guard, not a speed claim; beside every other suite and two builds
    // (load 7 on two cores) this many loopback requests have taken more than one.
    @Test(.timeLimit(.minutes(3))) func startOffsetsOutOfRangeAre400() async throws {
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0 + 110))) { client in
            let refused = [
                "9223372037", "9223372036.9", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                "1e308", "1e3", "1E2", "1e-300", "NaN", "nan", "inf", "-inf", "Infinity", "-0", "-1", "+1", "0x10",
                "0b1", String(repeating: "9", count: 40), "1" + String(repeating: "0", count: 39) + ".5", "", ".5",
                "1.", "1.5.5", "%201", "1%20",
                "%00", "1%00", "3600.000000001", "3601", "86400", "00000000000000000012",
                "1." + String(repeating: "0", count: 31), String(repeating: "1", count: 4_000), "%2e%2e",
                "%D9%A1%D9%A2",
            ]
            for value in refused {
                let response = try await client.get(self.base + "&_HLS_primary_id=p&_HLS_start_offset=" + value)
                #expect(response.status == .badRequest, "\(value.prefix(50))")
                #expect(
                    response.json?["error"]?["message"]?.stringValue?.contains("_HLS_start_offset") == true,
                    "\(value.prefix(50))"
                )
            }
            let accepted = [
                "0", "0012", "19.5", "0.000000001", "12.0000000009", "3600", "3600.000",
                "19.5" + String(repeating: "0", count: 29),
            ]
            for (k, value) in accepted.enumerated() {
                let response = try await client.get(self.base + "&_HLS_primary_id=ok\(k)&_HLS_start_offset=" + value)
                #expect(response.status == .ok, "\(value)")
                #expect(try AssetList.decode(response.bytes).totalDuration == 20, "\(value)")
            }
            // The server is still up.
            #expect(try await client.get("/live/demo/prog.m3u8").status == .ok)
        }
    }

    /// Asset-list URIs never come from the request's Host: the public base URL when set, else the
    /// address the server is bound to.
    @Test(.timeLimit(.minutes(1))) func assetListURIsIgnoreTheHostHeader() async throws {
        var bound = try demoConfiguration(clock: ManualWallClock(t0 + 110))
        bound.hostname = "127.0.0.1"
        var behindProxy = try demoConfiguration(clock: ManualWallClock(t0 + 110))
        behindProxy.publicBaseURL = "https://ads.example.com"
        // Bound to every interface: no address to name, so URIs stay path-absolute.
        var wildcard = try demoConfiguration(clock: ManualWallClock(t0 + 110))
        wildcard.hostname = "0.0.0.0"
        for (configuration, prefix) in [
            (bound, "http://127.0.0.1:PORT"), (behindProxy, "https://ads.example.com"), (wildcard, ""),
        ] {
            try await withServer(configuration) { client in
                let port = try #require(client.port)
                let body = try await rawGET(
                    port: port,
                    path: self.base + "&_HLS_primary_id=h",
                    host: "attacker.example"
                )
                let uris = try AssetList.decode(body).assets.map(\.uri)
                let base = prefix.replacingOccurrences(of: "PORT", with: "\(port)")
                #expect(uris == [base + "/media/demo/ad-red/main.m3u8", base + "/media/demo/ad-green/main.m3u8"])
            }
        }
    }
}

@Suite(.serialized, .realTime) struct StorageFaultTests {
    static let decision = HTTPField.Name("X-Intermission-Decision")!

    static func ask(_ client: any TestClientProtocol, viewer: String) async throws -> TestResponse {
        try await client.get("/v1/asset-lists/vod-demo/midroll-1.json?_HLS_primary_id=\(viewer)")
    }

    /// The answer when a write fails: at once, an empty pod, marked as not stored.
    static func expectFallback(_ response: TestResponse, _ comment: Comment? = nil) {
        #expect(response.status == .ok, comment)
        #expect(response.headers[Self.decision] == "not-stored", comment)
        #expect(response.json?["ASSETS"]?.arrayValue?.isEmpty == true, comment)
        #expect(response.json?["X-INTERMISSION-STORED"] == JSONValue.bool(false), comment)
    }

    /// A full disk (`PRAGMA max_page_count`): decisions that cannot be written get the fallback,
    /// `/health` turns degraded, `/metrics` counts SQLite code 13, and every decision acknowledged
    /// before is there after a restart while none of the others is.
    @Test(.timeLimit(.minutes(1))) func aFullDiskGivesTheFallbackAndLosesNothingAcknowledged() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/full.sqlite"
        let store = try SQLiteAdStore(path: path)
        try await store.migrate()
        #expect(try await store.limitSize(pages: try await store.pageCount()) > 0)
        var configuration = try demoConfiguration(clock: ManualWallClock(t0 + 110))
        configuration.openedStore = store
        let (stored, refused) = try await withServer(configuration) { client in
            var stored: [String: [UInt8]] = [:]
            var refused: [String] = []
            for k in 0..<400 where refused.count < 3 {
                let viewer = "viewer-\(k)-" + String(repeating: "x", count: 150)
                let response = try await Self.ask(client, viewer: viewer)
                if response.headers[Self.decision] == "stored" {
                    #expect(refused.isEmpty, "a decision was stored after the disk was full")
                    stored[viewer] = response.bytes
                } else {
                    Self.expectFallback(response, "\(viewer)")
                    refused.append(viewer)
                }
            }
            #expect(refused.count == 3, "the disk never filled")
            #expect(try await client.get("/health").json?["status"]?.stringValue == "degraded")
            let detail = try await client.admin(.get, "/health")
            #expect(detail.json?["storage"]?["state"]?.stringValue == "failing")
            #expect(
                detail.json?["storage"]?["message"]?.stringValue?.contains("SQLite error 13") == true,
                "\(detail.text)"
            )
            let metrics = try await client.get("/metrics").text
            #expect(
                metrics.contains(#"intermission_storage_failures_total{operation="decision",code="13"} 3"#),
                "\(metrics)"
            )
            #expect(metrics.contains(#"intermission_decisions_total{scope="vod",result="fallback"} 3"#))
            return (stored, refused)
        }
        #expect(stored.count > 3)
        // Every acknowledged answer is in the file, none of the refused ones.
        let reopened = try SQLiteAdStore(path: path)
        for (viewer, bytes) in stored {
            let kept = try await reopened.decision(
                for: DecisionKey(viewer: viewer, scope: "vod-demo", breakID: "midroll-1")
            )
            #expect(kept?.assets.map(\.creativeID) == ["red", "green"])
            #expect(try AssetList.decode(bytes).assets.count == 2)
        }
        for viewer in refused {
            let kept = try await reopened.decision(
                for: DecisionKey(viewer: viewer, scope: "vod-demo", breakID: "midroll-1")
            )
            #expect(kept == nil)
        }
        #expect(try await reopened.decisionCount() == stored.count)
        try await reopened.close()
    }

    /// A database file that cannot be written (immutable): the server starts, answers with the
    /// fallback, and says why.
    @Test(.timeLimit(.minutes(1))) func aReadOnlyFileGivesTheFallback() async throws {
        let folder = try makeScratchFolder()
        let path = folder + "/readonly.sqlite"
        let first = try SQLiteAdStore(path: path)
        try await first.migrate()
        try await first.close()
        // Root writes through mode bits; the immutable attribute stops it too.
        let root = getuid() == 0
        if root {
            let chattr = try await runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["chattr", "+i", path])
            try #require(chattr.status == 0, "chattr +i is needed to make the file read-only for root")
        } else {
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        }
        // Cleans up after the test (awaited, so not in a `defer`): the immutable file cannot be removed.
        func cleanUp() async {
            if root { _ = try? await runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["chattr", "-i", path]) }
            try? FileManager.default.removeItem(atPath: folder)
        }
        do {
            try await withServer(try demoConfiguration(clock: ManualWallClock(t0 + 110), database: "sqlite:" + path)) {
                client in
                Self.expectFallback(try await Self.ask(client, viewer: "reader"))
                #expect(try await client.get("/health").json?["status"]?.stringValue == "degraded")
                let detail = try await client.admin(.get, "/health")
                #expect(
                    detail.json?["storage"]?["message"]?.stringValue?.contains("SQLite error 8") == true,
                    "\(detail.text)"
                )
                #expect(
                    try await client.get("/metrics").text.contains(
                        #"intermission_storage_failures_total{operation="decision",code="8"} 1"#
                    )
                )
            }
        } catch {
            await cleanUp()
            throw error
        }
        await cleanUp()
    }

    /// The database file moved away (and back), then unlinked: the server notices by device and
    /// inode, stops acknowledging while the path is not its file, and starts again when it is back.
    @Test(.timeLimit(.minutes(1))) func aMovedOrUnlinkedFileStopsAcknowledgementsUntilItIsBack() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/moved.sqlite"
        let aside = folder + "/aside.sqlite"
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0 + 110), database: "sqlite:" + path)) {
            client in
            let before = try await Self.ask(client, viewer: "before")
            #expect(before.headers[Self.decision] == "stored")
            try FileManager.default.moveItem(atPath: path, toPath: aside)
            Self.expectFallback(try await Self.ask(client, viewer: "while-moved"))
            // A question answered earlier is not acknowledged again either.
            Self.expectFallback(try await Self.ask(client, viewer: "before"))
            #expect(try await client.get("/health").json?["status"]?.stringValue == "degraded")
            let detail = try await client.admin(.get, "/health")
            #expect(detail.json?["storage"]?["state"]?.stringValue == "unavailable")
            #expect(detail.json?["storage"]?["message"]?.stringValue?.contains("was removed") == true)
            // A file of the same name is not the same file.
            try Data("not a database".utf8).write(to: URL(fileURLWithPath: path))
            Self.expectFallback(try await Self.ask(client, viewer: "while-replaced"))
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.moveItem(atPath: aside, toPath: path)
            let after = try await Self.ask(client, viewer: "after")
            #expect(after.headers[Self.decision] == "stored")
            #expect(try await Self.ask(client, viewer: "before").bytes == before.bytes)
            #expect(try await client.get("/health").json?["status"]?.stringValue == "ok")
            try FileManager.default.removeItem(atPath: path)
            Self.expectFallback(try await Self.ask(client, viewer: "unlinked"))
            #expect(try await client.get("/health").json?["status"]?.stringValue == "degraded")
            #expect(
                try await client.get("/metrics").text.contains(
                    #"intermission_storage_failures_total{operation="decision",code="file"} 4"#
                )
            )
        }
    }
}
