import AsyncHTTPClient
import Foundation
import HTTPFetch
import IntermissionTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite(.serialized, .realTime) struct BoundedFetchTests {
    // Deadlines of the answers these tests expect are 30 s: a loopback server answers in
    // milliseconds, but a busy machine running every suite at once has kept one waiting over 5 s.
    static let client = BoundedFetch.makeClient(connectTimeout: .seconds(30))
    var fetch: BoundedFetch { BoundedFetch(client: Self.client) }

    @Test func returnsTheBodyAndSendsTheHeaders() async throws {
        let server = try RawServer { head in
            let agent = head.contains("User-Agent: test/1") ? "yes" : "no"
            return [(0, RawServer.response("200 OK", Array("#EXTM3U\nagent=\(agent)\n".utf8)))]
        }
        defer { server.stop() }
        let response = try await self.fetch.get(
            FetchRequest(
                url: server.base + "/a.m3u8",
                headers: [("User-Agent", "test/1")],
                timeout: .seconds(30),
                maximumBodySize: 1024
            )
        )
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "#EXTM3U\nagent=yes\n")
        #expect(response.byteCount == 18)
        #expect(response.headers.contains { $0.name.lowercased() == "content-length" && $0.value == "18" })
    }

    @Test func statusOutsideTheAcceptedRangeIsAnError() async throws {
        let server = try RawServer { _ in [(0, RawServer.response("404 Not Found", Array("gone".utf8)))] }
        defer { server.stop() }
        let url = server.base + "/missing.m3u8"
        do {
            _ = try await self.fetch.get(FetchRequest(url: url, timeout: .seconds(30), maximumBodySize: 1024))
            Issue.record("a 404 was accepted")
        } catch {
            #expect(error.code == .httpStatus)
            #expect(error.status == 404)
            #expect(error.message == "\(url): HTTP 404 Not Found")
            #expect(error.url == url)
        }
        // With no accepted range, the status is the caller's to judge.
        let any = try await self.fetch.get(
            FetchRequest(url: url, timeout: .seconds(30), maximumBodySize: 1024, acceptedStatuses: nil)
        )
        #expect(any.status == 404 && any.body == Array("gone".utf8))
    }

    @Test func bodyOneByteOverTheLimitIsRefusedAndAtTheLimitIsNot() async throws {
        let body = [UInt8](repeating: 0x41, count: 1000)
        // A chunked body with no length declared: 1000 bytes in ten parts, counted as they arrive.
        let liar = try RawServer { _ in
            [(0, Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n".utf8))]
                + (0..<10).map { _ in (5, Array("64\r\n".utf8) + Array(body[0..<100]) + Array("\r\n".utf8)) }
                + [(0, Array("0\r\n\r\n".utf8))]
        }
        defer { liar.stop() }
        for (limit, fits) in [(999, false), (1000, true)] {
            do {
                let response = try await self.fetch.get(
                    FetchRequest(url: liar.base + "/x", timeout: .seconds(30), maximumBodySize: limit)
                )
                #expect(fits, "limit \(limit)")
                #expect(response.body.count == 1000)
            } catch {
                #expect(!fits, "limit \(limit): \(error)")
                #expect(error.code == .bodyTooLarge)
                #expect(error.message.hasSuffix("is larger than 999 bytes"))
            }
        }
        // A Content-Length over the limit is refused before the body is read.
        let declared = try RawServer { _ in
            [(0, Array("HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807\r\n\r\n".utf8))]
        }
        defer { declared.stop() }
        await #expect(throws: FetchError.self) {
            _ = try await self.fetch.get(
                FetchRequest(url: declared.base + "/x", timeout: .seconds(30), maximumBodySize: 1 << 20)
            )
        }
    }

    @Test func theDeadlineRunsOnTheClockGiven() async throws {
        let server = try HoldingServer()
        defer { server.stop() }
        let clock = ManualClock()
        let fetch = BoundedFetch(client: Self.client, clock: clock)
        let url = server.base + "/held"
        let outcome = Task { () -> FetchError? in
            do throws(FetchError) {
                _ = try await fetch.get(FetchRequest(url: url, timeout: .seconds(20), maximumBodySize: 1024))
                return nil
            } catch {
                return error
            }
        }
        // The race's timer sleeps on the clock given, until the deadline.
        #expect(await waitUntil { clock.deadlines == [ManualClock.Instant(offset: .seconds(20))] })
        clock.advance(by: .seconds(19))
        #expect(clock.sleeperCount == 1, "the deadline passed early")
        clock.advance(by: .seconds(1))
        // The fetch fails as soon as the clock passes the deadline: no 20 s of real time go by.
        let error = try await withDeadline(.seconds(10)) { await outcome.value }
        #expect(error??.code == .timeout)
        #expect(error??.message == "no answer from \(url) within 20 s")
    }

    @Test func oneDeadlineCoversASlowBody() async throws {
        // Headers at once, then a body trickling for 3 s: a 0.5 s deadline ends it.
        let server = try RawServer { _ in
            [(0, Array("HTTP/1.1 200 OK\r\nContent-Length: 30\r\n\r\n".utf8))] + (0..<30).map { _ in (100, [0x41]) }
        }
        defer { server.stop() }
        let url = server.base + "/slow"
        let started = ContinuousClock.now
        do {
            _ = try await self.fetch.get(FetchRequest(url: url, timeout: .milliseconds(500), maximumBodySize: 1024))
            Issue.record("the slow body was accepted")
        } catch {
            #expect(error.code == .timeout)
            #expect(error.message == "no answer from \(url) within 0.5 s")
        }
        #expect(ContinuousClock.now - started < .seconds(2.5))
    }

    @Test func refusedConnectionIsSaidInWords() async throws {
        do {
            _ = try await self.fetch.get(
                FetchRequest(url: "http://127.0.0.1:1/a.m3u8", timeout: .seconds(30), maximumBodySize: 1024)
            )
            Issue.record("a refused connection succeeded")
        } catch {
            #expect(error.code == .transport)
            #expect(error.message == "cannot connect to 127.0.0.1:1: connection refused")
        }
    }

    @Test(arguments: ["ftp://example.com/a", "file:///etc/passwd", "", "127.0.0.1/a", "javascript:1", "http:/x"])
    func onlyHTTPURLsAreRequested(_ url: String) async {
        do {
            _ = try await self.fetch.get(FetchRequest(url: url, timeout: .seconds(1), maximumBodySize: 10))
            Issue.record("\(url) was requested")
        } catch {
            #expect(error.code == .invalidURL || error.code == .transport, "\(url): \(error)")
        }
    }

    @Test func inspectionRefusesABodyFromItsHead() async throws {
        // The head is wrong at once; the rest would take 5 s to arrive.
        let server = try RawServer { _ in
            [(0, Array("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n<html>".utf8))] + [
                (5000, [UInt8](repeating: 0x20, count: 994))
            ]
        }
        defer { server.stop() }
        let started = ContinuousClock.now
        do {
            _ = try await self.fetch.get(
                FetchRequest(url: server.base + "/page", timeout: .seconds(10), maximumBodySize: 4096)
            ) { body, _ in
                body.starts(with: Array("#EXTM3U".utf8.prefix(body.count))) ? nil : "not a playlist"
            }
            Issue.record("the page was accepted")
        } catch {
            #expect(error.code == .refused)
            #expect(error.message == "not a playlist")
            #expect(error.status == 200)
        }
        #expect(ContinuousClock.now - started < .seconds(4))
    }

    @Test func shownURLHidesSecretsInMessages() async throws {
        let server = try RawServer { _ in [(0, RawServer.response("500 Internal Server Error", []))] }
        defer { server.stop() }
        let secret = server.base + "/p.m3u8?token=s3cret"
        do {
            _ = try await self.fetch.get(
                FetchRequest(url: secret, shownURL: server.base + "/p.m3u8", timeout: .seconds(30), maximumBodySize: 10)
            )
            Issue.record("a 500 was accepted")
        } catch {
            #expect(!error.message.contains("s3cret") && !error.url.contains("s3cret"))
            #expect(error.message == "\(server.base)/p.m3u8: HTTP 500 Internal Server Error")
        }
    }

    @Test(arguments: [Duration.zero, .nanoseconds(-1), .seconds(Int64.max), .seconds(Int64.min)])
    func deadlinesOutsideTheRangeAreClamped(_ timeout: Duration) async throws {
        let server = try RawServer { _ in [(0, RawServer.response("200 OK", Array("ok".utf8)))] }
        defer { server.stop() }
        // Clamped to 1 ms … 1 h: the fetch either answers or times out, and never traps.
        do {
            let response = try await self.fetch.get(
                FetchRequest(url: server.base + "/", timeout: timeout, maximumBodySize: 10)
            )
            #expect(response.body == Array("ok".utf8))
        } catch {
            #expect(error.code == .timeout, "\(timeout): \(error)")
        }
    }
}
