import AdInsertion
import HLSPlaylist
import IntermissionStore
import Testing

/// The store contracts (`AdStore`, `TrackingStore`), checked alike on every driver: each driver's
/// test target runs every check on stores of its own
/// (`@Test(arguments: StoreContract.Check.allCases)`, with the trait `.runningStores`).
public struct StoreContract: Sendable {
    /// One check of the contracts.
    public enum Check: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case decisionsAreFoundOrCreatedOnceAndKeepTheFirst
        case breaksAndInventoryChangesAreKeptAcrossAReopen
        case twoStoresOnOneDatabaseNeverDecideTwice
        case migratingTwiceIsHarmless
        case beaconsAreStoredOnceCountedAndKeptAcrossAReopen
        case progressBeaconsAreStoredOncePerOffset

        /// The check's name.
        public var testDescription: String { self.rawValue }
    }

    /// The driver's name, for messages.
    let name: String
    /// The URL of a new, empty database.
    let freshURL: @Sendable () async throws -> String
    /// A store on the database a URL names (not migrated).
    let connect: @Sendable (String) async throws -> any ServerStore
    /// The driver's own checks of a store that was migrated more than once.
    let migrated: @Sendable (any AdStore) async throws -> Void

    /// The contracts on the stores `connect` opens on the databases `freshURL` makes.
    public init(
        name: String,
        freshURL: @escaping @Sendable () async throws -> String,
        connect: @escaping @Sendable (String) async throws -> any ServerStore,
        migrated: @escaping @Sendable (any AdStore) async throws -> Void = { _ in }
    ) {
        self.name = name
        self.freshURL = freshURL
        self.connect = connect
        self.migrated = migrated
    }

    /// Runs one check.
    public func run(_ check: Check) async throws {
        switch check {
        case .decisionsAreFoundOrCreatedOnceAndKeepTheFirst:
            try await self.decisionsAreFoundOrCreatedOnceAndKeepTheFirst()
        case .breaksAndInventoryChangesAreKeptAcrossAReopen:
            try await self.breaksAndInventoryChangesAreKeptAcrossAReopen()
        case .twoStoresOnOneDatabaseNeverDecideTwice: try await self.twoStoresOnOneDatabaseNeverDecideTwice()
        case .migratingTwiceIsHarmless: try await self.migratingTwiceIsHarmless()
        case .beaconsAreStoredOnceCountedAndKeptAcrossAReopen:
            try await self.beaconsAreStoredOnceCountedAndKeptAcrossAReopen()
        case .progressBeaconsAreStoredOncePerOffset: try await self.progressBeaconsAreStoredOncePerOffset()
        }
    }

    // MARK: - AdStore

    private static func key(_ viewer: String, _ breakID: String = "b") -> DecisionKey {
        DecisionKey(viewer: viewer, scope: "vod-movie", breakID: breakID)
    }

    private func open(_ url: String) async throws -> any AdStore {
        let store = running(try await self.connect(url))
        try await store.migrate()
        return store
    }

    private func decisionsAreFoundOrCreatedOnceAndKeepTheFirst() async throws {
        let store = try await self.open(try await self.freshURL())
        let first = try await store.findOrCreateDecision(Self.key("ann"), recentSince: nil) { _ in
            decision(Self.key("ann"), creative: "red")
        }
        #expect(first.isNew && first.decision.assets.map(\.creativeID) == ["red"])
        let again = try await store.findOrCreateDecision(Self.key("ann"), recentSince: nil) { _ in
            decision(Self.key("ann"), creative: "blue")
        }
        #expect(!again.isNew && again.decision == first.decision)
        // `save` keeps the earlier decision.
        #expect(try await store.save(decision(Self.key("ann"), creative: "green")) == first.decision)
        #expect(try await store.decision(for: Self.key("ann")) == first.decision)
        #expect(try await store.decision(for: Self.key("bob")) == nil)
        // The repeat window sees the creatives of the viewer's earlier decisions.
        let second = try await store.findOrCreateDecision(Self.key("ann", "c"), recentSince: t0) { recent in
            decision(Self.key("ann", "c"), creative: recent.contains("red") ? "not-red" : "red")
        }
        #expect(second.isNew && second.decision.assets.map(\.creativeID) == ["not-red"])
        #expect(try await store.recentCreatives(viewer: "ann", since: t0) == ["red", "not-red"])
        #expect(try await store.recentCreatives(viewer: "ann", since: t0 + 1).isEmpty)
        #expect(try await store.recentCreatives(viewer: "bob", since: t0).isEmpty)
        #expect(try await store.decisionCount() == 2)
        try await store.close()
    }

    private func breaksAndInventoryChangesAreKeptAcrossAReopen() async throws {
        let url = try await self.freshURL()
        let store = try await self.open(url)
        let news = LiveBreak(id: "news", channel: "ch", startDate: t0, duration: MediaTime(seconds: 30), updatedAt: t0)
        try await store.save(news)
        var shortened = news
        shortened.playoutLimit = MediaTime(seconds: 10)
        try await store.save(shortened)
        try await store.save(
            LiveBreak(id: "a", channel: "other", startDate: t0, duration: MediaTime(seconds: 10), updatedAt: t0)
        )
        let creative = Creative(id: "red", uri: "/ads/red.m3u8", duration: 10, value: 1)
        try await store.record(.upsert(creative))
        try await store.record(.remove("red"))
        try await store.close()

        let reopened = try await self.open(url)
        #expect(try await reopened.breaks(channel: "ch") == [shortened])
        #expect(try await reopened.breaks(channel: "other").map(\.id) == ["a"])
        #expect(try await reopened.breaks(channel: "none").isEmpty)
        #expect(try await reopened.inventoryChanges() == [.upsert(creative), .remove("red")])
        try await reopened.close()
    }

    private func twoStoresOnOneDatabaseNeverDecideTwice() async throws {
        let url = try await self.freshURL()
        let one = try await self.open(url)
        let two = try await self.open(url)
        let viewers = (0..<40).map { "viewer-\($0)" }
        // Every viewer asks both stores at once; each store would give its own creative.
        let answers = try await withThrowingTaskGroup(of: (String, String, String).self) { group in
            for viewer in viewers {
                for (name, store) in [("one", one), ("two", two)] {
                    group.addTask {
                        let answer = try await store.findOrCreateDecision(Self.key(viewer), recentSince: t0) { _ in
                            decision(Self.key(viewer), creative: name)
                        }
                        return (viewer, name, answer.decision.assets[0].creativeID)
                    }
                }
            }
            var byViewer: [String: Set<String>] = [:]
            for try await (viewer, _, creative) in group { byViewer[viewer, default: []].insert(creative) }
            return byViewer
        }
        #expect(answers.count == viewers.count)
        #expect(answers.values.allSatisfy { $0.count == 1 }, "\(answers.filter { $0.value.count > 1 })")
        #expect(try await one.decisionCount() == viewers.count)
        for viewer in viewers {
            #expect(try await two.decision(for: Self.key(viewer))?.assets[0].creativeID == answers[viewer]?.first)
        }
        try await one.close()
        try await two.close()
    }

    private func migratingTwiceIsHarmless() async throws {
        let url = try await self.freshURL()
        let store = try await self.open(url)
        _ = try await store.save(decision(Self.key("ann"), creative: "red"))
        try await store.migrate()
        try await store.migrate()
        let other = try await self.open(url)
        try await other.migrate()
        #expect(try await other.decision(for: Self.key("ann"))?.assets[0].creativeID == "red")
        #expect(try await other.decisionCount() == 1)
        try await self.migrated(other)
        try await store.close()
        try await other.close()
    }

    // MARK: - TrackingStore

    private static func beacon(_ viewer: String, slot: Int, _ event: TrackingEvent, creative: String) -> Beacon {
        Beacon(
            key: BeaconKey(viewer: viewer, scope: "vod-movie", breakID: "b", slot: slot, event: event),
            creativeID: creative,
            plan: .a,
            receivedAt: t0
        )
    }

    private func beaconsAreStoredOnceCountedAndKeptAcrossAReopen() async throws {
        let url = try await self.freshURL()
        let store = running(try await self.connect(url))
        try await store.migrate()
        let tracking = try #require(store as? any TrackingStore, "\(self.name) keeps no beacons")
        let first = try await tracking.record(Self.beacon("ann", slot: 0, .impression, creative: "red"))
        #expect(first == BeaconRecording(isNew: true, duplicates: 0))
        // Concurrent copies of one beacon: stored once, each copy counted.
        let copies = try await withThrowingTaskGroup(of: BeaconRecording.self) { group in
            for _ in 0..<6 {
                group.addTask { try await tracking.record(Self.beacon("ann", slot: 0, .impression, creative: "red")) }
            }
            return try await group.reduce(into: [BeaconRecording]()) { $0.append($1) }
        }
        #expect(copies.allSatisfy { !$0.isNew })
        #expect(Set(copies.map(\.duplicates)) == Set(1...6))
        _ = try await tracking.record(Self.beacon("bob", slot: 0, .impression, creative: "red"))
        _ = try await tracking.record(Self.beacon("bob", slot: 1, .start, creative: "green"))
        try await store.close()

        let reopened = running(try await self.connect(url))
        try await reopened.migrate()
        let again = try #require(reopened as? any TrackingStore)
        let byBreak = try await again.beaconCounts(.breakOf(scope: "vod-movie", breakID: "b"))
        #expect(
            byBreak.map { "\($0.creativeID) \($0.event.rawValue) \($0.beacons)+\($0.duplicates)" } == [
                "green start 1+0", "red impression 2+6",
            ]
        )
        #expect(byBreak.allSatisfy { $0.scope == "vod-movie" && $0.breakID == "b" && $0.plan == .a })
        let byCreative = try await again.beaconCounts(.creative("green"))
        #expect(byCreative.map(\.scope) == ["*"] && byCreative.map(\.beacons) == [1])
        #expect(try await again.beaconCounts(.breakOf(scope: "vod-movie", breakID: "other")).isEmpty)
        try await reopened.close()
    }

    /// A slot's progress beacons are one row per offset (`progress@{ms}`): each offset is new once,
    /// a copy of one is a duplicate, and the reports add a slot's offsets up on one `progress` line.
    private func progressBeaconsAreStoredOncePerOffset() async throws {
        let store = running(try await self.connect(try await self.freshURL()))
        try await store.migrate()
        let tracking = try #require(store as? any TrackingStore, "\(self.name) keeps no beacons")
        func progress(_ milliseconds: Int) -> Beacon {
            var beacon = Self.beacon("ann", slot: 0, .progress, creative: "red")
            beacon.key.detail = String(milliseconds)
            return beacon
        }
        #expect(try await tracking.record(progress(3000)) == BeaconRecording(isNew: true, duplicates: 0))
        #expect(try await tracking.record(progress(10000)) == BeaconRecording(isNew: true, duplicates: 0))
        #expect(try await tracking.record(progress(3000)) == BeaconRecording(isNew: false, duplicates: 1))
        _ = try await tracking.record(Self.beacon("ann", slot: 0, .error, creative: "red"))
        let lines = try await tracking.beaconCounts(.breakOf(scope: "vod-movie", breakID: "b"))
        #expect(
            lines.map { "\($0.creativeID) \($0.event.rawValue) \($0.beacons)+\($0.duplicates)" } == [
                "red progress 2+1", "red error 1+0",
            ]
        )
        try await store.close()
    }
}
