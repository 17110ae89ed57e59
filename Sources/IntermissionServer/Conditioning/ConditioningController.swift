import AdInsertion
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import IntermissionHTTP

/// `GET /v1/admin/conditioning`: where creative conditioning stands (bearer token).
struct ConditioningController: Sendable {
    let conditioner: CreativeConditioner?

    /// The most records listed.
    static let listed = 500

    /// Adds the route to the admin group.
    func addAdminRoutes(to group: RouterGroup<ServerRequestContext>) {
        group.getAndHead("conditioning") { _, _ -> Response in
            let body = try await Self.status(of: self.conditioner)
            return .bytes(body.serialized(options: .pretty), contentType: "application/json", cacheControl: "no-store")
        }
    }

    /// The status: whether conditioning is on, the tools, this instance's queue, and every record
    /// (the most recently changed first, at most ``listed``) with its state, attempts, next attempt
    /// and error, and the URI it is served under when ready.
    static func status(of conditioner: CreativeConditioner?) async throws -> JSONValue {
        guard let conditioner else { return .object([("enabled", .bool(false))]) }
        let (records, queued, running) = try await conditioner.report(limit: Self.listed)
        var counts: [String: Int] = [:]
        for record in records { counts[record.state.rawValue, default: 0] += 1 }
        var creatives: [JSONValue] = []
        for record in records {
            var fields: [(String, JSONValue)] = [
                ("key", .string(record.key)), ("creative", .string(record.creativeID)),
                ("source", .string(record.sourceURL)), ("state", .string(record.state.rawValue)),
                ("attempts", .number(Double(record.attempts))), ("updatedAt", .string(record.updatedAt.iso8601)),
            ]
            if let next = record.nextAttempt { fields.append(("nextAttempt", .string(next.iso8601))) }
            if let error = record.error { fields.append(("error", .string(error))) }
            if let owner = record.leaseOwner { fields.append(("leaseOwner", .string(owner))) }
            if record.state == .ready { fields.append(("uri", .string(await conditioner.uri(of: record.key)))) }
            creatives.append(.object(fields))
        }
        var tools: [(String, JSONValue)] = [
            ("ffmpeg", conditioner.ffmpeg.map { .string($0) } ?? .null),
            ("ffprobe", conditioner.ffprobe.map { .string($0) } ?? .null),
            ("limits", .bool(conditioner.runner.limitsApplied)),
        ]
        if let problem = conditioner.toolProblem { tools.append(("problem", .string(problem))) }
        return .object([
            ("enabled", .bool(true)),
            ("tools", .object(tools)),
            ("queued", .number(Double(queued))),
            ("running", .number(Double(running))),
            ("states", .object(counts.sorted { $0.key < $1.key }.map { ($0.key, .number(Double($0.value))) })),
            ("creatives", .array(creatives)),
        ])
    }
}
