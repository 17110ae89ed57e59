import AdInsertion
import Foundation
import HLSPlaylist
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A local file of the decisions and beacons acknowledged while the shared database could not be
/// reached, so that none is lost.
///
/// Each is appended as one JSON line and flushed to the disk
/// (`fsync`) before it is acknowledged, and kept in memory so that a viewer who asks again gets the
/// same pod. When the database answers again, `PostgresAdStore` writes every entry to it (a
/// decision with `INSERT … ON CONFLICT`, so one another instance stored meanwhile wins) and then
/// empties the file; entries left by a process that was killed are read at the next start and
/// written the same way.
///
/// The file is locked (`flock`) while open: two instances on one journal are refused at start. A
/// last line cut short by a crash (never acknowledged, since the flush comes after the whole line)
/// is ignored.
package final class DecisionJournal: Sendable {
    /// One line of the file.
    package enum Entry: Codable, Sendable, Equatable {
        case decision(AdDecision)
        case beacon(Beacon)

        /// What it keeps: `decision` or `beacon` (the metrics' `kind` label).
        var kind: String {
            switch self {
            case .decision: "decision"
            case .beacon: "beacon"
            }
        }
    }

    /// What happens to entries, for the server's metrics.
    package enum Event: String, Sendable {
        /// Appended to the journal (the database could not be reached).
        case journaled
        /// Written to the database and dropped from the journal.
        case replayed
    }

    /// Told of entries journaled and replayed: kind, event, count.
    package typealias Observer = @Sendable (_ kind: String, _ event: Event, _ count: Int) -> Void

    /// The most entries kept (decisions and beacons): past it, writes fail as without a journal,
    /// so that a long outage cannot fill the disk or the memory.
    package static let capacity = 1_000_000

    package let path: String
    private let state: Mutex<State>
    private let observer = Mutex<Observer?>(nil)

    private struct State {
        /// The open, locked file.
        var descriptor: Int32 = -1
        var decisions: [DecisionKey: AdDecision] = [:]
        var beacons: [BeaconKey: (beacon: Beacon, duplicates: Int)] = [:]
        var order: [Entry] = []
    }

    /// Opens (creating when missing) and locks the journal at `path`, and reads what it holds.
    ///
    /// - Throws: ``ConfigurationError`` when the file cannot be opened or is locked by another
    ///   process.
    package init(path: String) throws {
        let descriptor = try Self.openLocked(path)
        self.path = path
        var state = State()
        state.descriptor = descriptor
        let data = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
        let decoder = JSONDecoder()
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            guard let entry = try? decoder.decode(Entry.self, from: Data(line)) else { continue }
            Self.add(entry, to: &state)
        }
        self.state = Mutex(state)
    }

    deinit {
        self.release()
    }

    /// Releases the file and its lock (what it holds stays in the file for the next start); later
    /// writes fail.
    package func release() {
        self.state.withLock { state in
            guard state.descriptor >= 0 else { return }
            flock(state.descriptor, LOCK_UN)
            close(state.descriptor)
            state.descriptor = -1
        }
    }

    /// Opens `path` for appending (creating it) and takes its lock.
    private static func openLocked(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ConfigurationError(
                key: "database",
                message: "journal '\(path)': cannot open it (\(String(cString: strerror(errno))))"
            )
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw ConfigurationError(
                key: "database",
                message: "journal '\(path)' is in use by another process; give each instance its own (journal=PATH)"
            )
        }
        return descriptor
    }

    /// Writes all of `data` to `descriptor`.
    private static func writeAll(_ data: Data, to descriptor: Int32) -> Bool {
        data.withUnsafeBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
    }

    private static func add(_ entry: Entry, to state: inout State) {
        switch entry {
        case .decision(let decision):
            guard state.decisions[decision.key] == nil else { return }
            state.decisions[decision.key] = decision
        case .beacon(let beacon):
            if let known = state.beacons[beacon.key] {
                state.beacons[beacon.key] = (known.beacon, known.duplicates + 1)
            } else {
                state.beacons[beacon.key] = (beacon, 0)
            }
        }
        state.order.append(entry)
    }

    /// Tells `observer` of the entries journaled and replayed from now on.
    package func observe(_ observer: @escaping Observer) {
        self.observer.withLock { $0 = observer }
    }

    private func tell(_ kind: String, _ event: Event, _ count: Int) {
        guard count > 0, let observer = self.observer.withLock({ $0 }) else { return }
        observer(kind, event, count)
    }

    /// Whether it holds entries not yet written to the database.
    package var isEmpty: Bool { self.state.withLock { $0.order.isEmpty } }

    /// How many entries it holds.
    package var count: Int { self.state.withLock { $0.order.count } }

    /// The decision journaled for `key`.
    package func decision(for key: DecisionKey) -> AdDecision? {
        self.state.withLock { $0.decisions[key] }
    }

    /// The creatives journaled for `viewer` in decisions made at or after `since`.
    package func recentCreatives(viewer: String, since: DateTime) -> Set<String> {
        self.state.withLock { state in
            var creatives = Set<String>()
            for decision in state.decisions.values where decision.viewer == viewer && decision.decidedAt >= since {
                for asset in decision.assets { creatives.insert(asset.creativeID) }
            }
            return creatives
        }
    }

    /// Appends a decision unless one is journaled for its key, durably; returns the journaled one.
    package func journal(_ decision: AdDecision) throws -> (decision: AdDecision, isNew: Bool) {
        let made = try self.state.withLock { state -> (decision: AdDecision, isNew: Bool) in
            if let known = state.decisions[decision.key] { return (known, false) }
            try self.append(.decision(decision), state: &state)
            return (decision, true)
        }
        if made.isNew { self.tell("decision", .journaled, 1) }
        return made
    }

    /// Appends a beacon durably; a copy of one journaled adds to its duplicates.
    package func journal(_ beacon: Beacon) throws -> BeaconRecording {
        let recording = try self.state.withLock { state in
            try self.append(.beacon(beacon), state: &state)
            let duplicates = state.beacons[beacon.key]?.duplicates ?? 0
            return BeaconRecording(isNew: duplicates == 0, duplicates: duplicates)
        }
        self.tell("beacon", .journaled, 1)
        return recording
    }

    private func append(_ entry: Entry, state: inout State) throws {
        guard state.order.count < Self.capacity else {
            throw AdInsertionError(code: .storage, message: "the journal is full (\(Self.capacity) entries)")
        }
        var line = try JSONEncoder().encode(entry)
        line.append(UInt8(ascii: "\n"))
        guard Self.writeAll(line, to: state.descriptor), fsync(state.descriptor) == 0 else {
            throw AdInsertionError(
                code: .storage,
                message: "the journal '\(self.path)' could not be written: \(String(cString: strerror(errno)))"
            )
        }
        Self.add(entry, to: &state)
    }

    /// The entries in the order they were acknowledged.
    package func entries() -> [Entry] {
        self.state.withLock { $0.order }
    }

    /// Forgets the first `count` entries (written to the database).
    ///
    /// With nothing left, the file is emptied in place. Otherwise (entries journaled while the
    /// first ones were being written) the rest goes to a new file that replaces the journal by
    /// `rename`, so that a crash at any moment leaves either the old journal or the new one: an
    /// entry written twice to the database is harmless (a decision's key is unique), one lost is not.
    package func drop(first count: Int) throws {
        let dropped = try self.state.withLock { state -> [Entry] in
            let dropped = Array(state.order.prefix(count))
            try Self.keep(Array(state.order.dropFirst(count)), of: &state, path: self.path)
            return dropped
        }
        let decisions = dropped.count(where: { $0.kind == "decision" })
        self.tell("decision", .replayed, decisions)
        self.tell("beacon", .replayed, dropped.count - decisions)
    }

    /// Keeps only `rest`, in the file and in memory.
    private static func keep(_ rest: [Entry], of state: inout State, path: String) throws {
        var fresh = State()
        for entry in rest { Self.add(entry, to: &fresh) }
        if rest.isEmpty {
            guard ftruncate(state.descriptor, 0) == 0, fsync(state.descriptor) == 0 else {
                throw AdInsertionError(code: .storage, message: "the journal '\(path)' could not be emptied")
            }
            fresh.descriptor = state.descriptor
            state = fresh
            return
        }
        var text = Data()
        let encoder = JSONEncoder()
        for entry in rest {
            text.append(try encoder.encode(entry))
            text.append(UInt8(ascii: "\n"))
        }
        let temporary = path + ".new"
        let descriptor = open(temporary, O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw AdInsertionError(code: .storage, message: "the journal '\(temporary)' could not be made")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, Self.writeAll(text, to: descriptor),
            fsync(descriptor) == 0, rename(temporary, path) == 0
        else {
            close(descriptor)
            throw AdInsertionError(code: .storage, message: "the journal '\(path)' could not be rewritten")
        }
        Self.syncFolder(of: path)
        flock(state.descriptor, LOCK_UN)
        close(state.descriptor)
        fresh.descriptor = descriptor
        state = fresh
    }

    /// Flushes the folder holding `path`, so that a rename into it survives a power cut.
    private static func syncFolder(of path: String) {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}
