import HLSInterstitials
import HLSPlaylist

/// Something that happened to a player, as one typed value: the event log's line
/// (``logEntry(at:)``) and the monitors' notification (``notification``) are both derived from it,
/// so they cannot disagree.
///
/// The log's keys are camelCase (`eventID`, `primaryTime`, `playoutTime`); a few events are log-only
/// (requests, buffering) and one is notification-only (``timeControlStatusDidChange(_:_:)``).
public enum PlayerEvent: Sendable, Hashable {
    /// A request completed (`status`) or failed (`error`).
    case request(url: String, kind: String, status: Int?, bytes: Int, error: PlaybackError.Code?)
    /// A presentation chose a variant and renditions.
    case variantSelected(
        presentation: String,
        url: String,
        bandwidth: Int,
        audioLanguage: String?,
        subtitleLanguage: String?
    )
    /// A media playlist loaded (first load or reload).
    case playlistLoaded(
        presentation: String,
        track: String,
        url: String,
        segments: Int,
        isLive: Bool,
        changed: Bool,
        delta: Bool
    )
    /// A presentation's forward buffer grew to `time`.
    case bufferedTo(presentation: String, time: MediaTime)
    /// The primary ran out of buffer at `primaryTime`.
    case stalled(primaryTime: MediaTime)
    /// The primary plays again from `primaryTime`.
    case playing(primaryTime: MediaTime)
    /// The item played to its end.
    case ended(primaryTime: MediaTime)
    /// Playback stopped with an error.
    case error(PlaybackError)
    /// A rate request was refused.
    case rateRefused(rate: Double, reason: String)
    /// The player changed the rate by itself: to 1 when an `X-RESTRICT=SKIP` interstitial began,
    /// or back to the rate in force before it when the break ended.
    case rateChanged(rate: Double, reason: String)
    /// A seek was asked for.
    case seekRequested(target: MediaTime, from: MediaTime)
    /// What a seek came to.
    case seekResolved(SeekResult)
    /// A skip request was refused, with why.
    case skipRefused(eventID: String?, reason: String)
    /// The player's time-control status changed (notification only).
    case timeControlStatusDidChange(TimeControlStatus, WaitingReason?)
    /// A playlist interstitial that cannot play was left out.
    case eventIgnored(eventID: String, rule: String, message: String)
    /// The schedule's events changed.
    case eventsDidChange([InterstitialEvent])
    /// The current event changed (`nil`: the primary resumes); `primaryTime` where the primary
    /// paused, `joinedAt` how far into the event a live join landed.
    case currentEventDidChange(InterstitialEvent?, primaryTime: MediaTime?, joinedAt: MediaTime?)
    /// The event playing got new attributes (an early return's playout limit).
    case currentEventUpdated(InterstitialEvent)
    /// The app cancelled the current event.
    case eventCancelled(InterstitialEvent)
    /// The current event was skipped (skip control).
    case currentEventSkipped(InterstitialEvent)
    /// An event's asset list loaded: how many assets, their total duration.
    case assetListLoaded(eventID: String, event: InterstitialEvent?, assets: Int, duration: Double)
    /// An event's asset list (and the assets loaded ahead) was discarded (notification only).
    case assetListCleared(InterstitialEvent)
    /// An event's asset list failed.
    case assetListFailed(eventID: String, event: InterstitialEvent?, error: PlaybackError)
    /// An event left the schedule before it played.
    case eventWasUnscheduled(InterstitialEvent, PlaybackError?)
    /// An asset of the current event started.
    case interstitialAssetStarted(eventID: String, index: Int, url: String)
    /// An asset of the current event ended after `playoutTime`.
    case interstitialAssetEnded(eventID: String, index: Int, playoutTime: MediaTime)
    /// An asset of an event failed.
    case interstitialAssetFailed(eventID: String, index: Int, error: PlaybackError)
    /// An event finished (also cancelled, skipped, or left by a seek).
    case eventDidFinish(InterstitialEvent, playoutTime: MediaTime, didPlayEntireEvent: Bool)
    /// The primary resumes at `primaryTime` after a break.
    case primaryResumed(primaryTime: MediaTime)
    /// The current event's skip state changed; `labelID` is the effective skip label (the asset
    /// list's `SKIP-CONTROL` over the tag's).
    case skippableStateDidChange(InterstitialEvent, SkippableEventState, labelID: String?)
    /// A preload range (Appendix F) got its moment: the player requests `X-URI` when the primary
    /// playhead reaches `moment`, drawn uniformly from `windowStart...windowEnd` (stable primary time).
    case preloadScheduled(
        rangeID: String,
        targetID: String,
        moment: MediaTime,
        windowStart: MediaTime,
        windowEnd: MediaTime
    )
    /// A preload request answered (`status`) or failed (`error`); the answer waits for the target.
    case preloadFetched(rangeID: String, targetID: String, status: Int?, error: PlaybackError.Code?)
    /// A preloaded answer became the target's asset list (no request at the break).
    case preloadUsed(rangeID: String, targetID: String)
    /// A preloaded answer (or a request under way) was thrown away, with why.
    case preloadDiscarded(rangeID: String, targetID: String, reason: String)
    /// A scheduled-date-range document (Appendix H) answered: the `ID` of the schedule date range
    /// that names it, its URL, the body received (`nil` when the request failed) and the error when
    /// it could not be fetched or read (AVFoundation's `ScheduleRequestCompleted`).
    case scheduleRequestCompleted(scheduleID: String, url: String, response: [UInt8]?, error: PlaybackError?)
    /// A schedule document or its resolution has a problem (an entry left out, a cycle, nesting
    /// too deep): the rule, the message and the JSON location (log only).
    case scheduleIssue(rule: String, message: String, location: String)
    /// A client-side beacon (``BeaconMode/client``) was answered: its tracking event `type`, the
    /// creative, the URL, the HTTP status, the moment in its asset it was due, and the tries made.
    case beaconFired(
        eventID: String,
        type: String,
        creative: String?,
        url: String,
        status: Int,
        moment: MediaTime,
        attempts: Int
    )
    /// A client-side beacon was given up (its tries failed, the queue was full, or the signaling
    /// could not be read), with why.
    case beaconFailed(eventID: String, type: String, creative: String?, url: String, reason: String)

    /// The notification monitors get, if the event is one of theirs.
    public var notification: PlayerNotification? {
        switch self {
        case .timeControlStatusDidChange(let status, let reason): .timeControlStatusDidChange(status, reason)
        case .eventsDidChange(let events): .eventsDidChange(events)
        case .currentEventDidChange(let event, _, _): .currentEventDidChange(event)
        case .currentEventSkipped(let event): .currentEventSkipped(event)
        case .assetListLoaded(_, let event?, _, _): .assetListResponseStatusDidChange(event, .available, nil)
        case .assetListCleared(let event): .assetListResponseStatusDidChange(event, .cleared, nil)
        case .assetListFailed(_, let event?, let error): .assetListResponseStatusDidChange(event, .unavailable, error)
        case .eventWasUnscheduled(let event, let error): .eventWasUnscheduled(event, error)
        case .eventDidFinish(let event, let playout, let entire):
            .eventDidFinish(event, playoutTime: playout, didPlayEntireEvent: entire)
        case .skippableStateDidChange(let event, let state, let label):
            .currentEventSkippableStateDidChange(event, state, labelID: label)
        case .scheduleRequestCompleted(let id, _, let response, let error):
            .scheduleRequestCompleted(scheduleIdentifier: id, response: response, error: error)
        default: nil
        }
    }

    /// The event log's line at clock time `time`, if the event is logged.
    public func logEntry(at time: MediaTime) -> PlayerLogEntry? {
        guard let (name, fields) = self.logFields else { return nil }
        return PlayerLogEntry(time: time, event: name, fields: fields)
    }

    /// The log's event name and fields, in order.
    private var logFields: (String, [(String, JSONValue)])? {
        switch self {
        case .request(let url, let kind, let status, let bytes, let error):
            var fields: [(String, JSONValue)] = [
                ("url", .string(url)), ("kind", .string(kind)), ("status", status.map { .number(Double($0)) } ?? .null),
                ("bytes", .number(Double(bytes))),
            ]
            if let error { fields.append(("error", .string(error.description))) }
            return ("request", fields)
        case .variantSelected(let presentation, let url, let bandwidth, let audio, let subtitles):
            return (
                "variantSelected",
                [
                    ("presentation", .string(presentation)), ("url", .string(url)),
                    ("bandwidth", .number(Double(bandwidth))),
                    ("audioLanguage", .optional(audio)), ("subtitleLanguage", .optional(subtitles)),
                ]
            )
        case .playlistLoaded(let presentation, let track, let url, let segments, let isLive, let changed, let delta):
            return (
                "playlistLoaded",
                [
                    ("presentation", .string(presentation)), ("track", .string(track)), ("url", .string(url)),
                    ("segments", .number(Double(segments))), ("live", .bool(isLive)), ("changed", .bool(changed)),
                    ("delta", .bool(delta)),
                ]
            )
        case .bufferedTo(let presentation, let time):
            return ("bufferedTo", [("presentation", .string(presentation)), ("time", .seconds(time))])
        case .stalled(let time):
            return ("stalled", [("primaryTime", .seconds(time))])
        case .playing(let time):
            return ("playing", [("primaryTime", .seconds(time))])
        case .ended(let time):
            return ("ended", [("primaryTime", .seconds(time))])
        case .error(let error):
            return (
                "error",
                [
                    ("code", .string(error.code.description)), ("message", .string(error.message)),
                    ("url", .optional(error.url)),
                ]
            )
        case .rateRefused(let rate, let reason):
            return ("rateRefused", [("rate", .number(rate)), ("reason", .string(reason))])
        case .rateChanged(let rate, let reason):
            return ("rateChanged", [("rate", .number(rate)), ("reason", .string(reason))])
        case .seekRequested(let target, let from):
            return ("seekRequested", [("target", .seconds(target)), ("from", .seconds(from))])
        case .seekResolved(let result):
            return (
                "seekResolved",
                [
                    ("target", .seconds(result.requestedTime)), ("granted", .seconds(result.grantedTime)),
                    ("allowed", .bool(result.isAllowed)),
                    ("interstitials", .array(result.interstitials.map { .string($0) })),
                    ("reason", .string(result.reason)),
                ]
            )
        case .skipRefused(let id, let reason):
            return ("skipRefused", [("eventID", .optional(id)), ("reason", .string(reason))])
        case .timeControlStatusDidChange, .assetListCleared:
            return nil
        case .eventIgnored(let id, let rule, let message):
            return ("eventIgnored", [("eventID", .string(id)), ("rule", .string(rule)), ("message", .string(message))])
        case .eventsDidChange(let events):
            return ("eventsDidChange", [("events", .array(events.map { .string($0.identifier) }))])
        case .currentEventDidChange(let event, let primaryTime, let joinedAt):
            var fields: [(String, JSONValue)] = [("eventID", .optional(event?.identifier))]
            if let primaryTime { fields.append(("primaryTime", .seconds(primaryTime))) }
            if let joinedAt { fields.append(("joinedAt", .seconds(joinedAt))) }
            return ("currentEventDidChange", fields)
        case .currentEventUpdated(let event):
            return (
                "currentEventUpdated",
                [("eventID", .string(event.identifier)), ("playoutLimit", .seconds(event.playoutLimit))]
            )
        case .eventCancelled(let event):
            return ("eventCancelled", [("eventID", .string(event.identifier))])
        case .currentEventSkipped(let event):
            return ("currentEventSkipped", [("eventID", .string(event.identifier))])
        case .assetListLoaded(let id, _, let assets, let duration):
            return (
                "assetListLoaded",
                [("eventID", .string(id)), ("assets", .number(Double(assets))), ("duration", .number(duration))]
            )
        case .assetListFailed(let id, _, let error):
            return ("assetListFailed", [("eventID", .string(id)), ("error", .string(error.description))])
        case .eventWasUnscheduled(let event, let error):
            return (
                "eventWasUnscheduled",
                [("eventID", .string(event.identifier)), ("error", .optional(error?.code.description))]
            )
        case .interstitialAssetStarted(let id, let index, let url):
            return (
                "interstitialAssetStarted",
                [("eventID", .string(id)), ("index", .number(Double(index))), ("url", .string(url))]
            )
        case .interstitialAssetEnded(let id, let index, let playout):
            return (
                "interstitialAssetEnded",
                [("eventID", .string(id)), ("index", .number(Double(index))), ("playoutTime", .seconds(playout))]
            )
        case .interstitialAssetFailed(let id, let index, let error):
            return (
                "interstitialAssetFailed",
                [("eventID", .string(id)), ("index", .number(Double(index))), ("error", .string(error.description))]
            )
        case .eventDidFinish(let event, let playout, let entire):
            return (
                "eventDidFinish",
                [
                    ("eventID", .string(event.identifier)), ("playoutTime", .seconds(playout)),
                    ("didPlayEntireEvent", .bool(entire)),
                ]
            )
        case .primaryResumed(let time):
            return ("primaryResumed", [("primaryTime", .seconds(time))])
        case .skippableStateDidChange(let event, let state, let label):
            return (
                "skippableStateDidChange",
                [
                    ("eventID", .string(event.identifier)), ("state", .string(state.description)),
                    ("labelID", .optional(label)),
                ]
            )
        case .preloadScheduled(let id, let target, let moment, let start, let end):
            return (
                "preloadScheduled",
                [
                    ("rangeID", .string(id)), ("targetID", .string(target)), ("primaryTime", .seconds(moment)),
                    ("windowStart", .seconds(start)), ("windowEnd", .seconds(end)),
                ]
            )
        case .preloadFetched(let id, let target, let status, let error):
            return (
                "preloadFetched",
                [
                    ("rangeID", .string(id)), ("targetID", .string(target)),
                    ("status", status.map { .number(Double($0)) } ?? .null), ("error", .optional(error?.description)),
                ]
            )
        case .preloadUsed(let id, let target):
            return ("preloadUsed", [("rangeID", .string(id)), ("targetID", .string(target))])
        case .preloadDiscarded(let id, let target, let reason):
            return (
                "preloadDiscarded",
                [("rangeID", .string(id)), ("targetID", .string(target)), ("reason", .string(reason))]
            )
        case .scheduleRequestCompleted(let id, let url, let response, let error):
            return (
                "scheduleRequestCompleted",
                [
                    ("scheduleID", .string(id)), ("url", .string(url)),
                    ("bytes", response.map { .number(Double($0.count)) } ?? .null),
                    ("error", .optional(error?.description)),
                ]
            )
        case .scheduleIssue(let rule, let message, let location):
            return (
                "scheduleIssue",
                [("rule", .string(rule)), ("message", .string(message)), ("location", .string(location))]
            )
        case .beaconFired(let id, let type, let creative, let url, let status, let moment, let attempts):
            return (
                "beaconFired",
                [
                    ("eventID", .string(id)), ("type", .string(type)), ("creative", .optional(creative)),
                    ("url", .string(url)), ("status", .number(Double(status))), ("moment", .seconds(moment)),
                    ("attempts", .number(Double(attempts))),
                ]
            )
        case .beaconFailed(let id, let type, let creative, let url, let reason):
            return (
                "beaconFailed",
                [
                    ("eventID", .string(id)), ("type", .string(type)), ("creative", .optional(creative)),
                    ("url", .string(url)), ("reason", .string(reason)),
                ]
            )
        }
    }
}
