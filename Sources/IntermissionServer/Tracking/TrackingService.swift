import AdInsertion
import AsyncHTTPClient
import Foundation
import HLSInterstitials
import HLSPlaylist
import HTTPFetch
import HTTPTypes
import Hummingbird
import IntermissionHTTP
import Logging
import NIOCore

/// Beacons and plans: signs the tracking URLs written into asset lists, checks plan tokens,
/// records beacons and hands them to the forwarder.
struct TrackingService: Sendable {
    let configuration: TrackingConfiguration
    let signer: TokenSigner
    let store: any TrackingStore
    /// The stored decisions, whose ad-server ads carry the URLs their beacons are forwarded to.
    let decisions: any AdStore
    let forwarder: BeaconForwarder
    let inventory: InventoryRegistry
    let clock: any WallClock
    /// Where VAST errors are counted.
    let metrics: ServerMetrics?

    /// The query parameter that carries a plan token (on the multivariant, media-playlist and
    /// asset-list URLs).
    static let planParameter = "plan"

    /// The events written into every slot (besides one `progress` per offset of an ad server's ad).
    static let slotEvents: [TrackingEvent] = [
        .impression, .start, .firstQuartile, .midpoint, .thirdQuartile, .complete, .clickTracking, .creativeView,
        .skip, .pause, .resume, .mute, .unmute, .error,
    ]

    /// The query parameter of an `error` beacon that carries its VAST error code (`ERRORCODE` is
    /// read too).
    static let errorCodeParameter = "errorcode"
    /// The query parameter of a `progress` beacon that carries its offset in the ad, in milliseconds.
    static let offsetParameter = "offset"

    /// The distinct `progress` moments of `asset` (its ad server's offsets, percentages taken of its
    /// duration), in milliseconds, earliest first: at most `AdTracking.maximumURLsPerEvent`.
    static func progressMoments(of asset: AdDecision.Asset) -> [Int64] {
        let moments = (asset.tracking?.progress ?? []).map {
            $0.offset.moment(in: asset.duration).nanoseconds / 1_000_000
        }
        return Array(Set(moments).sorted().prefix(AdTracking.maximumURLsPerEvent))
    }

    init(
        configuration: TrackingConfiguration,
        store: any TrackingStore,
        decisions: any AdStore,
        inventory: InventoryRegistry,
        clock: any WallClock,
        fetch: BoundedFetch,
        logger: Logger,
        metrics: ServerMetrics? = nil,
        timer: any Clock<Duration> = ContinuousClock()
    ) {
        self.configuration = configuration
        self.signer = TokenSigner(key: configuration.key)
        self.store = store
        self.decisions = decisions
        self.inventory = inventory
        self.clock = clock
        self.metrics = metrics
        self.forwarder = BeaconForwarder(
            fetch: fetch,
            configuration: configuration,
            logger: logger,
            metrics: metrics,
            clock: timer
        )
    }

    /// The plan a request asks for through its `plan` token: plan A without one (unless a plan is
    /// required), 403 for a token this server did not sign, an edited one or an expired one.
    func plan(of request: Request) throws -> ViewerPlan {
        let values = request.uri.queryParameters.getAll(Self.planParameter)
        guard let token = values.first else {
            if self.configuration.requirePlan {
                throw APIError(.forbidden, code: "planRequired", message: "a signed plan token (?plan=…) is required")
            }
            return .a
        }
        guard values.count == 1 else {
            throw APIError(.forbidden, code: "badPlanToken", message: "give one plan token, not \(values.count)")
        }
        switch self.signer.plan(ofToken: String(token), now: self.clock.now()) {
        case .plan(let plan): return plan
        case .expired: throw APIError(.forbidden, code: "planExpired", message: "the plan token has expired")
        case .badSignature:
            throw APIError(.forbidden, code: "badPlanToken", message: "the plan token is not one this server signed")
        }
    }

    /// Adds `X-AD-CREATIVE-SIGNALING` to each entry of `list` (the entries of `decision`, in order):
    /// one slot with the creative's ID and a signed `/v1/track/{token}/{event}` URL per event.
    ///
    /// - Parameters:
    ///   - list: The asset list to sign.
    ///   - decision: The decision the list was made from.
    ///   - viewer: The decision's viewer, or for an anonymous request a fresh identifier of its own
    ///     (so anonymous viewers' beacons are not merged).
    ///   - plan: The viewer's plan, carried in each beacon's token.
    ///   - base: The server's public base URL for the beacon URLs, or `nil` for root-relative ones.
    func addSignaling(to list: inout AssetList, decision: AdDecision, viewer: String, plan: ViewerPlan, base: String?) {
        var start = MediaTime.zero
        let root = base ?? "/"
        for (index, asset) in decision.assets.enumerated() where index < list.assets.count {
            let token = self.signer.beaconToken(
                .init(
                    viewer: viewer,
                    scope: decision.scope,
                    breakID: decision.breakID,
                    slot: index,
                    creativeID: asset.creativeID,
                    plan: plan,
                    nonce: decision.nonce
                )
            )
            let url = root + "v1/track/" + token + "/"
            var tracking = Self.slotEvents.map { event in
                CreativeSignaling.TrackingEvent(
                    type: event.rawValue,
                    offset: event.fraction.map { JSONNumber(MediaTime(seconds: asset.duration.seconds * $0)) },
                    urls: [
                        url + event.rawValue
                            + (event == .error ? "?" + Self.errorCodeParameter + "=[ERRORCODE]" : "")
                    ]
                )
            }
            // Progress beacons are checked against the stored decision's offsets: an anonymous
            // viewer's decision is not stored, so its slots carry none.
            if !decision.viewer.isEmpty {
                for moment in Self.progressMoments(of: asset) {
                    tracking.append(
                        CreativeSignaling.TrackingEvent(
                            type: TrackingEvent.progress.rawValue,
                            offset: JSONNumber(MediaTime(milliseconds: moment)),
                            urls: [url + "progress?" + Self.offsetParameter + "=\(moment)"]
                        )
                    )
                }
            }
            let slot = CreativeSignaling.Item(
                type: "linear",
                start: JSONNumber(start),
                duration: JSONNumber(asset.duration),
                identifiers: [CreativeSignaling.Identifier(scheme: "creativeId", value: asset.creativeID)]
                    + (asset.universalAdID.map {
                        [
                            CreativeSignaling.Identifier(
                                scheme: CreativeSignaling.Identifier.universalAdIDScheme,
                                value: $0
                            )
                        ]
                    } ?? []),
                tracking: tracking
            )
            list.assets[index].setCreativeSignaling(CreativeSignaling(payload: [slot]))
            start = start + asset.duration
        }
    }

    /// Plan C: once the first ad has played, the rest of the pod may be skipped (`SKIP-CONTROL`
    /// `OFFSET` = the first ad's duration, or its ad server's earlier skip offset; skip control
    /// counts across the whole interstitial).
    static func applySkipAfterFirst(to list: inout AssetList) {
        guard list.assets.count > 1 else { return }
        var skip = list.skipControl ?? AssetList.SkipControlOverride()
        skip.offset = skip.offset.map { MediaTime.min($0, list.assets[0].duration) } ?? list.assets[0].duration
        list.skipControl = skip
    }

    /// Records a beacon and, the first time, queues its forwards; answers when it is stored.
    func track(token: String, event eventName: String, request: Request) async throws -> BeaconRecording {
        guard let event = TrackingEvent(rawValue: eventName) else {
            throw APIError.notFound(
                "unknown tracking event: expected one of "
                    + TrackingEvent.allCases.map(\.rawValue).joined(separator: ", ")
            )
        }
        let errorCode = event == .error ? try Self.errorCode(of: request) : nil
        let offset = event == .progress ? try Self.progressOffset(of: request) : nil
        guard let slot = self.signer.slot(ofBeaconToken: token) else {
            throw APIError(.forbidden, code: "badBeaconToken", message: "the beacon URL is not one this server signed")
        }
        let decision = try await self.storedDecision(of: slot)
        if let offset {
            // Only the offsets the slot was handed out with: a token never writes more rows than its
            // ad has progress moments.
            guard let decision, slot.slot < decision.assets.count,
                Self.progressMoments(of: decision.assets[slot.slot]).contains(offset)
            else {
                throw APIError.notFound("the slot has no progress beacon at offset \(offset) ms")
            }
        }
        let beacon = Beacon(
            key: BeaconKey(
                viewer: slot.viewer,
                scope: slot.scope,
                breakID: slot.breakID,
                slot: slot.slot,
                event: event,
                detail: offset.map { String($0) }
            ),
            creativeID: slot.creativeID,
            plan: slot.plan,
            receivedAt: self.clock.now()
        )
        let recording = try await self.store.record(beacon)
        if recording.isNew, let errorCode { self.metrics?.vastError(source: "player", code: errorCode.rawValue) }
        if recording.isNew {
            let forward = await self.forwardURLs(
                of: slot,
                decision: decision,
                event: event,
                errorCode: errorCode,
                progressOffset: offset
            )
            if !forward.urls.isEmpty {
                let device = DeviceHeaders(of: request)
                await self.forwarder.enqueue(
                    forward.urls.map {
                        BeaconForwarder.Job(
                            url: $0,
                            deviceIP: device.ip,
                            deviceUserAgent: device.userAgent,
                            trustedHost: forward.operatorNamed ? OutboundPolicy.endpoint(of: $0) : nil
                        )
                    }
                )
            }
        }
        return recording
    }

    /// The stored decision a beacon token was handed out with (`nil` for an anonymous viewer's,
    /// which is not stored), or `403 badBeaconToken` when no decision is stored for its viewer and
    /// break or the stored one has another nonce (pruned and made again since).
    ///
    /// The threat model: a viewer's `_HLS_primary_id` is a per-playback random ID that only its
    /// player and this server know; it is the viewer's credential, and the server shows it on no
    /// public surface (the web page shows a keyed 8-digit tag without the admin token). Beacon
    /// URLs are signed (HMAC-SHA256, `tracking.key`) and bound to the decision's random nonce,
    /// which only the asset-list answer carries, so a stranger cannot mint a beacon URL from a
    /// viewer's ID (nor from a leaked key alone: the nonce is in the database), cannot fire one for
    /// a viewer or break that has no decision, and URLs of a pruned decision stop working. What it
    /// does not stop: whoever holds a viewer's ID can ask for that viewer's asset list like the
    /// viewer's player (the server cannot tell them apart), so the ID must stay secret.
    func storedDecision(of slot: TokenSigner.Slot) async throws -> AdDecision? {
        // An anonymous answer's tokens carry no nonce (its decision is not stored).
        guard !(slot.viewer.hasPrefix("anonymous-") && slot.nonce.isEmpty) else { return nil }
        let key = DecisionKey(viewer: slot.viewer, scope: slot.scope, breakID: slot.breakID)
        let stored: AdDecision?
        if let known = self.decisions.rememberedDecision(for: key) {
            stored = known
        } else {
            stored = try await self.decisions.decision(for: key)
        }
        guard let stored, stored.nonce == slot.nonce else {
            throw APIError(
                .forbidden,
                code: "badBeaconToken",
                message: "the beacon URL is not one of a decision stored now (expired, or never handed out)"
            )
        }
        return stored
    }

    /// Where a beacon of `slot` is forwarded: the ad server's URLs for the event when an ad server
    /// chose the slot's ad (kept with the stored `decision`; anonymous viewers' decisions are not
    /// stored, so theirs are not forwarded), else the inventory creative's `tracking:` URLs, which
    /// the operator named (`operatorNamed`: their hosts are trusted as named; a redirect off them
    /// is checked).
    ///
    /// An `error` beacon's URLs get its `errorCode` in `[ERRORCODE]`; a `progress` beacon goes to
    /// the ad server's progress URLs at `progressOffset` (milliseconds).
    func forwardURLs(
        of slot: TokenSigner.Slot,
        decision: AdDecision?,
        event: TrackingEvent,
        errorCode: VASTErrorCode? = nil,
        progressOffset: Int64? = nil
    ) async -> (urls: [String], operatorNamed: Bool) {
        if let decision,
            slot.slot < decision.assets.count,
            decision.assets[slot.slot].creativeID == slot.creativeID,
            let tracking = decision.assets[slot.slot].tracking
        {
            let asset = decision.assets[slot.slot]
            return (
                Self.adServerURLs(
                    tracking,
                    event: event,
                    asset: asset,
                    errorCode: errorCode,
                    progressOffset: progressOffset
                ),
                false
            )
        }
        let creative = await self.inventory.creatives.first { $0.id == slot.creativeID }
        let urls = creative?.tracking?[event] ?? []
        guard let errorCode else { return (urls, true) }
        let macros = VASTMacros(["ERRORCODE": errorCode.description])
        return (urls.map { macros.fill($0) }, true)
    }

    /// The VAST error code of an `error` beacon: its `errorcode` (or `ERRORCODE`) query value, one
    /// number from 100 to 999 (VAST 4.x 2.3.6.3), else `400 badErrorCode`.
    static func errorCode(of request: Request) throws -> VASTErrorCode {
        let values =
            request.uri.queryParameters.getAll(Self.errorCodeParameter)
            + request.uri.queryParameters.getAll(Self.errorCodeParameter.uppercased())
        guard values.count == 1, let text = values.first, text.utf8.count <= 3,
            text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(text), (100...999).contains(value)
        else {
            throw APIError(
                .badRequest,
                code: "badErrorCode",
                message: "an error beacon needs one errorcode query value: a VAST error code from 100 to 999"
            )
        }
        return VASTErrorCode(value)
    }

    /// The offset of a `progress` beacon: its `offset` query value, one whole number of
    /// milliseconds from 0 to 86,400,000, else `400 badOffset`.
    static func progressOffset(of request: Request) throws -> Int64 {
        let values = request.uri.queryParameters.getAll(Self.offsetParameter)
        guard values.count == 1, let text = values.first, (1...8).contains(text.utf8.count),
            text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int64(text), value <= 86_400_000
        else {
            throw APIError(
                .badRequest,
                code: "badOffset",
                message: "a progress beacon needs one offset query value: milliseconds from 0 to 86400000"
            )
        }
        return value
    }

    /// The ad server's URLs for `event` (the first `AdTracking.maximumURLsPerEvent`), its VAST
    /// macros filled: `[CACHEBUSTING]` with eight random digits and `[TIMESTAMP]` with the time now
    /// (ISO 8601, percent-encoded), as VAST 4 asks of the one who fires them.
    static func adServerURLs(
        _ tracking: AdTracking,
        event: TrackingEvent,
        asset: AdDecision.Asset? = nil,
        errorCode: VASTErrorCode? = nil,
        progressOffset: Int64? = nil
    ) -> [String] {
        let all: [String]
        switch event {
        case .impression: all = tracking.impression
        case .clickTracking: all = tracking.clickTracking
        case .error: all = tracking.error
        case .progress:
            all = tracking.progress.filter { item in
                asset.map { item.offset.moment(in: $0.duration).nanoseconds / 1_000_000 } == progressOffset
            }.map(\.url)
        default: all = tracking.events[event.rawValue] ?? []
        }
        let urls = all.prefix(AdTracking.maximumURLsPerEvent)
        guard !urls.isEmpty else { return [] }
        var macros = Self.macros(event: event, asset: asset, now: Date.now)
        if let errorCode { macros.values["ERRORCODE"] = errorCode.description }
        if let progressOffset {
            macros.values["ADPLAYHEAD"] = VASTMacros.playhead(MediaTime(milliseconds: progressOffset))
        }
        return urls.map { macros.fill($0) }
    }

    /// The VAST macros the server knows when it forwards `event` of `asset`: `[CACHEBUSTING]`,
    /// `[TIMESTAMP]` (ISO 8601, milliseconds), `[ASSETURI]`, `[UNIVERSALADID]` (`registry value`)
    /// and `[ADPLAYHEAD]` (the event's place in the ad: 0 for impression, creativeView and start, a
    /// quarter, half, three quarters or all of its duration for the quartiles and complete); the
    /// others become `-1` (the server does not know the viewer's `[CONTENTPLAYHEAD]`).
    static func macros(event: TrackingEvent, asset: AdDecision.Asset?, now: Date) -> VASTMacros {
        var values = [
            "CACHEBUSTING": String(format: "%08d", Int.random(in: 0..<100_000_000)),
            "TIMESTAMP": DateTime(millisecondsSince1970: Int64(now.timeIntervalSince1970 * 1000)).iso8601,
        ]
        if let asset {
            values["ASSETURI"] = asset.uri
            if let universal = asset.universalAdID { values["UNIVERSALADID"] = universal }
            let share: Double? =
                switch event {
                case .impression, .start, .creativeView: 0
                case .firstQuartile: 0.25
                case .midpoint: 0.5
                case .thirdQuartile: 0.75
                case .complete: 1
                default: nil
                }
            if let share {
                values["ADPLAYHEAD"] = VASTMacros.playhead(
                    MediaTime(nanoseconds: Int64(Double(asset.duration.nanoseconds) * share))
                )
            }
        }
        return VASTMacros(values)
    }
}

extension TrackingService {
    /// Queues the error URLs of an ad-server resolution's `failures`, each filled with its VAST
    /// code, as forwards with the viewer's `device` fields: the first
    /// `AdTracking.maximumURLsPerEvent` of the whole pod.
    func forwardErrors(_ failures: [AdServerResolution.Failure], device: DeviceHeaders) async {
        for failure in failures where (100...999).contains(failure.code.rawValue) {
            self.metrics?.vastError(source: "decision", code: failure.code.rawValue)
        }
        let buster = AdServerClient.cacheBuster()
        let urls = Array(
            failures.lazy.flatMap { $0.filledURLs(cacheBuster: buster) }.prefix(AdTracking.maximumURLsPerEvent)
        )
        guard !urls.isEmpty else { return }
        await self.forwarder.enqueue(
            urls.map { BeaconForwarder.Job(url: $0, deviceIP: device.ip, deviceUserAgent: device.userAgent) }
        )
    }

    /// The asset list of `decision` for a viewer of `plan`: URIs resolved against `base`, each entry
    /// with its signaling when beacons are on, and plan C's skip control.
    func body(of decision: AdDecision, plan: ViewerPlan, base: String?, resolving cache: ResolvedURICache) -> ByteBuffer
    {
        var list =
            base.map { decision.assetList(resolvingAgainst: $0, cache: cache) }
            ?? decision.assetList
        if self.configuration.beacons {
            let viewer =
                decision.viewer.isEmpty
                ? "anonymous-" + String(UInt64.random(in: .min ... .max), radix: 16) : decision.viewer
            self.addSignaling(to: &list, decision: decision, viewer: viewer, plan: plan, base: base)
        }
        if plan == .c { Self.applySkipAfterFirst(to: &list) }
        return ByteBuffer(bytes: list.encode())
    }
}

extension AssetListController {
    /// The answer to a viewer of plan B: an empty pod (the player resumes by the break's rules at
    /// once), decided for no one and stored nowhere.
    static func noAds() -> Response {
        var response = Response.bytes(
            AssetList(assets: []).encode(),
            contentType: "application/json",
            cacheControl: "private, no-store"
        )
        response.headers[Self.decisionHeader] = "plan-b"
        return response
    }
}
