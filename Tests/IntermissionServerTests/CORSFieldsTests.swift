import AdInsertion
import HLSPlaylist
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntermissionTestSupport
import Testing

@testable import IntermissionServer

/// Every answer outside the admin API carries the same CORS fields, whether the router made it
/// (through the middleware) or a cache answered it before routing; admin answers carry none.
@Suite(.realTime) struct CORSFieldsTests {
    @Test(.timeLimit(.minutes(1))) func routedAndEventLoopAnswersCarryTheSameFields() async throws {
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0 + 30))) { client in
            let expose = HTTPField.Name("Access-Control-Expose-Headers")!
            let paths = [
                "/vod/demo/main.m3u8", "/media/demo/primary/seg-000.ts",
                "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_primary_id=cors-viewer",
            ]
            for path in paths {
                // The first is routed; the next two are answered from a fresh entry or a
                // remembered decision, before routing.
                for attempt in 0..<3 {
                    let response = try await client.get(path)
                    #expect(response.status == .ok, "\(path) #\(attempt)")
                    #expect(response.headers[.accessControlAllowOrigin] == "*", "\(path) #\(attempt)")
                    #expect(
                        response.headers[expose]
                            == "Content-Length, Content-Type, Retry-After, X-Intermission-Decision",
                        "\(path) #\(attempt)"
                    )
                }
            }
            let metrics = String(decoding: try await client.get("/metrics").bytes, as: UTF8.self)
            let answered = metrics.split(separator: "\n").first {
                $0.hasPrefix("intermission_event_loop_answers_total ")
            }
            // At least the asset list's two repeats came from the event loop.
            #expect((answered?.split(separator: " ").last.flatMap { Double($0) } ?? 0) >= 2, "\(answered ?? "none")")
            let admin = try await client.get("/v1/admin/inventory", headers: [.authorization: "Bearer nobody"])
            #expect(admin.headers[.accessControlAllowOrigin] == nil)
        }
    }
}
