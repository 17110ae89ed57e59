import AdInsertion
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Hummingbird
import IntermissionHTTP
import IntermissionStore
import NIOCore

/// `GET /` (the web page: channels, VOD assets, timelines, breaks, decisions) and
/// `GET /openapi.yaml` (the API's description).
struct WebController: Sendable {
    let playlists: PlaylistService
    let store: any AdStore
    /// Where the beacons are kept.
    let tracking: any TrackingStore
    let clock: any WallClock
    /// Makes the viewer tags shown without the admin token.
    let signer: TokenSigner
    /// The admin token: a request that carries it (`Authorization: Bearer …`, as the admin API
    /// takes it) sees the viewers' full IDs.
    let adminToken: String?
    /// Creative conditioning, shown on the page when configured.
    var conditioner: CreativeConditioner? = nil

    /// How many of the latest decisions the page reads from the store.
    static let decisionsRead = 500
    /// How many decisions it lists per break.
    static let decisionsPerBreak = 3
    /// How far back and ahead of now a channel's breaks are listed.
    static let breaksBefore = MediaTime(seconds: 600)
    static let breaksAfter = MediaTime(seconds: 3600)
    /// The most breaks listed per channel (the earliest).
    static let breaksPerChannel = 12

    /// Adds the routes.
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.getAndHead("/") { request, _ -> Response in
            let nonce = Self.nonce()
            let admin = BearerTokenMiddleware<ServerRequestContext>(token: self.adminToken).authorizes(request)
            let page = await self.page(showingViewers: admin)
            var headers: HTTPFields = [
                .contentType: "text/html; charset=utf-8",
                .cacheControl: "no-store",
                .contentSecurityPolicy: DashboardPage.contentSecurityPolicy(nonce: nonce),
            ]
            headers[.xContentTypeOptions] = "nosniff"
            headers[.referrerPolicy] = "no-referrer"
            return Response(
                status: .ok,
                headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: page.html(nonce: nonce)))
            )
        }
        router.getAndHead("openapi.yaml") { _, _ -> Response in
            .bytes(
                Array(OpenAPIDocument.yaml.utf8),
                contentType: "application/yaml; charset=utf-8",
                cacheControl: "no-cache"
            )
        }
    }

    /// 128 random bits, hex: a fresh nonce per answer (made as a decision's nonce is).
    static func nonce() -> String {
        AdDecision.newNonce()
    }

    /// The page's content, read from the configuration, the playlists and the store.
    ///
    /// Nothing here fails the page: a timeline that cannot be drawn or a store that does not answer
    /// is said on the page instead.
    ///
    /// - Parameter showingViewers: Whether decisions show their viewers' IDs (for the admin); when
    ///   not, each shows the viewer's keyed 8-digit tag (``TokenSigner/viewerTag(_:)``), since an
    ///   ID would let anyone ask for that viewer's asset lists as the viewer.
    func page(showingViewers: Bool = false) async -> DashboardPage {
        let now = self.clock.now()
        let decisions = (try? await self.store.latestDecisions(limit: Self.decisionsRead)) ?? []
        var byBreak: [String: [DashboardPage.Decision]] = [:]
        for d in decisions {
            let key = d.scope + "\n" + d.breakID
            guard byBreak[key, default: []].count < Self.decisionsPerBreak else { continue }
            byBreak[key, default: []].append(
                DashboardPage.Decision(
                    viewer: showingViewers ? d.viewer : self.signer.viewerTag(d.viewer),
                    decidedAt: d.decidedAt.iso8601,
                    creatives: d.assets.map(\.creativeID)
                )
            )
        }
        func latest(_ scope: AdScope, _ breakID: String) -> [DashboardPage.Decision] {
            byBreak[scope.rawValue + "\n" + breakID] ?? []
        }
        var channels: [DashboardPage.Presentation] = []
        for channel in self.playlists.configuration.channels {
            channels.append(await self.channel(channel, now: now, decisions: latest))
        }
        var assets: [DashboardPage.Presentation] = []
        for asset in self.playlists.configuration.assets {
            assets.append(await self.asset(asset, decisions: latest))
        }
        var page = DashboardPage(
            now: now.iso8601,
            channels: channels,
            assets: assets,
            decisionCount: try? await self.store.decisionCount(),
            beacons: await self.beacons(channels: channels, assets: assets)
        )
        if let conditioner = self.conditioner, let report = try? await conditioner.report(limit: 500) {
            let order = ["pending", "conditioning", "ready", "failed"]
            page.conditioning = DashboardPage.Conditioning(
                states: order.map { state in (state, report.records.filter { $0.state.rawValue == state }.count) },
                queued: report.queued,
                running: report.running,
                problem: conditioner.toolProblem,
                failures: report.records.filter { $0.state == .failed }.prefix(10).map {
                    ($0.creativeID, $0.attempts, $0.error ?? "")
                }
            )
        }
        return page
    }

    /// Beacons received for the breaks the page lists, per break and event (distinct beacons,
    /// duplicates left out), in the page's order of presentations and breaks; `nil` when the store
    /// does not answer.
    func beacons(
        channels: [DashboardPage.Presentation],
        assets: [DashboardPage.Presentation]
    ) async -> [DashboardPage.BeaconRow]? {
        var rows: [DashboardPage.BeaconRow] = []
        let listed =
            channels.map { (AdScope(kind: .live, name: $0.id).rawValue, $0.breaks) }
            + assets.map { (AdScope(kind: .vod, name: $0.id).rawValue, $0.breaks) }
        for (scope, breaks) in listed {
            for item in breaks {
                guard let lines = try? await self.tracking.beaconCounts(.breakOf(scope: scope, breakID: item.id))
                else { return nil }
                var byEvent: [TrackingEvent: Int] = [:]
                for line in lines { byEvent[line.event, default: 0] += line.beacons }
                for event in TrackingEvent.allCases {
                    guard let count = byEvent[event] else { continue }
                    rows.append(.init(scope: scope, breakID: item.id, event: event.rawValue, count: count))
                }
            }
        }
        return rows
    }

    private func channel(
        _ channel: LiveChannel,
        now: DateTime,
        decisions: (AdScope, String) -> [DashboardPage.Decision]
    ) async -> DashboardPage.Presentation {
        let scope = AdScope(kind: .live, name: channel.id)
        let path: String
        let source: String
        switch channel.source {
        case .loop(let origin, let playlist):
            path = playlist
            source = "loop of " + OriginPath.resolve(playlist, against: origin)
        case .upstream(let url):
            path = ""
            source = "upstream " + URLRedaction.redact(url)
        }
        var presentation = DashboardPage.Presentation(
            id: channel.id,
            playlistURL: "/live/" + RequestPath.encoded(channel.id) + "/" + (path.isEmpty ? "main.m3u8" : path),
            source: source,
            breaks: []
        )
        do {
            let media = try await self.mediaPlaylist(path) {
                try await self.playlists.livePlaylist(channel: channel.id, path: $0)
            }
            let schedule = Schedule(primary: media, configuration: .init(start: .liveJoin))
            presentation.svg = schedule.svg(width: 960, marksLiveEdge: true, standalone: false)
            if let last = media.segments.last, let date = last.programDateTime {
                presentation.liveEdge = (date + last.duration).iso8601
            }
        } catch {
            presentation.problem = Self.describe(error)
        }
        do {
            let breaks = try await self.playlists.breaks(
                channel: channel.id,
                from: now - Self.breaksBefore,
                to: now + Self.breaksAfter
            )
            presentation.breaks = breaks.prefix(Self.breaksPerChannel).map { b in
                let state: String
                if b.cancelled {
                    state = "cancelled"
                } else if b.startDate > now {
                    state = "upcoming"
                } else if b.endDate > now {
                    state = "on air"
                } else {
                    state = "over"
                }
                return DashboardPage.Break(
                    id: b.id,
                    start: b.startDate.iso8601,
                    duration: b.effectiveDuration.seconds,
                    state: state,
                    origin: b.origin.rawValue,
                    decisions: decisions(scope, b.id)
                )
            }
        } catch {
            presentation.problem = presentation.problem ?? Self.describe(error)
        }
        return presentation
    }

    private func asset(
        _ asset: VODAsset,
        decisions: (AdScope, String) -> [DashboardPage.Decision]
    ) async -> DashboardPage.Presentation {
        let scope = AdScope(kind: .vod, name: asset.id)
        var presentation = DashboardPage.Presentation(
            id: asset.id,
            playlistURL: "/vod/" + RequestPath.encoded(asset.id) + "/" + asset.playlist,
            source: OriginPath.resolve(asset.playlist, against: asset.origin),
            breaks: asset.breaks.map { b in
                let start: String
                switch b.position {
                case .preRoll: start = "pre-roll"
                case .midRoll(let time): start = "at " + DashboardPage.seconds(time.seconds)
                case .postRoll: start = "post-roll"
                }
                return DashboardPage.Break(
                    id: b.id,
                    start: start,
                    duration: b.duration.seconds,
                    state: "planned",
                    origin: "vod",
                    decisions: decisions(scope, b.id)
                )
            }
        )
        do {
            let media = try await self.mediaPlaylist(asset.playlist) {
                try await self.playlists.vodPlaylist(asset: asset.id, path: $0)
            }
            presentation.svg = Schedule(primary: media).svg(width: 960, standalone: false)
        } catch {
            presentation.problem = Self.describe(error)
        }
        return presentation
    }

    /// The media playlist a player would follow from `path`: the playlist itself, or the first
    /// variant of a multivariant playlist (a relative URI, read through the same service).
    private func mediaPlaylist(
        _ path: String,
        read: (String) async throws -> RenderedPlaylist
    ) async throws -> MediaPlaylist {
        switch PlaylistParser.parse(try await read(path).bytes).playlist {
        case .media(let media):
            return media
        case .multivariant(let multivariant):
            guard let uri = multivariant.variants.first?.uri, !uri.isEmpty, !uri.contains(":"), !uri.hasPrefix("/")
            else {
                throw AdInsertionError(code: .upstream, message: "the multivariant playlist has no relative variant")
            }
            let folder = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
            let variant = folder + (uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? uri)
            guard case .media(let media) = PlaylistParser.parse(try await read(variant).bytes).playlist else {
                throw AdInsertionError(code: .upstream, message: "the variant is not a media playlist")
            }
            return media
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? AdInsertionError { return error.message }
        if let error = error as? APIError { return error.message }
        return "\(error)"
    }
}

extension HTTPField.Name {
    /// `Referrer-Policy`.
    static var referrerPolicy: Self { .init("Referrer-Policy")! }
}
