import AdInsertion
import HLSPlaylist
import Hummingbird
import IntermissionHTTP
import IntermissionStore
import Logging

/// `/v1/admin/...`: channels and their breaks, and the inventory, behind the bearer token.
struct AdminController: Sendable {
    let playlists: PlaylistService
    let inventory: InventoryRegistry
    /// Reads a local creative's duration from its media before it is stored.
    let durations: CreativeDurations
    let store: any AdStore
    let clock: any WallClock

    /// Adds the routes to `group` (the `v1/admin` group, with the token middleware).
    func addRoutes(to group: RouterGroup<ServerRequestContext>) {
        group.getAndHead("channels") { _, _ -> Response in
            struct ChannelView: Encodable {
                var id: String
                var source: String
                var url: String
                var window: Int
                var breakEvery: Double?
                var breakDuration: Double?
            }
            let views = self.playlists.configuration.channels.map { c -> ChannelView in
                let (source, url): (String, String)
                switch c.source {
                case .upstream(let u): (source, url) = ("upstream", URLRedaction.redact(u))
                case .loop(let origin, let playlist):
                    (source, url) = ("loop", OriginPath.resolve(playlist, against: origin))
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

        group.getAndHead("channels/{channel}/breaks") { request, context -> Response in
            let channel = try InputLimits.id(try context.parameters.require("channel"), field: "channel")
            let now = self.clock.now()
            let hours = MediaTime(seconds: 3600)
            let breaks = try await self.playlists.breaks(channel: channel, from: now - hours, to: now + hours)
            return try AdminJSON.response(["breaks": breaks.map(BreakView.init)])
        }

        group.post("channels/{channel}/breaks") { request, context -> Response in
            let channel = try InputLimits.id(try context.parameters.require("channel"), field: "channel")
            _ = try await self.playlists.channel(channel)
            let body = try await request.decode(as: NewBreakRequest.self, context: context)
            let now = self.clock.now()
            let start = try Self.breakStart(body, now: now)
            let duration = try InputLimits.seconds(body.duration, in: InputLimits.duration, field: "duration")
            let id = try InputLimits.id(body.id ?? "admin-\(now.millisecondsSince1970)", field: "id")
            let cue = try InputLimits.members(body.cue ?? [], of: AttributeName.cue.allowedValues ?? [], field: "cue")
            let restrictions = try InputLimits.members(
                body.restrictions ?? AttributeName.restrict.allowedValues ?? [],
                of: AttributeName.restrict.allowedValues ?? [],
                field: "restrictions"
            )
            let snap = try InputLimits.members(
                body.snap ?? [],
                of: AttributeName.snap.allowedValues ?? [],
                field: "snap"
            )
            let resumeOffset = try body.resumeOffset.map { (value) throws(InputLimitError) in
                try InputLimits.seconds(value, in: InputLimits.resumeOffset, field: "resumeOffset")
            }
            if try await self.playlists.liveBreak(channel: channel, breakID: id) != nil {
                throw APIError(
                    .conflict,
                    code: "conflict",
                    message: "channel '\(channel)' already has a break '\(id)'; IDs are never reused"
                )
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
            try await self.playlists.saveBreak(liveBreak)
            context.logger.info(
                "break created",
                metadata: ["channel": "\(channel)", "break": "\(id)", "start": "\(start)"]
            )
            return try AdminJSON.response(BreakView(liveBreak), status: .created)
        }

        group.post("channels/{channel}/breaks/{id}/early-return") { request, context -> Response in
            let (channel, id, found) = try await self.activeBreak(context)
            var liveBreak = found
            let body = try await request.decode(as: EarlyReturnRequest.self, context: context)
            let now = self.clock.now()
            let end: DateTime
            if let after = body.after {
                guard body.at == nil else { throw APIError.badRequest("give 'at' or 'after', not both") }
                end = liveBreak.startDate + (try InputLimits.seconds(after, in: InputLimits.duration, field: "after"))
            } else if let text = body.at {
                guard text.utf8.count <= 64, let date = DateTime(iso8601: text) else {
                    throw APIError.badRequest("at must be an ISO 8601 date, got \(InputLimits.quoted(text))")
                }
                end = date
            } else {
                end = now
            }
            // Compared before subtracting, so dates far apart never overflow.
            guard end > liveBreak.startDate else {
                throw APIError(
                    .conflict,
                    code: "conflict",
                    message:
                        "break '\(id)' starts at \(liveBreak.startDate.iso8601), after the return; cancel it instead"
                )
            }
            guard end < liveBreak.endDate else {
                throw APIError(
                    .conflict,
                    code: "conflict",
                    message: "break '\(id)' ends at \(liveBreak.endDate.iso8601), before the early return"
                )
            }
            let limit = end - liveBreak.startDate
            if let existing = liveBreak.playoutLimit, existing != limit {
                throw APIError(
                    .conflict,
                    code: "conflict",
                    message:
                        "break '\(id)' already returned early (X-PLAYOUT-LIMIT=\(existing)); a tag attribute never changes"
                )
            }
            liveBreak.playoutLimit = limit
            try await self.save(&liveBreak, at: now)
            context.logger.info(
                "early return",
                metadata: ["channel": "\(channel)", "break": "\(id)", "limit": "\(limit)"]
            )
            return try AdminJSON.response(BreakView(liveBreak))
        }

        group.delete("channels/{channel}/breaks/{id}") { request, context -> Response in
            let (_, id, found) = try await self.activeBreak(context)
            var liveBreak = found
            let now = self.clock.now()
            guard liveBreak.startDate > now else {
                throw APIError(
                    .conflict,
                    code: "conflict",
                    message:
                        "break '\(id)' has started (a tag is never removed while it covers the playlist); use early-return"
                )
            }
            liveBreak.cancelled = true
            try await self.save(&liveBreak, at: now)
            return try AdminJSON.response(BreakView(liveBreak))
        }

        group.getAndHead("inventory") { _, _ -> Response in
            try AdminJSON.response(["creatives": await self.inventory.views()])
        }

        group.post("inventory") { request, context -> Response in
            let body = try await request.decode(as: CreativeView.self, context: context)
            var creative = Creative(
                id: try InputLimits.id(body.id, field: "id"),
                uri: try InputLimits.uri(body.uri, field: "uri"),
                duration: try InputLimits.seconds(body.duration, in: InputLimits.duration, field: "duration"),
                value: try InputLimits.number(body.value, in: InputLimits.creativeValue, field: "value"),
                scopes: try CreativeView.scopes(body.scopes, field: "scopes")
            )
            // A local creative is stored with its media's duration (the answer says when that is
            // not the one sent); a remote one with the duration sent.
            var view = CreativeView(creative)
            if CreativeDurations.isLocal(creative) {
                switch await self.durations.measure(creative.uri) {
                case .success(let measured):
                    if measured.disagrees(with: creative.duration) {
                        view.warning =
                            "its media last \(measured.duration) s, not \(creative.duration) s: stored with the media's duration"
                    }
                    creative.duration = measured.duration
                    view.duration = measured.duration.seconds
                case .failure(let failure):
                    view.warning =
                        "its media's duration cannot be read (\(failure.message)): stored with the duration sent"
                }
            }
            // Stored before it is acknowledged, so it survives a restart.
            try await self.store.record(.upsert(creative))
            await self.inventory.upsert(creative)
            return try AdminJSON.response(view, status: .created)
        }

        group.delete("inventory/{id}") { _, context -> Response in
            let id = try InputLimits.id(try context.parameters.require("id"), field: "id")
            guard await self.inventory.creatives.contains(where: { $0.id == id }) else {
                throw APIError.notFound("no creative '\(id)'")
            }
            try await self.store.record(.remove(id))
            _ = await self.inventory.remove(id)
            return Response(status: .noContent)
        }
    }

    /// The channel, ID and stored break named by the route's `{channel}` and `{id}`, when the break
    /// exists and is not cancelled; a 404 otherwise.
    func activeBreak(_ context: ServerRequestContext) async throws -> (String, String, LiveBreak) {
        let channel = try InputLimits.id(try context.parameters.require("channel"), field: "channel")
        let id = try InputLimits.id(try context.parameters.require("id"), field: "id")
        guard let liveBreak = try await self.playlists.liveBreak(channel: channel, breakID: id), !liveBreak.cancelled
        else {
            throw APIError.notFound("channel '\(channel)' has no break '\(id)'")
        }
        return (channel, id, liveBreak)
    }

    /// Stamps a changed break with `now` and saves it.
    func save(_ liveBreak: inout LiveBreak, at now: DateTime) async throws {
        liveBreak.updatedAt = now
        try await self.playlists.saveBreak(liveBreak)
    }

    /// When a new break starts: `startIn` seconds from now, or `start` (`"now"` or an ISO 8601 date
    /// from an hour ago to 30 days ahead), now by default.
    static func breakStart(_ body: NewBreakRequest, now: DateTime) throws -> DateTime {
        if let startIn = body.startIn {
            guard body.start == nil else { throw APIError.badRequest("give 'start' or 'startIn', not both") }
            return now + (try InputLimits.seconds(startIn, in: InputLimits.startIn, field: "startIn"))
        }
        guard let text = body.start, text != "now" else { return now }
        guard text.utf8.count <= 64, let date = DateTime(iso8601: text) else {
            throw InputLimitError(
                field: "start",
                message:
                    "must be \"now\" or an ISO 8601 date such as 2025-01-01T00:02:00.000Z, got \(InputLimits.quoted(text))"
            )
        }
        let earliest = now + MediaTime(seconds: InputLimits.startFromNow.lowerBound)
        let latest = now + MediaTime(seconds: InputLimits.startFromNow.upperBound)
        guard date >= earliest, date <= latest else {
            throw InputLimitError(
                field: "start",
                message: "must be from an hour before now to 30 days after now, got \(date.iso8601)"
            )
        }
        return date
    }
}
