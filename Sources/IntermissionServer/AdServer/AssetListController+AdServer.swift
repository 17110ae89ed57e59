import AdInsertion
import GroupCoordination
import HLSPlaylist
import HTTPTypes
import Hummingbird
import IntermissionHTTP
import Logging
import NIOCore

extension AssetListController {
    /// Where a presentation's ads come from: its VAST ad server, if it has one, and the creatives of
    /// the local inventory its pods may hold (`nil`: all), read with one lookup of the presentation.
    func adSources(for scope: AdScope) -> (adServer: AdServerSettings?, inventory: Set<String>?) {
        switch scope.kind {
        case .vod:
            let asset = self.playlists.configuration.asset(scope.name)
            return (asset?.adServer, asset?.inventory)
        case .live:
            let channel = self.playlists.configuration.channel(scope.name)
            return (channel?.adServer, channel?.inventory)
        }
    }

    /// The answer from the ad server, or `nil` to decide from the local inventory as without one
    /// (the ad server answered nothing usable in time, or the storage failed and the local path
    /// says so).
    ///
    /// A stored decision is answered again as it is. Otherwise the ad server is asked with all of
    /// the budget but a reserve for storing; its pod keeps the ad server's order (a late joiner's
    /// pod is not turned around), without the creatives the viewer saw within the repeat window.
    func adServerAnswer(
        _ request: Request,
        context: ServerRequestContext,
        settings: AdServerSettings,
        scope: AdScope,
        breakID: String,
        viewer: String?,
        duration: MediaTime,
        startOffset: MediaTime?,
        plan: ViewerPlan,
        now: DateTime
    ) async -> Response? {
        let started = self.adServers.timer.elapsed
        let viewerID = viewer ?? ""
        let key = DecisionKey(viewer: viewerID, scope: scope.rawValue, breakID: breakID)
        let anonymous = viewerID.isEmpty
        if !anonymous {
            let stored: AdDecision?
            do {
                stored = try await self.store.decision(for: key)
            } catch {
                return nil
            }
            if let stored {
                self.metrics.decision(kind: scope.kind.rawValue, result: "stored", assets: stored.assets.count)
                return self.answer(stored, plan: plan, outcome: "stored")
            }
        }
        // Storing takes a few milliseconds, more on a busy machine: keep a tenth of the budget
        // (at most 100 ms) for it.
        let budget = Duration.nanoseconds(settings.timeout.nanoseconds)
        let reserve = min(budget / 10, .milliseconds(100))
        var resolution = AdServerResolution(breakDuration: duration, targetBitrate: settings.targetBitrate)
        // With conditioning, a creative of progressive files only resolves to the file to condition.
        var target: ConditioningTarget?
        if let conditioner = self.conditioner {
            let (known, problem) = await conditioner.target(for: scope)
            target = known
            resolution.conditioning = known
            if let problem {
                context.logger.debug(
                    "conditioning off for this presentation",
                    metadata: ["scope": "\(scope)", "reason": "\(problem)"]
                )
            }
        }
        let url = settings.url(
            breakDuration: duration,
            startOffset: startOffset,
            viewer: viewerID,
            breakID: breakID,
            scope: scope.rawValue,
            cacheBuster: AdServerClient.cacheBuster()
        )
        let outcome = await self.adServers.resolve(
            url: url,
            headers: DeviceHeaders(of: request).fields,
            resolution: resolution,
            deadline: started + budget - reserve
        )
        for failure in outcome.failures {
            context.logger.info(
                "ad server",
                metadata: [
                    "scope": "\(scope)", "break": "\(breakID)", "vast_error": "\(failure.code)",
                    "reason": "\(failure.reason)",
                ]
            )
        }
        for refused in outcome.refused {
            context.logger.warning("outbound request refused", metadata: ["scope": "\(scope)", "reason": "\(refused)"])
        }
        await self.tracking.forwardErrors(outcome.failures, device: DeviceHeaders(of: request))
        if let problem = outcome.problem {
            context.logger.warning(
                "ad server unusable; local inventory",
                metadata: ["scope": "\(scope)", "problem": "\(problem)"]
            )
        }
        var ads = outcome.ads
        if let conditioner = self.conditioner, let target {
            ads = await self.conditioned(
                ads,
                target: target,
                conditioner: conditioner,
                scope: scope,
                breakID: breakID,
                logger: context.logger
            )
        }
        guard !ads.isEmpty else {
            self.metrics.decision(kind: scope.kind.rawValue, result: "adserver-fallback", assets: 0)
            return nil
        }
        let assets = ads.map {
            AdDecision.Asset(
                creativeID: $0.creativeID,
                uri: $0.uri,
                duration: $0.duration,
                tracking: $0.tracking,
                skipOffset: $0.skipOffset,
                universalAdID: $0.universalAdID
            )
        }
        let window = self.decisions.repeatWindow
        let decision = AdDecision(
            viewer: viewerID,
            scope: scope.rawValue,
            breakID: breakID,
            decidedAt: now,
            startOffset: startOffset,
            podDuration: max(.zero, duration),
            assets: assets,
            nonce: anonymous ? "" : AdDecision.newNonce()
        )
        if anonymous {
            self.metrics.decision(kind: scope.kind.rawValue, result: "anonymous", assets: assets.count)
            return self.answer(decision, plan: plan, outcome: "anonymous")
        }
        let made: (decision: AdDecision, isNew: Bool)
        do {
            made = try await self.store.findOrCreateDecision(key, recentSince: window > .zero ? now - window : nil) {
                recent in
                var fresh = decision
                fresh.assets.removeAll { recent.contains($0.creativeID) }
                return fresh
            }
        } catch {
            return nil
        }
        self.storageHealth.succeeded()
        self.metrics.decision(
            kind: scope.kind.rawValue,
            result: made.isNew ? "new" : "stored",
            assets: made.decision.assets.count
        )
        return self.answer(made.decision, plan: plan, outcome: "stored")
    }

    /// The pod without the creatives whose conditioned HLS is not ready (each logged with the
    /// reason, and asked for), the ready ones pointing at their conditioned renditions; creatives
    /// with an HLS media file of their own are kept as they are.
    func conditioned(
        _ ads: [AdServerResolution.ResolvedAd],
        target: ConditioningTarget,
        conditioner: CreativeConditioner,
        scope: AdScope,
        breakID: String,
        logger: Logger
    ) async -> [AdServerResolution.ResolvedAd] {
        var kept: [AdServerResolution.ResolvedAd] = []
        for ad in ads {
            guard ad.source != nil else {
                kept.append(ad)
                continue
            }
            switch await conditioner.availability(of: ad, target: target) {
            case .ready(let uri):
                var ready = ad
                ready.uri = uri
                kept.append(ready)
            case .notReady(let reason):
                self.metrics.conditioningOmitted(kind: scope.kind.rawValue)
                logger.info(
                    "creative left out of the pod: not conditioned yet",
                    metadata: [
                        "scope": "\(scope)", "break": "\(breakID)", "creative": "\(ad.creativeID)",
                        "reason": "\(reason)",
                    ]
                )
            }
        }
        return kept
    }

    /// The asset-list response of a decision for a viewer of `plan`, whether the ad server or the
    /// local inventory chose its ads: signed beacon URLs when beacons are on (an ad server's ads
    /// forward to its URLs, kept with the decision), plan C's skip control; the shared encoded
    /// body otherwise.
    func answer(_ decision: AdDecision, plan: ViewerPlan, outcome: String) -> Response {
        let base = Self.base(publicBaseURL: self.publicBaseURL, listening: self.listening)
        let body =
            plan == .a && !self.tracking.configuration.beacons
            ? self.bodies.body(of: decision, base: base, resolving: self.resolvedURIs)
            : self.tracking.body(of: decision, plan: plan, base: base, resolving: self.resolvedURIs)
        var response = Response(status: .ok, headers: Self.answerFields, body: .init(byteBuffer: body))
        response.headers[Self.decisionHeader] = outcome
        return response
    }
}
