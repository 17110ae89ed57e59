import AdInsertion
import Dispatch
import Foundation
import GRDB
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import IntermissionTestSupport
import Logging
import ServiceLifecycle
import Testing

@testable import IntermissionSQLite
@testable import IntermissionServer
@testable import IntermissionStore

/// An in-memory store whose first `breaks(channel:)` read is held: it reads the breaks, then waits
/// until the test lets it answer (with what it read). Every other call goes straight through.
actor HeldBreakReadStore: ServerStore {
    private let base = InMemoryAdStore()
    private var holdUsed = false
    private var reached = false
    private var released = false
    private var reachedWaiters: [CheckedContinuation<Void, Never>] = []
    private var release: CheckedContinuation<Void, Never>?

    /// Returns once the held read has read the breaks and waits.
    func waitUntilHeld() async {
        if self.reached { return }
        await withCheckedContinuation { self.reachedWaiters.append($0) }
    }

    /// Lets the held read answer.
    func letGo() {
        self.released = true
        self.release?.resume()
        self.release = nil
    }

    func breaks(channel: String) async throws -> [LiveBreak] {
        let answer = try await self.base.breaks(channel: channel)
        guard !self.holdUsed else { return answer }
        self.holdUsed = true
        self.reached = true
        for waiter in self.reachedWaiters { waiter.resume() }
        self.reachedWaiters = []
        if !self.released { await withCheckedContinuation { self.release = $0 } }
        return answer
    }

    func save(_ liveBreak: LiveBreak) async throws { try await self.base.save(liveBreak) }
    func migrate() async throws { try await self.base.migrate() }
    func inventoryChanges() async throws -> [InventoryChange] { try await self.base.inventoryChanges() }
    func record(_ change: InventoryChange) async throws { try await self.base.record(change) }
    func decision(for key: DecisionKey) async throws -> AdDecision? { try await self.base.decision(for: key) }
    func recentCreatives(viewer: String, since: DateTime) async throws -> Set<String> {
        try await self.base.recentCreatives(viewer: viewer, since: since)
    }
    func save(_ decision: AdDecision) async throws -> AdDecision { try await self.base.save(decision) }
    func decisionCount() async throws -> Int { try await self.base.decisionCount() }
}

@Suite(.realTime) struct BreakCacheTests {
    /// A break saved while an older read of the store is pending stays.
    ///
    /// A live playlist request reads the channel's stored breaks (none yet) and is held there; an
    /// admin request then reads them too, saves a new break and is acknowledged; the held read
    /// answers last. The break just saved must stay: in the admin listing and for its asset list.
    @Test(.timeLimit(.minutes(1))) func aBreakSavedWhileAnOlderReadIsPendingIsKept() async throws {
        let store = HeldBreakReadStore()
        var configuration = try demoConfiguration(clock: ManualWallClock(t0 + 110))
        configuration.openedStore = store
        try await withServer(configuration) { client in
            let port = try #require(client.port)
            // On its own connection: the test client sends its requests one after another.
            let playlist = Task { try await rawGET(port: port, path: "/live/demo/prog.m3u8", host: "127.0.0.1") }
            await store.waitUntilHeld()
            let created = try await client.admin(
                .post,
                "/v1/admin/channels/demo/breaks",
                json: #"{"id": "fresh", "startIn": 300, "duration": 15}"#
            )
            #expect(created.status == .created, "\(created.text)")
            await store.letGo()
            let text = String(decoding: try await playlist.value, as: UTF8.self)
            #expect(text.hasPrefix("#EXTM3U"), "\(text)")
            let listing = try await client.admin(.get, "/v1/admin/channels/demo/breaks")
            let ids = listing.json?["breaks"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            #expect(ids.contains("fresh"), "\(listing.text)")
            let list = try await client.get("/v1/asset-lists/live-demo/fresh.json?_HLS_primary_id=v1")
            #expect(list.status == .ok, "\(list.text)")
            #expect(list.json?["ASSETS"]?.arrayValue?.isEmpty == false, "\(list.text)")
            // Saving it again says it exists: the server did not forget it.
            let again = try await client.admin(
                .post,
                "/v1/admin/channels/demo/breaks",
                json: #"{"id": "fresh", "startIn": 300, "duration": 15}"#
            )
            #expect(again.status == .conflict, "\(again.text)")
        }
    }
}

@Suite(.serialized, .realTime) struct StoreShutdownTests {
    /// Decisions queued behind a held database write lock when the server is told to stop: every
    /// one of them is written and answered, the service group ends (nothing hangs), the file holds
    /// them all, and a decision asked of the closed store is refused at once.
    @Test(.timeLimit(.minutes(1))) func shutdownAnswersEveryQueuedDecision() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/shutdown.sqlite"
        let store = try SQLiteAdStore(path: path)
        var configuration = try demoConfiguration(clock: ManualWallClock(t0 + 110))
        configuration.openedStore = store
        let app = try await buildApplication(configuration: configuration)
        let group = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "test")))
        let running = Task { try await group.run() }

        // Another connection takes the write lock and keeps it until told.
        let blocker = try HeldWriteLock.connection(path)
        let lock = try await HeldWriteLock(blocker)

        let count = 300
        let decisions = Task {
            try await withThrowingTaskGroup(of: (Int, Result<AdDecision, any Error>).self) { tasks in
                for k in 0..<count {
                    tasks.addTask {
                        let key = DecisionKey(viewer: "v\(k)", scope: "vod-demo", breakID: "midroll-1")
                        do {
                            let answer = try await store.findOrCreateDecision(key, recentSince: nil) { _ in
                                decision(key, creative: "red")
                            }
                            return (k, .success(answer.decision))
                        } catch {
                            return (k, .failure(error))
                        }
                    }
                }
                var results: [Int: Result<AdDecision, any Error>] = [:]
                for try await (k, result) in tasks { results[k] = result }
                return results
            }
        }
        // Wait (at most 10 s) until all of them wait for the writer.
        await waitUntil(within: .seconds(10), checkingEvery: .milliseconds(2)) { store.pendingDecisions >= count }
        #expect(store.pendingDecisions == count)

        await group.triggerGracefulShutdown()
        // The store waits for its queue: once the shutdown has reached it, free the lock.
        #expect(await waitUntil(within: .seconds(20)) { store.isClosing })
        try await lock.free()
        try await running.value

        let results = try await decisions.value
        #expect(results.count == count)
        var failures: [String] = []
        for (k, result) in results.sorted(by: { $0.key < $1.key }) {
            switch result {
            case .success(let decision): #expect(decision.viewer == "v\(k)")
            case .failure(let error): failures.append("v\(k): \(error)")
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(3))")
        await #expect(throws: AdInsertionError.self) {
            _ = try await store.findOrCreateDecision(
                DecisionKey(viewer: "late", scope: "vod-demo", breakID: "midroll-1"),
                recentSince: nil
            ) { _ in
                AdDecision(
                    viewer: "late",
                    scope: "vod-demo",
                    breakID: "midroll-1",
                    decidedAt: t0,
                    startOffset: nil,
                    podDuration: .zero,
                    assets: []
                )
            }
        }
        let reopened = try SQLiteAdStore(path: path)
        #expect(try await reopened.decisionCount() == count)
        try await reopened.close()
        try blocker.close()
    }
}

@Suite(.realTime) struct AdminBodyTests {
    /// Bodies decoded with `request.decode(as:context:)`: a malformed body is a `400` whose error
    /// names the field at fault (nested ones with their index), a missing key names the key, and a
    /// body that is not an object names none.
    @Test(.timeLimit(.minutes(1))) func aMalformedBodyIs400NamingTheField() async throws {
        try await withServer(try demoConfiguration(clock: ManualWallClock(t0 + 30))) { client in
            let cases: [(path: String, body: String, field: String?)] = [
                ("/v1/admin/inventory", #"{"id": "x", "uri": "/a.m3u8", "duration": "ten", "value": 1}"#, "duration"),
                ("/v1/admin/inventory", #"{"id": "x", "uri": "/a.m3u8", "duration": 10}"#, "value"),
                // Out of Double's range: refused while the text is parsed, before any field is read.
                ("/v1/admin/inventory", #"{"id": "x", "uri": "/a.m3u8", "duration": 1e400, "value": 1}"#, nil),
                ("/v1/admin/inventory", #"{"id": "x", "uri": null, "duration": 10, "value": 1}"#, "uri"),
                ("/v1/admin/inventory", #"{"id": 0x10, "uri": "/a.m3u8", "duration": 10, "value": 1}"#, nil),
                ("/v1/admin/inventory", "[]", nil),
                ("/v1/admin/inventory", "{\"id\": \"x\u{0}\"", nil),
                ("/v1/admin/channels/demo/breaks", #"{"duration": 10, "cue": ["PRE", 5]}"#, "cue[1]"),
                ("/v1/admin/channels/demo/breaks", #"{"duration": -0, "startIn": NaN}"#, nil),
            ]
            for (path, body, field) in cases {
                let response = try await client.admin(.post, path, json: body)
                #expect(response.status == .badRequest, "\(body): \(response.text)")
                #expect(response.json?["error"]?["code"]?.stringValue == "invalidInput", "\(body)")
                #expect(response.json?["error"]?["field"]?.stringValue == field, "\(body): \(response.text)")
                #expect(response.headers[.accessControlAllowOrigin] == nil)
            }
            // An empty body: refused where one is needed, "now" where it may be left out.
            let empty = try await client.admin(.post, "/v1/admin/inventory", json: "")
            #expect(empty.status == .badRequest)
            #expect(empty.json?["error"]?["message"]?.stringValue == "the request needs a JSON body")
            let created = try await client.admin(
                .post,
                "/v1/admin/channels/demo/breaks",
                json: #"{"id": "now", "duration": 30}"#
            )
            #expect(created.status == .created, "\(created.text)")
            let ended = try await client.admin(.post, "/v1/admin/channels/demo/breaks/now/early-return")
            #expect(ended.status == .conflict, "\(ended.text)")
            // 100 KB of string in a field: over the body limit before any decoding.
            let huge = String(repeating: "a", count: 100_000)
            let large = try await client.admin(.post, "/v1/admin/inventory", json: #"{"id": "\#(huge)"}"#)
            #expect(large.status == .contentTooLarge)
            #expect(large.json?["error"]?["code"]?.stringValue == "tooLarge")
        }
    }
}

@Suite(.realTime) struct TimeAmountTests {
    /// Configured timeouts become NIO time amounts from 0 to 1 day, whatever the duration.
    @Test func durationsAreClampedToADay() {
        let cases: [(Duration, Int64)] = [
            (.seconds(5), 5_000_000_000),
            (.milliseconds(100), 100_000_000),
            (.nanoseconds(1), 1),
            (.zero, 0),
            (.nanoseconds(-1), 0),
            (.seconds(Int64.min), 0),
            (.seconds(86_400), 86_400_000_000_000),
            (.seconds(86_401), 86_400_000_000_000),
            (.seconds(Int64.max), 86_400_000_000_000),
            (Duration(secondsComponent: Int64.max, attosecondsComponent: 999_999_999_999_999_999), 86_400_000_000_000),
            (Duration(secondsComponent: 1, attosecondsComponent: 999_999_999_999_999_999), 1_999_999_999),
        ]
        for (duration, nanoseconds) in cases {
            #expect(ServerApplicationParts.timeAmount(duration).nanoseconds == nanoseconds, "\(duration)")
        }
    }
}

@Suite(.realTime) struct LocalOriginTests {
    /// Playlists of mounted folders are read through NIO's file system with the same limits as
    /// remote ones: over `maximumUpstreamBytes` is a `502` saying so (also for a file that never
    /// ends), a folder or a missing file is a `404`, and a good playlist next to them is served.
    @Test(.timeLimit(.minutes(1))) func localPlaylistsAreBoundedAndMissingOnesAre404() async throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let small = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:2.0,\nseg.ts\n#EXT-X-ENDLIST\n"
        try write(small, to: folder + "/ok/main.m3u8")
        try write(small, to: folder + "/big/main.m3u8")
        try write(
            "#EXTM3U\n" + String(repeating: "#EXTINF:2.0,\nsegment-with-a-long-name.ts\n", count: 200),
            to: folder + "/big/prog.m3u8"
        )
        try FileManager.default.createDirectory(atPath: folder + "/ok/folder.m3u8", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder + "/ok/zero.m3u8", withDestinationPath: "/dev/zero")
        var configuration = try demoConfiguration(clock: ManualWallClock(t0))
        configuration.maximumUpstreamBytes = 4096
        configuration.mounts["local"] = folder
        configuration.adInsertion.assets.append(VODAsset(id: "ok", origin: "/media/local/ok/"))
        configuration.adInsertion.assets.append(VODAsset(id: "big", origin: "/media/local/big/"))
        try await withServer(configuration) { client in
            let ok = try await client.get("/vod/ok/main.m3u8")
            #expect(ok.status == .ok, "\(ok.text)")
            #expect(ok.text.hasPrefix("#EXTM3U"))
            let big = try await client.get("/vod/big/prog.m3u8")
            #expect(big.status == .badGateway, "\(big.text)")
            #expect(big.json?["error"]?["message"]?.stringValue?.contains("is too large (") == true, "\(big.text)")
            let endless = try await client.get("/vod/ok/zero.m3u8")
            #expect(endless.status == .badGateway, "\(endless.text)")
            #expect(
                endless.json?["error"]?["message"]?.stringValue?.contains("is too large") == true,
                "\(endless.text)"
            )
            for path in ["/vod/ok/folder.m3u8", "/vod/ok/missing.m3u8"] {
                let response = try await client.get(path)
                #expect(response.status == .notFound, "\(path): \(response.text)")
            }
        }
    }
}
