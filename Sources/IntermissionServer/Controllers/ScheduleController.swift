import AdInsertion
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Hummingbird
import IntermissionHTTP
import NIOCore
import Synchronization

/// `GET /v1/schedules/{scope}/{break}.json`: a live break of a channel with `breakFormat: schedule`
/// as a scheduled-date-range document (Appendix H, preliminary): one interstitial per ad.
///
/// The pod is decided exactly as the asset-list route decides it (the same controller answers
/// first: the same decision store, viewer, plans and tracking); its asset list is then rewritten
/// as `{"DATERANGES":[...]}`. Entry `k` (from 1) has `ID` `{break}-{k}`, `X-SCHEDULE-OFFSET` the
/// earlier ads' durations, `DURATION` and `X-RESUME-OFFSET` its ad's duration (so that each ad
/// resumes the primary where the next one starts, and the pod occupies the break once),
/// `X-ASSET-URI` the ad, the break's `X-RESTRICT`, the pod's skip control cut to the ad, and the
/// entry's other members (its `X-AD-CREATIVE-SIGNALING` when beacons are on, its `start`s counted
/// from the entry's own interstitial) as they are. After an early return the ads from the return
/// on are left out and the one under way is cut to it (``document(_:breakID:restrictions:snap:playoutLimit:)``).
struct ScheduleController: Sendable {
    /// Decides the pod.
    let assetLists: AssetListController

    /// Adds the route.
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.getAndHead("v1/schedules/{scope}/{break}.json") { request, context -> Response in
            let input = try AssetListController.input(request, context: context)
            return try await self.schedule(input, request: request, context: context)
        }
    }

    /// The schedule of one viewer and break.
    func schedule(_ input: AssetListInput, request: Request, context: ServerRequestContext) async throws -> Response {
        let breakID = input.breakID
        guard let scope = AdScope(rawValue: input.scope), scope.kind == .live else {
            throw APIError.notFound("unknown scope: schedules are written for live-{channel}")
        }
        guard self.assetLists.playlists.configuration.channel(scope.name)?.breakFormat == .schedule else {
            throw APIError.notFound("channel '\(scope.name)' does not publish its breaks as schedules")
        }
        let answer = try await self.assetLists.assetList(input, request: request, context: context)
        let bytes = try await Self.collect(answer.body)
        let list = try AssetList.decode(Array(buffer: bytes))
        let liveBreak = try await self.assetLists.playlists.liveBreak(channel: scope.name, breakID: breakID)
        let document = Self.document(
            list,
            breakID: breakID,
            restrictions: liveBreak?.restrictions ?? [],
            snap: liveBreak?.snap ?? [],
            playoutLimit: liveBreak?.playoutLimit
        )
        var response = Response.bytes(
            document.serialized(),
            contentType: "application/json",
            cacheControl: "private, no-store"
        )
        response.status = answer.status
        response.headers[AssetListController.decisionHeader] = answer.headers[AssetListController.decisionHeader]
        return response
    }

    /// The schedule document of a pod's asset list.
    ///
    /// Each ad is an interstitial of its own that replaces its duration of the break. The break's
    /// `X-RESTRICT` goes on every one; of its `X-SNAP`, `OUT` goes on the first ad (where the break
    /// leaves the primary) and `IN` on the last (where it returns); the ads between follow each
    /// other on the schedule's offsets. Each entry's `X-AD-CREATIVE-SIGNALING` counts its `start`s
    /// from its own interstitial (the asset list counts them from the pod's start).
    ///
    /// A break that returned early (`playoutLimit`, from the break's start) keeps the ads that
    /// start before the return; the one under way at the return gets `X-PLAYOUT-LIMIT` and
    /// `X-RESUME-OFFSET` cut to it, so the primary resumes at the return (and `IN` goes on it).
    static func document(
        _ list: AssetList,
        breakID: String,
        restrictions: [String],
        snap: [String] = [],
        playoutLimit: MediaTime? = nil
    ) -> JSONValue {
        var kept: [(asset: AssetList.Asset, start: MediaTime)] = []
        var podStart = MediaTime.zero
        for asset in list.assets {
            if let playoutLimit, podStart >= playoutLimit { break }
            kept.append((asset, podStart))
            podStart = podStart + asset.duration
        }
        var entries: [JSONValue] = []
        for (index, (asset, start)) in kept.enumerated() {
            let cut = playoutLimit.map { $0 - start }.flatMap { $0 < asset.duration ? $0 : nil }
            var members: [(String, JSONValue)] = [
                ("ID", .string("\(breakID)-\(index + 1)")),
                ("CLASS", .string(DateRange.interstitialClass)),
                ("X-SCHEDULE-OFFSET", .number(JSONNumber(start))),
                ("DURATION", .number(JSONNumber(asset.duration))),
                ("X-ASSET-URI", .string(asset.uri)),
                ("X-RESUME-OFFSET", .number(JSONNumber(cut ?? asset.duration))),
            ]
            if let cut { members.append(("X-PLAYOUT-LIMIT", .number(JSONNumber(cut)))) }
            if !restrictions.isEmpty { members.append(("X-RESTRICT", .string(restrictions.joined(separator: ",")))) }
            var snapped: [String] = []
            if index == 0, snap.contains(AttributeName.Value.out) { snapped.append(AttributeName.Value.out) }
            if index == kept.count - 1, snap.contains(AttributeName.Value.in) {
                snapped.append(AttributeName.Value.in)
            }
            if !snapped.isEmpty { members.append(("X-SNAP", .string(snapped.joined(separator: ",")))) }
            if let skip = list.skipControl, let offset = skip.offset, offset < start + asset.duration {
                members.append(("X-SKIP-CONTROL-OFFSET", .number(JSONNumber(max(.zero, offset - start)))))
                if let duration = skip.duration {
                    members.append(("X-SKIP-CONTROL-DURATION", .number(JSONNumber(duration))))
                }
            }
            for member in Self.signalingFromItsOwnStart(asset, podStart: start).otherMembers {
                members.append((member.key, member.value))
            }
            entries.append(.object(members))
        }
        return .object([("DATERANGES", .array(entries))])
    }

    /// The asset with its `X-AD-CREATIVE-SIGNALING` `start`s (of each slot or pod, and of a pod's
    /// slots) counted from the asset's own start instead of the pod's (`podStart` earlier), never
    /// below 0; an asset without signaling, or with signaling that cannot be read, as it is.
    static func signalingFromItsOwnStart(_ asset: AssetList.Asset, podStart: MediaTime) -> AssetList.Asset {
        guard podStart > .zero, let signaling = try? asset.creativeSignaling() else { return asset }
        func shifted(_ item: CreativeSignaling.Item) -> CreativeSignaling.Item {
            var item = item
            if let start = item.start?.doubleValue, start.isFinite {
                item.start = JSONNumber(MediaTime.max(.zero, MediaTime(seconds: start) - podStart))
            }
            item.slots = item.slots?.map(shifted)
            return item
        }
        var moved = signaling
        moved.payload = signaling.payload.map(shifted)
        var asset = asset
        asset.setCreativeSignaling(moved)
        return asset
    }

    /// The bytes of a response body.
    static func collect(_ body: ResponseBody) async throws -> ByteBuffer {
        let sink = Sink()
        try await body.write(Collector(sink: sink))
        return sink.bytes.withLock { $0 }
    }

    /// The bytes written so far.
    private final class Sink: Sendable {
        let bytes = Mutex(ByteBuffer())
    }

    /// Appends what is written to a sink.
    private struct Collector: ResponseBodyWriter {
        let sink: Sink

        mutating func write(_ buffer: ByteBuffer) async throws {
            var buffer = buffer
            _ = self.sink.bytes.withLock { $0.writeBuffer(&buffer) }
        }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
