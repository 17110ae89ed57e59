import AdInsertion
import HTTPTypes
import Hummingbird
import IntermissionHTTP

/// `/v1/track/{token}/{event}` (beacons), `/v1/track/{token}/error?errorcode=…` (a failed ad) and
/// `/v1/admin/reports/...` (what arrived).
struct TrackingController: Sendable {
    let tracking: TrackingService

    /// Adds the beacon routes to `router`.
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.get("v1/track/{token}/error", use: self.handler(event: "error"))
        router.post("v1/track/{token}/error", use: self.handler(event: "error"))
        router.get("v1/track/{token}/{event}", use: self.handler(event: nil))
        router.post("v1/track/{token}/{event}", use: self.handler(event: nil))
    }

    /// The handler of a beacon route: `event` names the event, or `nil` for the path's `{event}`.
    private func handler(
        event fixed: String?
    ) -> @Sendable (Request, ServerRequestContext) async throws -> Response {
        { request, context in
            let token = try context.parameters.require("token")
            let event = try fixed ?? context.parameters.require("event")
            guard token.utf8.count <= TokenSigner.maximumTokenBytes else {
                throw APIError(
                    .forbidden,
                    code: "badBeaconToken",
                    message: "the beacon URL is not one this server signed"
                )
            }
            let recording = try await self.tracking.track(token: token, event: event, request: request)
            var response = Response(status: .noContent)
            response.headers[.cacheControl] = "no-store"
            response.headers[Self.duplicateHeader] = recording.isNew ? "0" : String(recording.duplicates)
            return response
        }
    }

    /// The response field that says how many duplicates of the beacon arrived before (0: it was new).
    static let duplicateHeader = HTTPField.Name("X-Intermission-Duplicates")!

    /// Adds the report routes to `group` (the `v1/admin` group, with the token middleware).
    func addAdminRoutes(to group: RouterGroup<ServerRequestContext>) {
        group.getAndHead("reports/breaks/{scope}/{break}") { _, context -> Response in
            let scope = try context.parameters.require("scope")
            let breakID = try InputLimits.id(try context.parameters.require("break"), field: "break")
            guard AdScope(rawValue: scope) != nil else {
                throw APIError.notFound("unknown scope: expected vod-{asset} or live-{channel}")
            }
            let lines = try await self.tracking.store.beaconCounts(.breakOf(scope: scope, breakID: breakID))
            return try await self.report(lines)
        }
        group.getAndHead("reports/creatives/{creative}") { _, context -> Response in
            let creative = try InputLimits.id(try context.parameters.require("creative"), field: "creative")
            return try await self.report(try await self.tracking.store.beaconCounts(.creative(creative)))
        }
    }

    private struct Report: Encodable {
        var lines: [BeaconCount]
        var beacons: Int
        var duplicates: Int
        var forwarding: BeaconForwarder.Statistics
    }

    private func report(_ lines: [BeaconCount]) async throws -> Response {
        try AdminJSON.response(
            Report(
                lines: lines,
                beacons: lines.reduce(0) { $0 + $1.beacons },
                duplicates: lines.reduce(0) { $0 + $1.duplicates },
                forwarding: await self.tracking.forwarder.currentStatistics()
            )
        )
    }
}
