import AdInsertion
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import IntermissionHTTP
import IntermissionStore

/// `GET /health` and `GET /metrics`.
struct HealthController: Sendable {
    let playlists: PlaylistService
    let store: any AdStore
    let storageHealth: StorageHealth
    let metrics: ServerMetrics
    let clock: any WallClock
    let adminToken: String?
    /// Creative conditioning, if configured: a missing ffmpeg or ffprobe degrades the health.
    var conditioner: CreativeConditioner? = nil

    /// Adds the routes.
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.getAndHead("health") { request, context -> Response in
            try await self.health(request, context: context)
        }
        router.getAndHead("metrics") { _, _ -> Response in
            .bytes(
                self.metrics.emit(),
                contentType: "text/plain; version=0.0.4; charset=utf-8",
                cacheControl: "no-store"
            )
        }
    }

    /// `GET /health`: `{"status": "ok" | "degraded"}` for everyone; with the admin token (the same
    /// check as `/v1/admin`), the detail: channels (upstream URLs redacted), decisions, storage.
    func health(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let detail = try await self.healthDetail()
        let authorized = BearerTokenMiddleware<ServerRequestContext>(token: self.adminToken).authorizes(request)
        let body: JSONValue =
            authorized ? detail.body : .object([("status", .string(detail.degraded ? "degraded" : "ok"))])
        return .bytes(body.serialized(options: .pretty), contentType: "application/json", cacheControl: "no-store")
    }

    /// Everything `/health` knows, and whether any of it is degraded.
    func healthDetail() async throws -> (degraded: Bool, body: JSONValue) {
        let now = self.clock.now()
        var channels: [JSONValue] = []
        var degraded = false
        let states = await self.playlists.health
        for channel in self.playlists.configuration.channels {
            var entry: [(String, JSONValue)] = [("id", .string(channel.id))]
            switch channel.source {
            case .loop:
                entry.append(("source", "loop"))
                entry.append(("state", "ok"))
            case .upstream(let url):
                entry.append(("source", "upstream"))
                entry.append(("upstream", .string(URLRedaction.redact(url))))
                let state = states[channel.id]
                let status: String
                if let error = state?.lastError {
                    status = "unreachable"
                    entry.append(("message", .string(error)))
                } else if let change = state?.lastChange {
                    let age = now - change
                    status = age > channel.staleAfter ? "stale" : "ok"
                    entry.append(("lastUpdate", .string(change.iso8601)))
                    entry.append(("secondsSinceUpdate", .number(age.seconds)))
                    if status == "stale" {
                        entry.append(
                            (
                                "message",
                                .string(
                                    "the upstream playlist has not changed for \(Int(age.seconds)) s (limit \(Int(channel.staleAfter.seconds)) s)"
                                )
                            )
                        )
                    }
                } else {
                    status = "unknown"
                }
                if status == "stale" || status == "unreachable" { degraded = true }
                entry.append(("state", .string(status)))
            }
            channels.append(.object(entry))
        }
        var storage: [(String, JSONValue)] = []
        let written = self.storageHealth.snapshot
        let unavailable = await self.store.unavailability()
        let storageState = unavailable != nil ? "unavailable" : (written.failing ? "failing" : "ok")
        if storageState != "ok" { degraded = true }
        storage.append(("state", .string(storageState)))
        storage.append(("failedWrites", .number(Double(written.failures))))
        if let message = unavailable ?? written.lastFailure?.message { storage.append(("message", .string(message))) }
        if let date = written.lastFailure?.date { storage.append(("lastFailure", .string(date.iso8601))) }
        var fields: [(String, JSONValue)] = [
            ("status", .string(degraded ? "degraded" : "ok")), ("time", .string(now.iso8601)),
        ]
        if let count = try? await self.store.decisionCount() { fields.append(("decisions", .number(Double(count)))) }
        fields.append(("storage", .object(storage)))
        if let conditioner = self.conditioner {
            var conditioning: [(String, JSONValue)] = [("ffmpeg", .string(conditioner.ffmpeg ?? "missing"))]
            if let problem = conditioner.toolProblem {
                conditioning.append(("problem", .string(problem)))
                degraded = true
                fields[0] = ("status", .string("degraded"))
            }
            fields.append(("conditioning", .object(conditioning)))
        }
        fields.append(("channels", .array(channels)))
        return (degraded, .object(fields))
    }
}
