import Foundation
import IntermissionTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// SIGKILL under load: every decision the server acknowledged is in the database when it starts
/// again, and is found there (not decided anew).
@Suite(.timeLimit(.minutes(2)))
struct ServeCrashCommandTests {
    @Test func everyAcknowledgedDecisionIsBackAfterSIGKILL() async throws {
        let folder = try ServeProcess.scratchFolder("crash")
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = "sqlite:" + folder.appendingPathComponent("decisions.sqlite").path
        let arguments = ["serve", "--demo", "--port", "0", "--database", database]
        let pattern = #"http://127\.0\.0\.1:[0-9]+/vod/demo/main\.m3u8"#

        let first = try ServeProcess(arguments)
        defer { first.kill() }
        let firstURL = try #require(try await first.firstLog(matching: pattern), "no URL in the start-up log")
        let base = String(firstURL.dropLast("/vod/demo/main.m3u8".count))
        // Eight clients ask for new viewers' pods as fast as they can; the server is killed while
        // they do. Only 200 answers marked stored count as acknowledged.
        let pid = first.process.processIdentifier
        let acknowledged = await withTaskGroup(of: [String].self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var viewers: [String] = []
                    for k in 0..<100_000 {
                        let viewer = "w\(worker)-\(k)"
                        guard
                            let url = URL(
                                string: base + "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_primary_id=" + viewer
                            ),
                            let (_, response) = try? await URLSession.shared.data(from: url),
                            let http = response as? HTTPURLResponse
                        else { break }
                        if http.statusCode == 200, http.value(forHTTPHeaderField: "X-Intermission-Decision") == "stored"
                        {
                            viewers.append(viewer)
                        }
                    }
                    return viewers
                }
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(1500))
                kill(pid, SIGKILL)
                return []
            }
            var all: [String] = []
            for await part in group { all += part }
            return all
        }
        await waitForExit(first.process)
        #expect(first.process.terminationReason == .uncaughtSignal)
        #expect(acknowledged.count > 20, "too few decisions before the kill to mean anything")

        // Again on the same file: every acknowledged viewer's decision is found in the store.
        let second = try ServeProcess(arguments)
        defer { second.kill() }
        let secondURL = try #require(try await second.firstLog(matching: pattern), "no URL after the restart")
        let again = String(secondURL.dropLast("/vod/demo/main.m3u8".count))
        for viewer in acknowledged {
            let url = try #require(
                URL(string: again + "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_primary_id=" + viewer)
            )
            let (_, response) = try await URLSession.shared.data(from: url)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
        }
        let (metrics, _) = try await URLSession.shared.data(from: try #require(URL(string: again + "/metrics")))
        let text = String(decoding: metrics, as: UTF8.self)
        #expect(
            text.contains(#"intermission_decisions_total{scope="vod",result="stored"} \#(acknowledged.count)"#),
            "\(text)"
        )
        #expect(
            !text.contains(#"intermission_decisions_total{scope="vod",result="new"}"#),
            "a decision acknowledged before the kill was lost"
        )
        _ = try await second.terminate()
    }
}
