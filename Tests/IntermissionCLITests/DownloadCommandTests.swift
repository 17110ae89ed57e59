import Foundation
import IntermissionTestSupport
import ProcessSpawn
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `intermission download` against `intermission serve --demo`: the copy is complete, relative,
/// keeps the interstitial schedule, plays without the network, and an interrupted run continues
/// without fetching a byte twice.
@Suite(.timeLimit(.minutes(4)), .realTime)
struct DownloadCommandTests {
    /// Starts the demo server; its base URL.
    static func demoServer() async throws -> (ServeProcess, String) {
        let server = try ServeProcess(["serve", "--demo", "--port", "0", "--database", "memory:"])
        let url = try #require(try await server.firstLog(matching: #"http://127\.0\.0\.1:[0-9]+/vod/demo/main\.m3u8"#))
        return (server, String(url.dropLast("/vod/demo/main.m3u8".count)))
    }

    /// The `--json` lines of a download: `(event, url, path, bytes, resumedFrom)`.
    static func reports(_ text: String) -> [(event: String, url: String, path: String, bytes: Int, resumedFrom: Int)] {
        text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let event = object["event"] as? String, let url = object["url"] as? String
            else { return nil }
            return (
                event, url, object["path"] as? String ?? "", object["bytes"] as? Int ?? -1,
                object["resumedFrom"] as? Int ?? 0
            )
        }
    }

    /// Every playlist and JSON file of the copy, as text, by path.
    static func texts(in folder: URL) throws -> [String: String] {
        var result: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let file = enumerator?.nextObject() as? URL {
            let path = file.path.dropFirst(folder.path.count + 1)
            guard !path.hasPrefix(".intermission"), file.pathExtension == "m3u8" || file.pathExtension == "json"
            else { continue }
            result[String(path)] = try String(contentsOf: file, encoding: .utf8)
        }
        return result
    }

    @Test func aCopyIsCompleteRelativeAndPlaysWithoutTheNetwork() async throws {
        let (server, base) = try await Self.demoServer()
        defer { server.kill() }
        let folder = try ServeProcess.scratchFolder("download")
        defer { try? FileManager.default.removeItem(at: folder) }

        let run = try await CLI.run(["download", base + "/vod/demo/main.m3u8", folder.path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let reports = Self.reports(String(decoding: run.stdout, as: UTF8.self))
        #expect(!reports.isEmpty && reports.allSatisfy { $0.event == "fetched" && $0.resumedFrom == 0 })
        #expect(Set(reports.map(\.url)).count == reports.count, "a URL was fetched twice")

        // Relative URIs only, and every one of them is a file of the copy.
        let texts = try Self.texts(in: folder)
        #expect(texts["main.m3u8"] != nil)
        for (path, text) in texts where path != "manifest.json" {
            #expect(!text.contains("http://") && !text.contains("https://"), "\(path) still points at the network")
        }
        let video = try #require(texts["primary/video/index.m3u8"])
        for line in video.split(separator: "\n") where !line.hasPrefix("#") {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("primary/video/" + line).path))
        }
        // The interstitial schedule as served, only X-ASSET-LIST pointing at local lists.
        let (served, _) = try await URLSession.shared.data(
            from: try #require(URL(string: base + "/vod/demo/prog.m3u8"))
        )
        func ranges(_ text: String) -> [String] {
            text.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-DATERANGE:") }.map {
                $0.replacingOccurrences(of: #"X-ASSET-LIST="[^"]*""#, with: "X-ASSET-LIST", options: .regularExpression)
            }
        }
        let servedRanges = ranges(String(decoding: served, as: UTF8.self))
        #expect(servedRanges.count == 4)
        #expect(ranges(video) == servedRanges)
        for id in ["preroll", "midroll-1", "midroll-2", "postroll"] {
            #expect(video.contains(#"X-ASSET-LIST="../../interstitials/\#(id)/list.json""#), "\(id)")
        }
        // The pod's local list: two assets, each a copied playlist with its segments.
        let pod = try #require(texts["interstitials/midroll-1/list.json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(pod.utf8)) as? [String: Any])
        let assets = try #require(list["ASSETS"] as? [[String: Any]])
        #expect(assets.compactMap { $0["URI"] as? String } == ["0/main.m3u8", "1/main.m3u8"])
        #expect(assets.compactMap { $0["DURATION"] as? Double } == [10, 10])
        #expect(texts["interstitials/midroll-1/0/main.m3u8"] != nil)

        // The manifest names every fetched file once, with its size on disk.
        let manifestData = try Data(contentsOf: folder.appendingPathComponent("manifest.json"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: manifestData) as? [String: Any])
        let files = try #require(manifest["files"] as? [[String: Any]])
        #expect(files.count == reports.count)
        for file in files {
            let path = try #require(file["path"] as? String)
            let size = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(path).path)[.size]
            #expect((size as? NSNumber)?.intValue == file["bytes"] as? Int, "\(path)")
        }

        // Again: everything is kept, nothing fetched, the same manifest.
        let again = try await CLI.run(["download", base + "/vod/demo/main.m3u8", folder.path, "--json"])
        #expect(again.status == 0)
        let kept = Self.reports(String(decoding: again.stdout, as: UTF8.self))
        #expect(kept.count == reports.count && kept.allSatisfy { $0.event == "kept" })
        #expect(try Data(contentsOf: folder.appendingPathComponent("manifest.json")) == manifestData)

        // Without the server: the copy plays with the same breaks, every request a file.
        _ = try await server.terminate()
        let played = try await CLI.run([
            "play", folder.appendingPathComponent("main.m3u8").path, "--speed", "20", "--json",
        ])
        #expect(played.status == 0, "\(played.stderr)")
        let log = jsonLines(played.stdout)
        let started = log.filter { $0["event"] as? String == "currentEventDidChange" }.compactMap {
            $0["eventID"] as? String
        }
        #expect(started == ["preroll", "midroll-1", "midroll-2", "postroll"])
        let assetsPlayed = log.filter { $0["event"] as? String == "interstitialAssetStarted" }.compactMap {
            $0["eventID"] as? String
        }
        #expect(assetsPlayed.filter { $0 == "midroll-1" }.count == 2)
        let requests = log.filter { $0["event"] as? String == "request" }
        #expect(!requests.isEmpty && requests.allSatisfy { ($0["url"] as? String)?.hasPrefix("file://") == true })
        #expect(
            requests.allSatisfy { $0["status"] as? Int == 200 },
            "\(requests.filter { $0["status"] as? Int != 200 })"
        )
        #expect(log.last?["event"] as? String == "ended")

        // ffmpeg plays the primary.
        if let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first(where: FileManager.default.isExecutableFile)
        {
            let result = try await runProcess(
                URL(fileURLWithPath: ffmpeg),
                ["-v", "error", "-i", folder.appendingPathComponent("main.m3u8").path, "-f", "null", "-"],
                timeout: .seconds(60)
            )
            #expect(result.status == 0, "\(String(decoding: result.stderr, as: UTF8.self))")
        }
    }

    /// Killed mid-way (a rate limit makes the run last seconds), then run again: the files the
    /// first run finished are kept, a partial one continues from its size, and the bytes fetched by
    /// both runs together are exactly the bytes of the copy.
    @Test func anInterruptedDownloadContinuesWithoutFetchingAByteTwice() async throws {
        let (server, base) = try await Self.demoServer()
        defer { server.kill() }
        let folder = try ServeProcess.scratchFolder("download-resume")
        defer { try? FileManager.default.removeItem(at: folder) }
        // Through a proxy that stops answering after ten files, half-way through the eleventh: the
        // first run cannot finish before it is killed, however slowly this test runs.
        let proxy = try GatedProxy(origin: base, answers: 10)
        defer { proxy.stop() }
        let url = proxy.base + "/vod/demo/main.m3u8"

        let first = try ServeProcess(["download", url, folder.path, "--json", "--limit-rate", "100000"])
        defer { first.kill() }
        await waitUntil(within: .seconds(120)) {
            Self.reports(first.text).filter({ $0.event == "fetched" }).count >= 8 && proxy.isHolding
        }
        first.kill()
        await waitForExit(first.process)
        proxy.open()
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("manifest.json").path))
        let firstRun = Self.reports(first.text).filter { $0.event == "fetched" }
        #expect(firstRun.count >= 8)
        // What the killed run left half-written.
        var partial: [String: Int] = [:]
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let file = enumerator?.nextObject() as? URL {
            guard file.pathExtension == "part" else { continue }
            let size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue ?? 0
            partial[String(file.deletingPathExtension().path.dropFirst(folder.path.count + 1))] = size
        }

        let second = try await CLI.run(["download", url, folder.path, "--json"])
        #expect(second.status == 0, "\(second.stderr)")
        let secondRun = Self.reports(String(decoding: second.stdout, as: UTF8.self))
        let fetchedAgain = Set(firstRun.map(\.url)).intersection(secondRun.filter { $0.event == "fetched" }.map(\.url))
        #expect(fetchedAgain.isEmpty, "fetched by both runs: \(fetchedAgain)")
        #expect(Set(secondRun.filter { $0.event == "kept" }.map(\.url)) == Set(firstRun.map(\.url)))
        for report in secondRun where report.event == "fetched" {
            #expect(report.resumedFrom == (partial[report.path] ?? 0), "\(report.path)")
        }
        let manifestData = try Data(contentsOf: folder.appendingPathComponent("manifest.json"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: manifestData) as? [String: Any])
        let total = (manifest["files"] as? [[String: Any]] ?? []).reduce(0) { $0 + ($1["bytes"] as? Int ?? 0) }
        let transferred =
            firstRun.reduce(0) { $0 + $1.bytes } + partial.values.reduce(0, +)
            + secondRun.filter { $0.event == "fetched" }.reduce(0) { $0 + $1.bytes - $1.resumedFrom }
        #expect(transferred == total, "\(transferred) bytes fetched for a copy of \(total)")
        #expect(total > 700_000)
    }

    /// A ladder of three variants with English and French audio and subtitles, an interstitial at
    /// 2 s whose asset is a ladder of its own: `--variant 1280x720 --language fr` copies the 720p
    /// variant, the French audio and subtitles only, and the asset's 720p variant (the same
    /// criteria); the copy plays offline with the interstitial.
    @Test func theVariantAndTheLanguageAreChosenForThePrimaryAndItsAssets() async throws {
        let media = try ServeProcess.scratchFolder("download-ladder-media")
        defer { try? FileManager.default.removeItem(at: media) }
        func write(_ path: String, _ text: String) throws {
            let file = media.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data(text.utf8).write(to: file)
        }
        /// A 6 s VOD media playlist of one-second segments in `folder`, with the interstitial.
        func mediaPlaylist(_ folder: String, segment: String, seconds: Int = 6, interstitial: Bool = true) throws {
            var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:1", "#EXT-X-PLAYLIST-TYPE:VOD"]
            lines.append("#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z")
            if interstitial {
                lines.append(
                    #"#EXT-X-DATERANGE:ID="ad",CLASS="com.apple.hls.interstitial",START-DATE="2026-01-01T00:00:02.000Z","#
                        + #"DURATION=2.0,X-ASSET-URI="../ad/main.m3u8",X-RESUME-OFFSET=0"#
                )
            }
            for index in 0..<seconds {
                lines += ["#EXTINF:1.000,", "\(index).\(segment)"]
                try Data(repeating: 0x47, count: 1_880).write(
                    to: media.appendingPathComponent("\(folder)/\(index).\(segment)")
                )
            }
            lines.append("#EXT-X-ENDLIST")
            try write("\(folder)/prog.m3u8", lines.joined(separator: "\n") + "\n")
        }
        for folder in ["v360", "v720", "v1080", "audio-en", "audio-fr", "subs-en", "subs-fr", "ad/v360", "ad/v720"] {
            try FileManager.default.createDirectory(
                at: media.appendingPathComponent(folder),
                withIntermediateDirectories: true
            )
        }
        try write(
            "main.m3u8",
            """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="audio-en/prog.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Francais",LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=YES,URI="audio-fr/prog.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=NO,AUTOSELECT=YES,URI="subs-en/prog.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Francais",LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=YES,URI="subs-fr/prog.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=5000000,RESOLUTION=1920x1080,AUDIO="aud",SUBTITLES="subs"
            v1080/prog.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,AUDIO="aud",SUBTITLES="subs"
            v360/prog.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720,AUDIO="aud",SUBTITLES="subs"
            v720/prog.m3u8

            """
        )
        for folder in ["v360", "v720", "v1080"] { try mediaPlaylist(folder, segment: "ts") }
        for folder in ["audio-en", "audio-fr"] { try mediaPlaylist(folder, segment: "aac") }
        for folder in ["subs-en", "subs-fr"] { try mediaPlaylist(folder, segment: "vtt") }
        try write(
            "ad/main.m3u8",
            """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360
            v360/prog.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720
            v720/prog.m3u8

            """
        )
        for folder in ["ad/v360", "ad/v720"] {
            try mediaPlaylist(folder, segment: "ts", seconds: 2, interstitial: false)
        }
        let config = media.appendingPathComponent("serve.yaml")
        try Data("server:\n  database: \"memory:\"\nmedia:\n  ladder: \(media.path)\n".utf8).write(to: config)
        let server = try ServeProcess(["serve", "--config", config.path, "--port", "0"])
        defer { server.kill() }
        let base = try #require(try await server.firstLog(matching: #"http://127\.0\.0\.1:[0-9]+"#))

        let folder = try ServeProcess.scratchFolder("download-ladder")
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try await CLI.run([
            "download", base + "/media/ladder/main.m3u8", folder.path, "--variant", "1280x720", "--language", "fr",
            "--json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let fetched = Self.reports(String(decoding: run.stdout, as: UTF8.self)).map(\.url)
        func copied(_ folder: String) -> Bool { fetched.contains { $0.contains("/ladder/\(folder)/") } }
        for kept in ["v720", "audio-fr", "subs-fr", "ad/v720"] { #expect(copied(kept), "\(kept) not copied") }
        for left in ["v360", "v1080", "audio-en", "subs-en", "ad/v360"] { #expect(!copied(left), "\(left) copied") }
        let main = try String(contentsOf: folder.appendingPathComponent("main.m3u8"), encoding: .utf8)
        let lines = main.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("#EXT-X-STREAM-INF:") }.count == 1)
        #expect(lines.contains { $0.hasPrefix("#EXT-X-STREAM-INF:") && $0.contains("RESOLUTION=1280x720") })
        let renditions = lines.filter { $0.hasPrefix("#EXT-X-MEDIA:") }
        #expect(renditions.count == 2 && renditions.allSatisfy { $0.contains(#"LANGUAGE="fr""#) }, "\(renditions)")

        // Offline: the copy plays with its interstitial, every request a file.
        _ = try await server.terminate()
        let played = try await CLI.run([
            "play", folder.appendingPathComponent("main.m3u8").path, "--speed", "20", "--json",
        ])
        #expect(played.status == 0, "\(played.stderr)")
        let log = jsonLines(played.stdout)
        #expect(
            log.contains { $0["event"] as? String == "interstitialAssetStarted" && $0["eventID"] as? String == "ad" }
        )
        let requests = log.filter { $0["event"] as? String == "request" }
        #expect(!requests.isEmpty && requests.allSatisfy { ($0["url"] as? String)?.hasPrefix("file://") == true })
        #expect(log.last?["event"] as? String == "ended")
    }

    /// Bad options are refused before anything is fetched.
    @Test(arguments: [
        ["--variant", "abc"], ["--variant", "0"], ["--variant", "1280x"], ["--variant", "99999999999999999999"],
        ["--language", ""], ["--language", "en_US"], ["--language", String(repeating: "a", count: 100_000)],
        ["--limit-rate", "10"], ["--limit-rate", "-1"],
    ])
    func badOptionsAreRefused(_ options: [String]) async throws {
        let folder = try ServeProcess.scratchFolder("download-bad")
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await CLI.run(["download", "http://127.0.0.1:9/x.m3u8", folder.path] + options)
        #expect(result.status == 64, "\(options): \(result.stderr)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(leftovers.isEmpty)
    }
}

/// A loopback proxy in front of an HTTP origin that forwards whole answers, one connection at a
/// time, until it has forwarded `answers` of them; then it writes the head and half the body of the
/// next one and holds that connection, and every later request with it, until ``open()``.
final class GatedProxy: Sendable {
    private let server: RawServer
    private let gate: Gate

    /// The forwarded count, whether the proxy holds a connection, and whether it is open for good.
    private final class Gate: Sendable {
        let state = Mutex((forwarded: 0, holding: false, open: false))
        let released = DispatchSemaphore(value: 0)
    }

    /// Starts the proxy for `origin` (`http://127.0.0.1:PORT`).
    init(origin: String, answers: Int) throws {
        guard let port = Int(origin.split(separator: ":").last ?? "") else { throw CancellationError() }
        let gate = Gate()
        self.gate = gate
        self.server = try RawServer { head, send in
            guard let answer = GatedProxy.fetch(head, port: port) else { return }
            let holds = gate.state.withLock { state in
                state.forwarded += 1
                state.holding = !state.open && state.forwarded > answers
                return state.holding
            }
            guard holds, let split = answer.firstRange(of: Array("\r\n\r\n".utf8)) else {
                _ = send(answer)
                return
            }
            _ = send(Array(answer[..<(split.upperBound + (answer.count - split.upperBound) / 2)]))
            gate.released.wait()
        }
    }

    /// `http://127.0.0.1:PORT`.
    var base: String { self.server.base }

    /// Whether it is holding a half-written answer.
    var isHolding: Bool { self.gate.state.withLock { $0.holding } }

    /// Lets the held connection go and forwards every answer from now on.
    func open() {
        let held = self.gate.state.withLock { state in
            state.open = true
            defer { state.holding = false }
            return state.holding
        }
        if held { self.gate.released.signal() }
    }

    /// Stops listening (letting a held connection go first).
    func stop() {
        self.open()
        self.server.stop()
    }

    /// The origin's whole answer to `head` (sent with `Connection: close`, and marked so), read to
    /// its end on this thread; `nil` when the origin cannot be reached.
    private static func fetch(_ head: String, port: Int) -> [UInt8]? {
        let lines = head.split(separator: "\r\n").filter { !$0.lowercased().hasPrefix("connection:") }
        let request = Array((lines.joined(separator: "\r\n") + "\r\nConnection: close\r\n\r\n").utf8)
        guard let fd = connectLoopback(port: port) else { return nil }
        defer { close(fd) }
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count
        else { return nil }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            answer += buffer[0..<count]
        }
        // The answer's own head, told that the connection closes after it.
        guard let end = answer.firstRange(of: Array("\r\n\r\n".utf8)) else { return answer }
        let fields = String(decoding: answer[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n")
            .filter { !$0.lowercased().hasPrefix("connection:") }
        return Array((fields.joined(separator: "\r\n") + "\r\nConnection: close\r\n\r\n").utf8)
            + answer[end.upperBound...]
    }
}
