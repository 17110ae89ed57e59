import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import HummingbirdTesting
import IntermissionServer
import IntermissionTestSupport
import Testing

/// Asset lists say what a creative's media last (the `EXTINF` sum of its first variant), not the
/// configured duration: hls.js ends an interstitial at its media's end, and a `DURATION` that
/// differs moves the primary's resumption.
@Suite(.realTime) struct CreativeDurationTests {
    /// A creative of 4 + 4 + 2.5 = 10.5 s under `folder/long/`, at 15 fps.
    static func writeLongCreative(in folder: String) throws {
        try write(
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=61600,RESOLUTION=160x90,FRAME-RATE=15.000\nprog.m3u8\n",
            to: folder + "/long/main.m3u8"
        )
        try write(
            "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n#EXTINF:4,\nb.ts\n#EXTINF:2.5,\nc.ts\n#EXT-X-ENDLIST\n",
            to: folder + "/long/prog.m3u8"
        )
    }

    @Test(.timeLimit(.minutes(1))) func aLocalCreativeIsAnsweredWithItsMediaDuration() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.writeLongCreative(in: folder)
        var configuration = try demoConfiguration(clock: ManualWallClock(t0))
        configuration.mounts["extra"] = folder
        // Configured as 10 s; its media last 10.5 s.
        configuration.adInsertion.inventory = [
            Creative(id: "long", uri: "/media/extra/long/main.m3u8", duration: 10, value: 1)
        ]
        try await withServer(configuration) { client in
            let list = try AssetList.decode(
                try await client.get(
                    "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1&_HLS_primary_id=v"
                ).bytes
            )
            #expect(!list.assets.isEmpty)
            #expect(list.assets.allSatisfy { $0.duration == MediaTime(nanoseconds: 10_500_000_000) }, "\(list.assets)")
            let inventory = try await client.admin(.get, "/v1/admin/inventory")
            #expect(inventory.json?["creatives"]?[0]?["duration"]?.doubleValue == 10.5, "\(inventory.text)")
            // The start-up warning (more than a frame off) is shown with the creative.
            #expect(
                inventory.json?["creatives"]?[0]?["warning"]?.stringValue?.contains(
                    "media last 10.5 s, not the configured 10 s"
                )
                    == true,
                "\(inventory.text)"
            )
        }
    }

    @Test(.timeLimit(.minutes(1))) func theAdminAPIStoresALocalCreativeWithItsMediaDurationAndSaysSo() async throws {
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0))) { client in
            // The demo's red ad lasts 10 s.
            let added = try await client.admin(
                .post,
                "/v1/admin/inventory",
                json: #"{"id": "short", "uri": "/media/demo/ad-red/main.m3u8", "duration": 7, "value": 1}"#
            )
            #expect(added.status == .created, "\(added.text)")
            #expect(added.json?["duration"]?.doubleValue == 10)
            #expect(added.json?["warning"]?.stringValue?.contains("media last 10 s, not 7 s") == true, "\(added.text)")
            // Within a frame (the demo's playlists declare no FRAME-RATE: 1/30 s): stored as the media
            // say, without a warning.
            let close = try await client.admin(
                .post,
                "/v1/admin/inventory",
                json: #"{"id": "close", "uri": "/media/demo/ad-blue/main.m3u8", "duration": 10.02, "value": 1}"#
            )
            #expect(close.json?["duration"]?.doubleValue == 10 && close.json?["warning"] == nil, "\(close.text)")
            // Nothing to read: stored as sent, with the reason.
            let missing = try await client.admin(
                .post,
                "/v1/admin/inventory",
                json: #"{"id": "gone", "uri": "/media/demo/nothing/main.m3u8", "duration": 7, "value": 1}"#
            )
            #expect(missing.status == .created)
            #expect(missing.json?["duration"]?.doubleValue == 7)
            #expect(missing.json?["warning"]?.stringValue?.contains("cannot be read") == true, "\(missing.text)")
            let inventory = try await client.admin(.get, "/v1/admin/inventory")
            let stored = Dictionary(
                uniqueKeysWithValues: (inventory.json?["creatives"]?.arrayValue ?? []).compactMap { item in
                    item["id"]?.stringValue.map { ($0, item["duration"]?.doubleValue ?? -1) }
                }
            )
            #expect(stored["short"] == 10 && stored["close"] == 10 && stored["gone"] == 7, "\(stored)")
        }
    }

    @Test(.timeLimit(.minutes(2))) func aRemoteCreativeIsReadOnceTheServerRuns() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.writeLongCreative(in: folder)
        var origin = try demoConfiguration(clock: ManualWallClock(t0))
        origin.mounts["extra"] = folder
        try await withServer(origin) { originClient in
            let port = try #require(originClient.port)
            var configuration = try demoConfiguration(clock: ManualWallClock(t0))
            configuration.adInsertion.inventory = [
                Creative(id: "long", uri: "http://127.0.0.1:\(port)/media/extra/long/main.m3u8", duration: 10, value: 1)
            ]
            try await withServer(configuration) { client in
                // Read in the background: the answer changes once the media are read (a deadline,
                // not a fixed wait). 60 s: beside every other suite and two builds, the read has
                // taken more than 20.
                let deadline = ContinuousClock.now + .seconds(60)
                var durations: [MediaTime] = []
                // A new viewer each time: a viewer's decision is kept, so one decided before the media
                // were read would keep its 10 s ads.
                var attempt = 0
                try await waitUntil(within: deadline - ContinuousClock.now, checkingEvery: .milliseconds(20)) {
                    attempt += 1
                    let list = try AssetList.decode(
                        try await client.get(
                            "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1&_HLS_primary_id=v\(attempt)"
                        ).bytes
                    )
                    durations = list.assets.map(\.duration)
                    return durations.contains(MediaTime(nanoseconds: 10_500_000_000))
                }
                #expect(
                    durations.allSatisfy { $0 == MediaTime(nanoseconds: 10_500_000_000) } && !durations.isEmpty,
                    "\(durations)"
                )
            }
        }
    }

    /// The demo's declared durations are its media's, within a frame (the demo's media were 43 ms
    /// longer than declared when their audio ran past the video).
    @Test func theDemoDeclaresWhatItsMediaLast() throws {
        let configuration = try demoConfiguration(clock: ManualWallClock(t0))
        let demo = try #require(configuration.mounts["demo"])
        #expect(configuration.adInsertion.inventory.count == 5)
        for creative in configuration.adInsertion.inventory {
            var reading = CreativeDurationReading(uri: creative.uri)
            var step = reading.next
            while case .read(let uri) = step {
                let path = demo + "/" + uri.dropFirst("/media/demo/".count)
                step = reading.received(Array(try Data(contentsOf: URL(fileURLWithPath: path))), from: uri)
            }
            guard case .measured(let measured) = step else {
                Issue.record("\(creative.id): \(step)")
                continue
            }
            #expect(
                !measured.disagrees(with: creative.duration),
                "\(creative.id): \(measured.duration) vs \(creative.duration)"
            )
        }
    }
}
