import Foundation
import HLSPlaylist
import IntermissionTestSupport
import Testing

/// Python's `m3u8` package (PyPI 6.x) reads what we serialize and must agree with our model.
@Suite(.serialized) struct RefereeTests {
    @Test(.enabled { await ExternalTools.hasPythonM3U8 || ExternalTools.required })
    func pythonM3U8AgreesWithOurModel() async throws {
        try #require(await ExternalTools.hasPythonM3U8, "python3 with m3u8 is required (pip install 'm3u8>=6,<7')")
        let fixtures = Fixture.all(in: "playlists")
        let dir = ExternalTools.temporaryDirectory("referee")
        defer { try? FileManager.default.removeItem(at: dir) }
        var models: [String: Playlist] = [:]
        var paths: [String] = []
        for fixture in fixtures {
            let parsed = PlaylistParser.parse(fixture.bytes)
            let path = dir.appendingPathComponent(fixture.url.lastPathComponent).path
            // The referee reads *our* serialized output.
            try Data(parsed.playlist.serialized()).write(to: URL(fileURLWithPath: path))
            models[path] = parsed.playlist
            paths.append(path)
        }
        let script = Fixture.repository.appendingPathComponent("scripts/referee_m3u8.py").path
        let result = try #require(await ExternalTools.run(["python3", script] + paths))
        let lines = result.stdout.split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == paths.count, "\(result.stderr)")
        var compared = 0
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            let path = try #require(object["file"] as? String)
            let model = try #require(models[path])
            if object["error"] != nil { continue }  // m3u8 itself cannot read it (see the fixture README)
            compared += 1
            switch model {
            case .media(let media):
                let segments = media.segments
                #expect(object["segments"] as? Int == segments.count, "\(path)")
                let durations = (object["durations"] as? [Double]) ?? []
                #expect(durations.count == segments.count, "\(path)")
                for (theirs, ours) in zip(durations, segments.map(\.duration)) {
                    #expect(abs(theirs - ours.seconds) < 1e-9, "\(path)")
                }
                #expect(object["uris"] as? [String] == segments.map(\.uri), "\(path)")
                #expect(object["dateranges"] as? [String] == media.dateRanges.map(\.dateRange.id), "\(path)")
                #expect(object["is_variant"] as? Bool == false, "\(path)")
            case .multivariant(let multivariant):
                #expect(object["is_variant"] as? Bool == true, "\(path)")
                #expect(object["playlists"] as? [String] == multivariant.variants.map(\.uri), "\(path)")
                #expect(object["iframe_playlists"] as? [String] == multivariant.iFrameStreams.map(\.uri), "\(path)")
            }
        }
        #expect(compared >= paths.count - 1)
    }
}

/// Playlists written by ffmpeg (generated in the test run) round-trip and parse without errors.
@Suite(.serialized) struct FFmpegPlaylistTests {
    @Test(.enabled { await ExternalTools.hasFFmpeg || ExternalTools.required })
    func ffmpegPlaylistsRoundTrip() async throws {
        try #require(await ExternalTools.hasFFmpeg, "ffmpeg is required (apt-get install ffmpeg)")
        let dir = ExternalTools.temporaryDirectory("ffmpeg")
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = Fixture.repository.appendingPathComponent("scripts/make-ffmpeg-playlists.sh").path
        let result = try #require(await ExternalTools.run(["bash", script, dir.path]))
        #expect(result.status == 0, "\(result.stderr)")
        let enumerator = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil)
        var playlists: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            if url.pathExtension == "m3u8" { playlists.append(url) }
        }
        #expect(playlists.count >= 7)
        var sawMultivariant = false
        var sawMap = false
        var sawByteRange = false
        var sawKey = false
        for url in playlists {
            let bytes = [UInt8](try Data(contentsOf: url))
            let parsed = PlaylistParser.parse(bytes, options: .init(file: url.lastPathComponent))
            #expect(parsed.playlist.serialized() == bytes, "\(url.lastPathComponent)")
            #expect(!parsed.hasErrors, "\(url.lastPathComponent): \(parsed.diagnostics)")
            switch parsed.playlist {
            case .multivariant(let m):
                sawMultivariant = true
                #expect(!m.variants.isEmpty)
            case .media(let m):
                #expect(!m.segments.isEmpty)
                sawMap = sawMap || m.segments.contains { $0.map != nil }
                sawByteRange = sawByteRange || m.segments.contains { $0.byteRange != nil }
                sawKey = sawKey || m.segments.contains { $0.key != nil }
            }
        }
        #expect(sawMultivariant && sawMap && sawByteRange && sawKey)
    }
}
