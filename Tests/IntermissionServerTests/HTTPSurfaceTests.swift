import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import IntermissionHTTP
import IntermissionTestSupport
import NIOCore
import Testing

@testable import IntermissionServer

/// Admin bodies: every number and ID in its documented range, or a 400 naming the field.
@Suite(.realTime) struct AdminInputTests {
    static let badBreaks: [(json: String, field: String)] = [
        (#"{"startIn": 1e300, "duration": 30}"#, "startIn"),
        (#"{"startIn": -1, "duration": 30}"#, "startIn"),
        (#"{"startIn": 2592001, "duration": 30}"#, "startIn"),
        (#"{"startIn": 9223372037, "duration": 30}"#, "startIn"),
        (#"{"duration": 1e-300}"#, "duration"),
        (#"{"duration": 0}"#, "duration"),
        (#"{"duration": -0.0}"#, "duration"),
        (#"{"duration": 0.0009}"#, "duration"),
        (#"{"duration": 3600.001}"#, "duration"),
        (#"{"duration": 1e308}"#, "duration"),
        (#"{"duration": -1e308}"#, "duration"),
        (#"{"duration": 1234567890123456789012345678901234567890}"#, "duration"),
        (#"{"duration": 9223372036.854775807}"#, "duration"),
        (#"{"duration": 30, "resumeOffset": -1e300}"#, "resumeOffset"),
        (#"{"duration": 30, "resumeOffset": 1e300}"#, "resumeOffset"),
        (#"{"duration": 30, "resumeOffset": -3600.5}"#, "resumeOffset"),
        (#"{"duration": 30, "id": "\#(String(repeating: "a", count: 5000))"}"#, "id"),
        (#"{"duration": 30, "id": "\#(String(repeating: "a", count: 65))"}"#, "id"),
        (#"{"duration": 30, "id": "a b"}"#, "id"),
        (#"{"duration": 30, "id": ".."}"#, "id"),
        (#"{"duration": 30, "id": "a\u0000b"}"#, "id"),
        (#"{"duration": 30, "start": "1734-01-01T00:00:00Z"}"#, "start"),
        (#"{"duration": 30, "start": "2300-01-01T00:00:00Z"}"#, "start"),
        (#"{"duration": 30, "start": "\#(String(repeating: "9", count: 100))"}"#, "start"),
        (#"{"duration": 30, "cue": ["PRE", "PRE"]}"#, "cue"),
        (#"{"duration": 30, "restrictions": ["SKIP", "NONE"]}"#, "restrictions"),
        (#"{"duration": 30, "snap": ["SIDEWAYS"]}"#, "snap"),
    ]

    // Three minutes: a hang guard, not a speed claim; beside every other suite and two builds
    // (load 7 on two cores) this many loopback requests have taken more than one.
    @Test(.timeLimit(.minutes(3))) func breakFieldsOutsideTheirRangesAre400NamingTheField() async throws {
        let clock = ManualWallClock(t0 + 30)
        try await withServer(try demoConfiguration(clock: clock)) { client in
            for (json, field) in Self.badBreaks {
                let response = try await client.admin(.post, "/v1/admin/channels/demo/breaks", json: json)
                #expect(response.status == .badRequest, "\(json.prefix(80))")
                #expect(
                    response.json?["error"]?["field"]?.stringValue == field,
                    "\(json.prefix(80)): \(response.text.prefix(300))"
                )
                #expect(
                    response.json?["error"]?["message"]?.stringValue?.hasPrefix(field + " ") == true,
                    "\(response.text.prefix(300))"
                )
                #expect(response.bytes.count < 1000, "the answer echoes the input back")
            }
            // Nothing was created, and no playlist ever says DURATION=0.
            let listing = try await client.admin(.get, "/v1/admin/channels/demo/breaks")
            #expect(listing.json?["breaks"]?.arrayValue?.allSatisfy { $0["origin"]?.stringValue != "admin" } == true)
            let playlist = try await client.get("/live/demo/prog.m3u8")
            #expect(!playlist.text.contains("DURATION=0,") && !playlist.text.contains("X-RESUME-OFFSET=-9"))

            // The edges of the ranges are accepted.
            let edges = try await client.admin(
                .post,
                "/v1/admin/channels/demo/breaks",
                json:
                    #"{"id": "\#(String(repeating: "e", count: 64))", "startIn": 0, "duration": 0.001, "resumeOffset": -3600}"#
            )
            #expect(edges.status == .created, "\(edges.text)")
            #expect(edges.json?["duration"]?.doubleValue == 0.001)
            #expect(edges.json?["resumeOffset"]?.doubleValue == -3600)
            let longest = try await client.admin(
                .post,
                "/v1/admin/channels/demo/breaks",
                json: #"{"id": "long", "startIn": 2592000, "duration": 3600}"#
            )
            #expect(longest.status == .created, "\(longest.text)")
            #expect(longest.json?["startDate"]?.stringValue == "2025-01-31T00:00:30.000Z")
        }
    }

    @Test(.timeLimit(.minutes(1))) func earlyReturnAndPathIDsAreChecked() async throws {
        let clock = ManualWallClock(t0 + 30)
        try await withServer(try demoConfiguration(clock: clock)) { client in
            let created = try await client.admin(
                .post,
                "/v1/admin/channels/demo/breaks",
                json: #"{"id": "news", "startIn": 10, "duration": 30}"#
            )
            #expect(created.status == .created)
            for after in ["1e300", "-1e300", "0", "1e-300", "3600.5"] {
                let response = try await client.admin(
                    .post,
                    "/v1/admin/channels/demo/breaks/news/early-return",
                    json: #"{"after": \#(after)}"#
                )
                #expect(response.status == .badRequest, "after \(after)")
                #expect(response.json?["error"]?["field"]?.stringValue == "after")
            }
            // A date far before the break is a conflict, not an overflow.
            let early = try await client.admin(
                .post,
                "/v1/admin/channels/demo/breaks/news/early-return",
                json: #"{"at": "1677-09-22T00:00:00Z"}"#
            )
            #expect(early.status == .conflict)
            let long = String(repeating: "b", count: 5000)
            let delete = try await client.admin(.delete, "/v1/admin/channels/demo/breaks/\(long)")
            #expect(delete.status == .badRequest)
            #expect(delete.json?["error"]?["field"]?.stringValue == "id")
            let inventory = try await client.admin(.delete, "/v1/admin/inventory/\(long)")
            #expect(inventory.json?["error"]?["field"]?.stringValue == "id")
            // The server answers after all of these.
            #expect(try await client.get("/live/demo/prog.m3u8").status == .ok)
        }
    }

    static let badCreatives: [(json: String, field: String)] = [
        (#"{"id": "x", "uri": "//evil.example/a.m3u8", "duration": 10, "value": 1}"#, "uri"),
        (#"{"id": "x", "uri": "javascript:alert(1)", "duration": 10, "value": 1}"#, "uri"),
        (#"{"id": "x", "uri": "file:///etc/passwd", "duration": 10, "value": 1}"#, "uri"),
        (#"{"id": "x", "uri": "http:///a.m3u8", "duration": 10, "value": 1}"#, "uri"),
        (#"{"id": "x", "uri": "https://user:pw@cdn.example/a.m3u8", "duration": 10, "value": 1}"#, "uri"),
        (#"{"id": "x", "uri": "/media/a b.m3u8", "duration": 10, "value": 1}"#, "uri"),
        (#"{"id": "x", "uri": "/media/a\\b.m3u8", "duration": 10, "value": 1}"#, "uri"),
        (#"{"id": "x", "uri": "", "duration": 10, "value": 1}"#, "uri"),
        (#"{"id": "x", "uri": "/\#(String(repeating: "a", count: 3000))", "duration": 10, "value": 1}"#, "uri"),
        (#"{"id": "x", "uri": "/a.m3u8", "duration": 1e-300, "value": 1}"#, "duration"),
        (#"{"id": "x", "uri": "/a.m3u8", "duration": 1e300, "value": 1}"#, "duration"),
        (#"{"id": "x", "uri": "/a.m3u8", "duration": 10, "value": 1e300}"#, "value"),
        (#"{"id": "x", "uri": "/a.m3u8", "duration": 10, "value": -1}"#, "value"),
        (#"{"id": "\#(String(repeating: "i", count: 5000))", "uri": "/a.m3u8", "duration": 10, "value": 1}"#, "id"),
    ]

    @Test(.timeLimit(.minutes(1))) func inventoryRefusesURIsThatAreNotPathsOrHTTP() async throws {
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0))) { client in
            for (json, field) in Self.badCreatives {
                let response = try await client.admin(.post, "/v1/admin/inventory", json: json)
                #expect(response.status == .badRequest, "\(json.prefix(80))")
                #expect(
                    response.json?["error"]?["field"]?.stringValue == field,
                    "\(json.prefix(80)): \(response.text.prefix(200))"
                )
            }
            let creatives = try await client.admin(.get, "/v1/admin/inventory")
            #expect(creatives.json?["creatives"]?.arrayValue?.count == 5)
            for uri in [
                "https://cdn.example/ad.m3u8", "HTTP://cdn.example:8080/ad.m3u8?x=1", "/media/demo/ad-red/main.m3u8",
            ] {
                let response = try await client.admin(
                    .post,
                    "/v1/admin/inventory",
                    json: #"{"id": "ok", "uri": "\#(uri)", "duration": 10, "value": 0}"#
                )
                #expect(response.status == .created, "\(uri): \(response.text)")
            }
        }
    }

    @Test(.timeLimit(.minutes(1))) func anAdminBodyOver64KiBIs413() async throws {
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0))) { client in
            let padding = String(repeating: " ", count: 70_000)
            let response = try await client.admin(
                .post,
                "/v1/admin/inventory",
                json: #"{"id": "x", "uri": "/a.m3u8", "duration": 10, "value": 1}"# + padding
            )
            #expect(response.status == .contentTooLarge)
            #expect(response.json?["error"]?["code"]?.stringValue == "tooLarge")
        }
    }
}

/// Asset-list inputs are checked before any lookup.
@Suite(.realTime) struct AssetListInputTests {
    @Test func startOffsetIsPlainDecimalSecondsUpToAnHour() throws {
        #expect(try AssetListController.startOffset("12.5") == MediaTime(milliseconds: 12_500))
        #expect(try AssetListController.startOffset("0") == .zero)
        #expect(try AssetListController.startOffset("3600") == MediaTime(seconds: 3600))
        #expect(try AssetListController.startOffset("4.000000000000001") == MediaTime(seconds: 4))
        #expect(try AssetListController.startOffset("0.0000000015") == MediaTime(nanoseconds: 2))
        let refused = [
            "-0", "-1", "+1", "3600.000000001", "1e3", "0x10", "", ".5", "5.", "9223372037", "9223372036.9", "inf",
            "NaN", "1.2.3",
            "1 ", "12345", "1." + String(repeating: "0", count: 31), String(repeating: "9", count: 40),
        ]
        for text in refused {
            #expect(throws: InputLimitError.self, "\(text.prefix(40))") { try AssetListController.startOffset(text) }
        }
    }

    @Test(.timeLimit(.minutes(1))) func badAssetListInputsAre400NamingTheField() async throws {
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0 + 30))) { client in
            let cases: [(String, String)] = [
                ("/v1/asset-lists/vod-demo/preroll.json?_HLS_start_offset=9223372037", "_HLS_start_offset"),
                ("/v1/asset-lists/vod-demo/preroll.json?_HLS_start_offset=9223372036.9", "_HLS_start_offset"),
                ("/v1/asset-lists/vod-demo/preroll.json?_HLS_start_offset=1e308", "_HLS_start_offset"),
                (
                    "/v1/asset-lists/vod-demo/preroll.json?_HLS_primary_id=\(String(repeating: "v", count: 201))",
                    "_HLS_primary_id"
                ),
                ("/v1/asset-lists/vod-demo/preroll.json?_HLS_primary_id=a%00b", "_HLS_primary_id"),
                (
                    "/v1/asset-lists/vod-demo/preroll.json?_HLS_interstitial_id=\(String(repeating: "i", count: 65))",
                    "_HLS_interstitial_id"
                ),
                ("/v1/asset-lists/live-demo/\(String(repeating: "b", count: 5000)).json", "break"),
                ("/v1/asset-lists/vod-\(String(repeating: "s", count: 100)).json/x.json", "scope"),
            ]
            for (uri, field) in cases {
                let response = try await client.get(uri)
                #expect(response.status == .badRequest, "\(uri.prefix(80))")
                #expect(
                    response.json?["error"]?["field"]?.stringValue == field,
                    "\(uri.prefix(80)): \(response.text.prefix(200))"
                )
            }
            let fine = try await client.get(
                "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_primary_id=v&_HLS_start_offset=4.000000000000001"
            )
            #expect(fine.status == .ok)
        }
    }
}

/// HEAD, 405 with Allow, and errors raised before routing (414, 431, 400), all with a JSON body.
@Suite(.realTime) struct HTTPConformanceTests {
    @Test(.timeLimit(.minutes(1))) func headAnswersEveryGetRouteWithTheSameHeadersAndNoBody() async throws {
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0 + 100))) { client in
            let port = try #require(client.port)
            let auth = "Authorization: Bearer secret\r\n"
            let routes: [(path: String, headers: String)] = [
                ("/health", ""),
                ("/vod/demo/main.m3u8", ""),
                ("/vod/demo/prog.m3u8", ""),
                ("/live/demo/prog.m3u8", ""),
                ("/v1/asset-lists/vod-demo/midroll-1.json?_HLS_primary_id=viewer-1", ""),
                ("/media/demo/primary/seg-000.ts", ""),
                ("/media/demo/primary/prog.m3u8", ""),
                ("/v1/admin/channels", auth),
                ("/v1/admin/channels/demo/breaks", auth),
                ("/v1/admin/inventory", auth),
            ]
            for (path, headers) in routes {
                let get = try await rawExchange(
                    port: port,
                    "GET \(path) HTTP/1.1\r\nHost: x\r\n\(headers)Connection: close\r\n\r\n"
                )
                let head = try await rawExchange(
                    port: port,
                    "HEAD \(path) HTTP/1.1\r\nHost: x\r\n\(headers)Connection: close\r\n\r\n"
                )
                #expect(get.status == 200, "GET \(path)")
                #expect(head.status == 200, "HEAD \(path)")
                #expect(head.body.isEmpty, "HEAD \(path) sent a body")
                #expect(head.header("content-type") == get.header("content-type"), "\(path)")
                #expect(head.header("content-length") == String(get.body.count), "\(path)")
                #expect(head.header("cache-control") == get.header("cache-control"), "\(path)")
            }
            let metrics = try await rawExchange(
                port: port,
                "HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            #expect(
                metrics.status == 200 && metrics.body.isEmpty
                    && metrics.header("content-type")?.hasPrefix("text/plain") == true
            )
        }
    }

    @Test(.timeLimit(.minutes(1))) func aWrongMethodGets405WithAllow() async throws {
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0))) { client in
            let port = try #require(client.port)
            let cases: [(request: String, allow: Set<String>)] = [
                ("POST /health HTTP/1.1", ["GET", "HEAD", "OPTIONS"]),
                ("DELETE /vod/demo/main.m3u8 HTTP/1.1", ["GET", "HEAD", "OPTIONS"]),
                ("PUT /live/demo/prog.m3u8 HTTP/1.1", ["GET", "HEAD", "OPTIONS"]),
                ("POST /v1/asset-lists/vod-demo/preroll.json HTTP/1.1", ["GET", "HEAD", "OPTIONS"]),
                ("PUT /media/demo/primary/seg-000.ts HTTP/1.1", ["GET", "HEAD", "OPTIONS"]),
                ("PATCH /metrics HTTP/1.1", ["GET", "HEAD", "OPTIONS"]),
                ("PURGE /health HTTP/1.1", ["GET", "HEAD", "OPTIONS"]),
                ("POST /v1/admin/inventory/red HTTP/1.1", ["DELETE"]),
                ("PUT /v1/admin/channels/demo/breaks HTTP/1.1", ["GET", "HEAD", "POST"]),
                ("GET /v1/admin/channels/demo/breaks/x/early-return HTTP/1.1", ["POST"]),
            ]
            for (line, allow) in cases {
                let response = try await rawExchange(
                    port: port,
                    "\(line)\r\nHost: x\r\nAuthorization: Bearer secret\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                )
                #expect(response.status == 405, "\(line)")
                let allowed = Set(
                    (response.header("allow") ?? "").split(separator: ",").map {
                        $0.trimmingCharacters(in: .whitespaces)
                    }
                )
                #expect(allowed == allow, "\(line): \(response.header("allow") ?? "no Allow")")
                #expect(response.error.status == 405 && response.error.code == "methodNotAllowed", "\(line)")
            }
        }
    }

    @Test(.timeLimit(.minutes(1))) func errorsBeforeRoutingGetTheirStatusAndTheJSONBody() async throws {
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0))) { client in
            let port = try #require(client.port)
            let longTarget = "/vod/demo/" + String(repeating: "a", count: 9000) + ".m3u8"
            let uriTooLong = try await rawExchange(
                port: port,
                "GET \(longTarget) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            #expect(uriTooLong.status == 414)
            #expect(uriTooLong.error.status == 414 && uriTooLong.error.code == "uriTooLong")
            let veryLongTarget = "/" + String(repeating: "a", count: 100_000)
            let uriFarTooLong = try await rawExchange(
                port: port,
                "GET \(veryLongTarget) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            #expect(uriFarTooLong.status == 414)

            let bigField = try await rawExchange(
                port: port,
                "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "b", count: 9000))\r\nConnection: close\r\n\r\n"
            )
            #expect(bigField.status == 431)
            #expect(bigField.error.status == 431 && bigField.error.code == "headersTooLarge")
            #expect(bigField.header("content-type") == "application/json; charset=utf-8")
            let manyFields = (0..<150).map { "X-Field-\($0): v\r\n" }.joined()
            let tooMany = try await rawExchange(
                port: port,
                "GET /health HTTP/1.1\r\nHost: x\r\n\(manyFields)Connection: close\r\n\r\n"
            )
            #expect(tooMany.status == 431)
            let wideFields = (0..<40).map { "X-Wide-\($0): \(String(repeating: "w", count: 1000))\r\n" }.joined()
            let tooWide = try await rawExchange(
                port: port,
                "GET /health HTTP/1.1\r\nHost: x\r\n\(wideFields)Connection: close\r\n\r\n"
            )
            #expect(tooWide.status == 431)
            let hugeField = try await rawExchange(
                port: port,
                "GET /health HTTP/1.1\r\nHost: x\r\nX-Huge: \(String(repeating: "h", count: 100_000))\r\n\r\n"
            )
            #expect(hugeField.status == 431)

            let unknownMethod = try await rawExchange(
                port: port,
                "FROBNICATE /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            #expect(unknownMethod.status == 400)
            #expect(unknownMethod.error.status == 400 && unknownMethod.error.code == "badRequest")
            let garbage = try await rawExchange(port: port, [0x00, 0x01, 0x02, 0x0D, 0x0A, 0x0D, 0x0A])
            #expect(garbage.status == 400 && garbage.error.status == 400)
            let badLength = try await rawExchange(
                port: port,
                "POST /v1/admin/inventory HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"
            )
            #expect(badLength.status == 400 && badLength.error.code == "badRequest")

            // Just under the limits is served.
            let fine = try await rawExchange(
                port: port,
                "GET /health?\(String(repeating: "q", count: 8000)) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            #expect(fine.status == 200)
        }
    }
}

/// Paths are decoded once and checked before anything is opened or forwarded; only media is served
/// from media folders; the admin token and CORS.
@Suite(.realTime) struct PathAndSecretTests {
    @Test(.timeLimit(.minutes(1))) func mediaFoldersServeOnlyMediaWithItsType() async throws {
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0))) { client in
            let port = try #require(client.port)
            let refused = [
                "/media/demo/primary/seg-000.ts%00.html",
                "/media/demo/primary/seg-000.ts%00",
                "/media/demo/.",
                "/media/demo/%2e",
                "/media/demo/%2E%2E/primary/seg-000.ts",
                "/media/demo/primary/%2e%2e/%2e%2e/etc/passwd.ts",
                "/media/demo/primary/../../x.ts",
                "/media/demo/primary%2Fseg-000.ts",
                "/media/demo/primary%5cseg-000.ts",
                "/media/demo/primary/%252e%252e/seg-000.ts",
                "/media/demo/primary/seg-000.ts%",
                "/media/demo/primary/seg%zz.ts",
                "/media/demo/primary/seg%0a.ts",
                "/media/demo//primary/seg-000.ts",
                "/media/demo/primary/%ff.ts",
                // .json is served too (static asset lists and schedules): the same guards hold.
                "/media/demo/%2e%2e/%2e%2e/etc/passwd.json",
                "/media/demo/primary/list.json%00",
                "/media/demo/primary/../list.json",
            ]
            for path in refused {
                let response = try await rawExchange(
                    port: port,
                    "GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                )
                #expect(response.status == 400, "\(path): \(response.status)")
                #expect(response.error.status == 400, "\(path)")
            }
            for path in [
                "/media/demo/make.sh", "/media/demo/README.md", "/media/demo/", "/media/demo/primary",
                "/media/demo/primary/", "/media/demo/.hidden.ts",
            ] {
                let response = try await rawExchange(
                    port: port,
                    "GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                )
                #expect(response.status == 404, "\(path): \(response.status)")
                #expect(response.header("location") == nil)
            }
            let segment = try await client.get("/media/demo/primary/seg-000.ts")
            #expect(segment.status == .ok && segment.headers[.contentType] == "video/mp2t")
            let playlist = try await client.get("/media/demo/primary/prog.m3u8")
            #expect(playlist.status == .ok && playlist.headers[.contentType] == "application/vnd.apple.mpegurl")
            #expect(MediaFileTypes.contentType(of: "init.MP4") == "video/mp4")
            #expect(MediaFileTypes.contentType(of: "subs.vtt") == "text/vtt; charset=utf-8")
            #expect(
                MediaFileTypes.contentType(of: "a.aac") == "audio/aac"
                    && MediaFileTypes.contentType(of: "k.key") == "application/octet-stream"
            )
            #expect(
                MediaFileTypes.contentType(of: "index.html") == nil
                    && MediaFileTypes.contentType(of: "main.m3u8.sh") == nil
            )
        }
    }

    @Test(.timeLimit(.minutes(1))) func nothingWithDotSegmentsReachesTheOrigin() async throws {
        let seen = SeenPaths()
        let originRouter = Router()
        originRouter.get("**") { request, _ -> Response in
            await seen.add(request.uri.path)
            let body =
                "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:6.0,\nseg.ts\n#EXT-X-ENDLIST\n"
            return Response(
                status: .ok,
                headers: [.contentType: "application/vnd.apple.mpegurl"],
                body: .init(byteBuffer: ByteBuffer(string: body))
            )
        }
        let origin = Application(router: originRouter, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await origin.test(.live) { originClient in
            let base = "http://127.0.0.1:\(try #require(originClient.port))"
            var configuration = try demoConfiguration(clock: ManualWallClock(t0))
            configuration.adInsertion.assets.append(
                VODAsset(id: "remote", origin: base + "/movie/", playlist: "main.m3u8")
            )
            try await withServer(configuration) { client in
                let port = try #require(client.port)
                for path in [
                    "/vod/remote/%2e%2e/%2e%2e/secret.m3u8", "/vod/remote/..%2fsecret.m3u8",
                    "/vod/remote/a/%2E%2E/secret.m3u8",
                    "/vod/remote/%00/secret.m3u8", "/vod/remote/.%2e/secret.m3u8", "/live/demo/%2e%2e/prog.m3u8",
                ] {
                    let response = try await rawExchange(
                        port: port,
                        "GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    )
                    #expect(response.status == 400, "\(path): \(response.status)")
                }
                // A decoded '?' stays part of the name: the origin never gets a query from the path.
                let odd = try await client.get("/vod/remote/sub/x%3Fa=1%23f.m3u8")
                #expect(odd.status == .ok)
                let plain = try await client.get("/vod/remote/main.m3u8")
                #expect(plain.status == .ok)
            }
            let paths = await seen.paths
            #expect(
                paths.allSatisfy { !$0.lowercased().contains("%2e") && !$0.contains("..") && !$0.contains("secret") },
                "\(paths)"
            )
            #expect(paths.contains("/movie/sub/x%3Fa%3D1%23f.m3u8"), "\(paths)")
            #expect(paths.contains("/movie/main.m3u8"))
        }
    }

    @Test(.timeLimit(.minutes(1))) func theTokenSchemeIsCaseInsensitiveAndTheTokenMustMatchWhole() async throws {
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0))) { client in
            for header in ["Bearer secret", "bearer secret", "BEARER secret", "Bearer   secret  "] {
                let response = try await client.get("/v1/admin/inventory", headers: [.authorization: header])
                #expect(response.status == .ok, "\(header)")
            }
            for header in [
                "Bearer secre", "Bearer secretX", "Bearer SECRET", "Basic secret", "Bearer", "Bearer ", "secret",
                "Bearersecret", "Bearer \(String(repeating: "s", count: 4000))",
            ] {
                let response = try await client.get("/v1/admin/inventory", headers: [.authorization: header])
                #expect(response.status == .unauthorized, "\(header.prefix(40))")
            }
        }
        #expect(TokenDigest(Array("secret".utf8)) == TokenDigest(Array("secret".utf8)))
        #expect(TokenDigest(Array("secret".utf8)) != TokenDigest(Array("secreT".utf8)))
        #expect(TokenDigest(Array("secret".utf8)) != TokenDigest(Array("secret\0".utf8)))
        #expect(TokenDigest([]) != TokenDigest([0]))
        #expect(BearerTokenMiddleware<BasicRequestContext>.bearerCredentials("bEaReR abc") == "abc")
    }

    @Test(.timeLimit(.minutes(1))) func adminAnswersCarryNoWildcardCORS() async throws {
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0))) { client in
            let ok = try await client.admin(.get, "/v1/admin/inventory")
            #expect(ok.status == .ok && ok.headers[.accessControlAllowOrigin] == nil)
            let denied = try await client.admin(.get, "/v1/admin/inventory", token: "wrong")
            #expect(denied.status == .unauthorized && denied.headers[.accessControlAllowOrigin] == nil)
            let bad = try await client.admin(.post, "/v1/admin/inventory", json: "{}")
            #expect(bad.status == .badRequest && bad.headers[.accessControlAllowOrigin] == nil)
            let preflight = try await client.execute(
                uri: "/v1/admin/inventory",
                method: .options,
                headers: [.origin: "https://evil.example"],
                body: nil
            ) { $0 }
            #expect(preflight.headers[.accessControlAllowOrigin] == nil)
            #expect(preflight.status != .noContent)
            // Public answers keep it, errors included.
            let playlist = try await client.get("/vod/demo/main.m3u8")
            #expect(playlist.headers[.accessControlAllowOrigin] == "*")
            let missing = try await client.get("/vod/nope/main.m3u8")
            #expect(missing.status == .notFound && missing.headers[.accessControlAllowOrigin] == "*")
        }
    }
}

/// Paths the origin was asked for.
actor SeenPaths {
    var paths: [String] = []
    func add(_ path: String) { self.paths.append(path) }
}

/// Origin and upstream URLs may carry credentials (an origin may need them); creative URIs, which
/// viewers receive, may not; and no message shows the password.
@Suite(.realTime) struct ConfigurationCredentialTests {
    @Test func originCredentialsAreAcceptedAndNeverShown() throws {
        let upstream = "http://operator:pa55word@127.0.0.1:9/live/main.m3u8?token=s3cr3t"
        #expect(try InputLimits.uri(upstream, field: "channels[0].upstream", allowsUserInfo: true) == upstream)
        do {
            _ = try InputLimits.uri(
                "http://operator:pa55word@/x.m3u8",
                field: "channels[0].upstream",
                allowsUserInfo: true
            )
            Issue.record("a URL without a host was accepted")
        } catch {
            #expect(error.field == "channels[0].upstream")
            #expect(!error.message.contains("pa55word"), "\(error.message)")
        }
        do {
            _ = try InputLimits.uri("http://viewer:pa55word@ads.example/a.m3u8", field: "inventory[0].uri")
            Issue.record("a creative URI with credentials was accepted")
        } catch {
            #expect(error.field == "inventory[0].uri")
            #expect(!error.message.contains("pa55word"), "\(error.message)")
        }
    }
}
