import AdInsertion
import Foundation
import Logging
import HLSPlaylist
import Hummingbird
import NIOCore

/// A live break as the admin API shows it.
struct BreakView: Codable, Sendable {
    var id: String
    var channel: String
    var startDate: String
    var duration: Double
    var cue: [String]
    var restrictions: [String]
    var snap: [String]
    var resumeOffset: Double?
    var playoutLimit: Double?
    var cancelled: Bool
    var origin: String

    init(_ b: LiveBreak) {
        self.id = b.id
        self.channel = b.channel
        self.startDate = b.startDate.iso8601
        self.duration = b.duration.seconds
        self.cue = b.cue
        self.restrictions = b.restrictions
        self.snap = b.snap
        self.resumeOffset = b.resumeOffset?.seconds
        self.playoutLimit = b.playoutLimit?.seconds
        self.cancelled = b.cancelled
        self.origin = b.origin.rawValue
    }
}

/// `POST /v1/admin/channels/{channel}/breaks`.
struct NewBreakRequest: Decodable {
    /// The ID; `admin-{milliseconds}` when absent.
    var id: String?
    /// `"now"` (the default) or an ISO 8601 date.
    var start: String?
    /// Seconds from now, instead of `start`.
    var startIn: Double?
    var duration: Double
    var cue: [String]?
    var restrictions: [String]?
    var snap: [String]?
    var resumeOffset: Double?
}

/// `POST /v1/admin/channels/{channel}/breaks/{id}/early-return`.
struct EarlyReturnRequest: Decodable {
    /// When the break ends: an ISO 8601 date (default: now).
    var at: String?
    /// Or: how long after its start.
    var after: Double?
}

/// A creative as the admin API shows and takes it.
struct CreativeView: Codable, Sendable {
    var id: String
    var uri: String
    var duration: Double
    var value: Double

    init(_ c: Creative) {
        self.id = c.id
        self.uri = c.uri
        self.duration = c.duration.seconds
        self.value = c.value
    }
}

/// The inventory, changeable through the admin API.
actor InventoryRegistry {
    private(set) var creatives: [Creative]
    private(set) var decider: AdDecider

    init(_ creatives: [Creative]) {
        self.creatives = creatives
        self.decider = AdDecider(inventory: creatives)
    }

    /// Applies the changes the store kept from earlier runs.
    func apply(_ changes: [InventoryChange]) {
        self.creatives = InventoryChange.apply(changes, to: self.creatives)
        self.decider = AdDecider(inventory: self.creatives)
    }

    func upsert(_ creative: Creative) {
        self.creatives.removeAll { $0.id == creative.id }
        self.creatives.append(creative)
        self.decider = AdDecider(inventory: self.creatives)
    }

    func remove(_ id: String) -> Bool {
        let before = self.creatives.count
        self.creatives.removeAll { $0.id == id }
        self.decider = AdDecider(inventory: self.creatives)
        return self.creatives.count != before
    }
}

/// JSON helpers of the admin API.
enum AdminJSON {
    /// The body, at most ``InputLimits/adminBodyBytes`` bytes (`413` beyond).
    static func body(of request: Request) async throws -> Data {
        do {
            let buffer = try await request.body.collect(upTo: InputLimits.adminBodyBytes)
            return Data(buffer.readableBytesView)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, code: "tooLarge", message: "the body is larger than \(InputLimits.adminBodyBytes) bytes")
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        guard let value = try await Self.decodeOptional(type, from: request) else {
            throw APIError.badRequest("the request needs a JSON body")
        }
        return value
    }

    static func decodeOptional<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T? {
        let data = try await Self.body(of: request)
        guard !data.isEmpty else { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw APIError.badRequest("invalid JSON body: " + ConfigurationFile.describe(error))
        } catch {
            throw APIError.badRequest("invalid JSON body: \(error)")
        }
    }

    static func response<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(value)
        return .bytes([UInt8](data), contentType: "application/json; charset=utf-8", cacheControl: "no-store", status: status)
    }
}

extension ServerApplicationParts {
    /// When a new break starts: `startIn` seconds from now, or `start` (`"now"` or an ISO 8601 date
    /// from an hour ago to 30 days ahead), now by default.
    static func breakStart(_ body: NewBreakRequest, now: DateTime) throws -> DateTime {
        if let startIn = body.startIn {
            guard body.start == nil else { throw APIError.badRequest("give 'start' or 'startIn', not both") }
            return now + (try InputLimits.seconds(startIn, in: InputLimits.startIn, field: "startIn"))
        }
        guard let text = body.start, text != "now" else { return now }
        guard text.utf8.count <= 64, let date = DateTime(iso8601: text) else {
            throw InputLimitError(field: "start", message: "must be \"now\" or an ISO 8601 date such as 2025-01-01T00:02:00.000Z, got \(InputLimits.quoted(text))")
        }
        let earliest = now + MediaTime(seconds: InputLimits.startFromNow.lowerBound)
        let latest = now + MediaTime(seconds: InputLimits.startFromNow.upperBound)
        guard date >= earliest, date <= latest else {
            throw InputLimitError(field: "start", message: "must be from an hour before now to 30 days after now, got \(date.iso8601)")
        }
        return date
    }

    /// Adds `/v1/admin/...`.
    func addAdminRoutes(to router: Router<BasicRequestContext>) {
        let admin = router.group("v1/admin").add(middleware: BearerTokenMiddleware(token: self.adminToken))
        let playlists = self.playlists
        let clock = self.clock
        let inventory = self.inventory
        let store = self.store

        admin.getAndHead("channels") { _, _ -> Response in
            struct ChannelView: Encodable {
                var id: String
                var source: String
                var url: String
                var window: Int
                var breakEvery: Double?
                var breakDuration: Double?
            }
            let views = playlists.configuration.channels.map { c -> ChannelView in
                let (source, url): (String, String)
                switch c.source {
                case .upstream(let u): (source, url) = ("upstream", URLRedaction.redact(u))
                case .loop(let origin, let playlist): (source, url) = ("loop", OriginPath.resolve(playlist, against: origin))
                }
                return ChannelView(
                    id: c.id,
                    source: source,
                    url: url,
                    window: c.windowSegments,
                    breakEvery: c.breakPlan?.interval.seconds,
                    breakDuration: c.breakPlan?.duration.seconds
                )
            }
            return try AdminJSON.response(["channels": views])
        }

        admin.getAndHead("channels/{channel}/breaks") { request, context -> Response in
            let channel = try InputLimits.id(try context.parameters.require("channel"), field: "channel")
            let now = clock.now()
            let hours = MediaTime(seconds: 3600)
            let breaks = try await playlists.breaks(channel: channel, from: now - hours, to: now + hours)
            return try AdminJSON.response(["breaks": breaks.map(BreakView.init)])
        }

        admin.post("channels/{channel}/breaks") { request, context -> Response in
            let channel = try InputLimits.id(try context.parameters.require("channel"), field: "channel")
            _ = try await playlists.channel(channel)
            let body = try await AdminJSON.decode(NewBreakRequest.self, from: request)
            let now = clock.now()
            let start = try Self.breakStart(body, now: now)
            let duration = try InputLimits.seconds(body.duration, in: InputLimits.duration, field: "duration")
            let id = try InputLimits.id(body.id ?? "admin-\(now.millisecondsSince1970)", field: "id")
            let cue = try InputLimits.members(body.cue ?? [], of: ["PRE", "POST", "ONCE"], field: "cue")
            let restrictions = try InputLimits.members(body.restrictions ?? ["SKIP", "JUMP"], of: ["SKIP", "JUMP"], field: "restrictions")
            let snap = try InputLimits.members(body.snap ?? [], of: ["OUT", "IN"], field: "snap")
            let resumeOffset = try body.resumeOffset.map { (value) throws(InputLimitError) in
                try InputLimits.seconds(value, in: InputLimits.resumeOffset, field: "resumeOffset")
            }
            if try await playlists.liveBreak(channel: channel, breakID: id) != nil {
                throw APIError(.conflict, code: "conflict", message: "channel '\(channel)' already has a break '\(id)'; IDs are never reused")
            }
            let liveBreak = LiveBreak(
                id: id,
                channel: channel,
                startDate: start,
                duration: duration,
                cue: cue,
                restrictions: restrictions,
                snap: snap,
                resumeOffset: resumeOffset,
                origin: .admin,
                updatedAt: now
            )
            do {
                try liveBreak.validate()
            } catch let error as AdInsertionError {
                throw APIError.badRequest(error.message)
            }
            try await playlists.saveBreak(liveBreak)
            context.logger.info("break created", metadata: ["channel": "\(channel)", "break": "\(id)", "start": "\(start)"])
            return try AdminJSON.response(BreakView(liveBreak), status: .created)
        }

        admin.post("channels/{channel}/breaks/{id}/early-return") { request, context -> Response in
            let channel = try InputLimits.id(try context.parameters.require("channel"), field: "channel")
            let id = try InputLimits.id(try context.parameters.require("id"), field: "id")
            guard var liveBreak = try await playlists.liveBreak(channel: channel, breakID: id), !liveBreak.cancelled else {
                throw APIError.notFound("channel '\(channel)' has no break '\(id)'")
            }
            let body = try await AdminJSON.decodeOptional(EarlyReturnRequest.self, from: request)
            let now = clock.now()
            let end: DateTime
            if let after = body?.after {
                guard body?.at == nil else { throw APIError.badRequest("give 'at' or 'after', not both") }
                end = liveBreak.startDate + (try InputLimits.seconds(after, in: InputLimits.duration, field: "after"))
            } else if let text = body?.at {
                guard text.utf8.count <= 64, let date = DateTime(iso8601: text) else {
                    throw APIError.badRequest("at must be an ISO 8601 date, got \(InputLimits.quoted(text))")
                }
                end = date
            } else {
                end = now
            }
            // Compared before subtracting, so dates far apart never overflow.
            guard end > liveBreak.startDate else {
                throw APIError(.conflict, code: "conflict", message: "break '\(id)' starts at \(liveBreak.startDate.iso8601), after the return; cancel it instead")
            }
            guard end < liveBreak.endDate else {
                throw APIError(.conflict, code: "conflict", message: "break '\(id)' ends at \(liveBreak.endDate.iso8601), before the early return")
            }
            let limit = end - liveBreak.startDate
            if let existing = liveBreak.playoutLimit, existing != limit {
                throw APIError(.conflict, code: "conflict", message: "break '\(id)' already returned early (X-PLAYOUT-LIMIT=\(existing)); a tag attribute never changes")
            }
            liveBreak.playoutLimit = limit
            liveBreak.updatedAt = now
            try await playlists.saveBreak(liveBreak)
            context.logger.info("early return", metadata: ["channel": "\(channel)", "break": "\(id)", "limit": "\(limit)"])
            return try AdminJSON.response(BreakView(liveBreak))
        }

        admin.delete("channels/{channel}/breaks/{id}") { request, context -> Response in
            let channel = try InputLimits.id(try context.parameters.require("channel"), field: "channel")
            let id = try InputLimits.id(try context.parameters.require("id"), field: "id")
            guard var liveBreak = try await playlists.liveBreak(channel: channel, breakID: id), !liveBreak.cancelled else {
                throw APIError.notFound("channel '\(channel)' has no break '\(id)'")
            }
            let now = clock.now()
            guard liveBreak.startDate > now else {
                throw APIError(
                    .conflict,
                    code: "conflict",
                    message: "break '\(id)' has started (a tag is never removed while it covers the playlist); use early-return"
                )
            }
            liveBreak.cancelled = true
            liveBreak.updatedAt = now
            try await playlists.saveBreak(liveBreak)
            return try AdminJSON.response(BreakView(liveBreak))
        }

        admin.getAndHead("inventory") { _, _ -> Response in
            try AdminJSON.response(["creatives": await inventory.creatives.map(CreativeView.init)])
        }

        admin.post("inventory") { request, _ -> Response in
            let body = try await AdminJSON.decode(CreativeView.self, from: request)
            let creative = Creative(
                id: try InputLimits.id(body.id, field: "id"),
                uri: try InputLimits.uri(body.uri, field: "uri"),
                duration: try InputLimits.seconds(body.duration, in: InputLimits.duration, field: "duration"),
                value: try InputLimits.number(body.value, in: InputLimits.creativeValue, field: "value")
            )
            // Stored before it is acknowledged, so it survives a restart.
            try await store.record(.upsert(creative))
            await inventory.upsert(creative)
            return try AdminJSON.response(body, status: .created)
        }

        admin.delete("inventory/{id}") { _, context -> Response in
            let id = try InputLimits.id(try context.parameters.require("id"), field: "id")
            guard await inventory.creatives.contains(where: { $0.id == id }) else {
                throw APIError.notFound("no creative '\(id)'")
            }
            try await store.record(.remove(id))
            _ = await inventory.remove(id)
            return Response(status: .noContent)
        }
    }
}
