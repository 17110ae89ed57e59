import Foundation
import HLSInterstitials
import HLSPlaylist

/// A service plan of the AirPlay talk (WWDC23 10275), applied by the receiver to the same playlist.
public enum ServicePlan: String, Sendable, Hashable, Codable, CaseIterable {
    /// Ads, with the restrictions the playlist (or the sender's events) set.
    case a = "A"
    /// No ads: interstitials are not played, so nothing is restricted.
    case b = "B"
    /// Ads; the first ad of each pod keeps its restrictions, the later ones lose them and can be
    /// skipped.
    case c = "C"

    /// Whether the ad at `positionInPod` (0 for the first) keeps its restrictions under this plan:
    /// the one rule of plan C, whether the pod is several events that start together or one
    /// event's asset list of several ads.
    public func keepsRestrictions(atPositionInPod positionInPod: Int) -> Bool {
        self != .c || positionInPod == 0
    }
}

/// A client-side interstitial event in structured form (the sender's `AVPlayerInterstitialEvent`).
public struct ClientInterstitial: Sendable, Hashable, Codable {
    /// The event's `ID`; an event with the ID of a playlist event replaces it.
    public var id: String
    /// Seconds on the primary timeline where it starts.
    public var time: Double
    /// The interstitial's multivariant or media playlist (`X-ASSET-URI`), absolute or relative to the
    /// primary URL.
    public var assetURI: String
    /// `X-RESTRICT` members: `SKIP`, `JUMP`.
    public var restrict: [String]?
    /// `X-RESUME-OFFSET` in seconds.
    public var resumeOffset: Double?

    /// Creates a client event.
    public init(id: String, time: Double, assetURI: String, restrict: [String]? = nil, resumeOffset: Double? = nil) {
        self.id = id
        self.time = time
        self.assetURI = assetURI
        self.restrict = restrict
        self.resumeOffset = resumeOffset
    }
}

/// What a sender hands over to a receiver: the primary, where to start, the client-side events and
/// overrides (the plan), and the viewer's language choices.
///
/// Read one from JSON with ``decode(_:)``, which checks every value against ``Limits``.
public struct ReceiverSession: Sendable, Hashable, Codable {
    /// The primary's multivariant or media playlist URL (`http` or `https`).
    public var url: String
    /// Where playback starts, in seconds on the primary timeline (`nil`: the beginning).
    public var position: Double?
    /// The plan (default ``ServicePlan/a``).
    public var plan: ServicePlan?
    /// Whether the playlist's own interstitial events play (default `true`; plan B turns it off).
    public var automaticallyHandlesInterstitialEvents: Bool?
    /// Client-side events written as `EXT-X-DATERANGE` lines (class `com.apple.hls.interstitial`).
    public var dateRanges: [String]?
    /// Client-side events in structured form.
    public var events: [ClientInterstitial]?
    /// The selected audio language (a BCP 47 tag such as `en` or `pt-BR`).
    public var audioLanguage: String?
    /// The selected subtitle language.
    public var subtitleLanguage: String?
    /// The interstitial playing on the sender when it handed over (an ad in progress): the
    /// receiver continues it where the sender left it instead of playing it again from its start.
    ///
    /// ``position`` is then the primary time the interstitial is at.
    public var interstitial: InterstitialInProgress?

    /// Creates a session.
    public init(
        url: String,
        position: Double? = nil,
        plan: ServicePlan? = nil,
        automaticallyHandlesInterstitialEvents: Bool? = nil,
        dateRanges: [String]? = nil,
        events: [ClientInterstitial]? = nil,
        audioLanguage: String? = nil,
        subtitleLanguage: String? = nil,
        interstitial: InterstitialInProgress? = nil
    ) {
        self.interstitial = interstitial
        self.url = url
        self.position = position
        self.plan = plan
        self.automaticallyHandlesInterstitialEvents = automaticallyHandlesInterstitialEvents
        self.dateRanges = dateRanges
        self.events = events
        self.audioLanguage = audioLanguage
        self.subtitleLanguage = subtitleLanguage
    }

    /// The bounds a session is checked against.
    public enum Limits {
        /// The largest session document.
        public static let documentBytes = 64 * 1024
        /// The longest URL.
        public static let urlBytes = 2_048
        /// The latest position and event time, in seconds (about 115 days).
        public static let seconds = 1e7
        /// The most client-side events (date ranges and structured together).
        public static let events = 64
        /// The longest date-range line.
        public static let dateRangeBytes = 4_096
        /// The longest language tag.
        public static let languageBytes = 35
    }

    /// The plan in force: ``plan``, or A when not given.
    public var effectivePlan: ServicePlan { self.plan ?? .a }

    /// Whether the playlist's events play: never under plan B, else as asked (default `true`).
    public var playsPlaylistEvents: Bool {
        self.effectivePlan != .b && self.automaticallyHandlesInterstitialEvents != false
    }

    /// Every problem of the session, each naming its field.
    public func problems() -> [ReceiverError] {
        var problems: [ReceiverError] = []
        func bad(_ field: String, _ message: String) {
            problems.append(ReceiverError(code: "invalidInput", message: message, field: field))
        }
        if let reason = Self.urlProblem(self.url) { bad("url", reason) }
        if let interstitial {
            let id = interstitial.eventID
            if id.isEmpty || id.utf8.count > 256 || id.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
                bad("interstitial.eventID", "must be 1 to 256 bytes with no control characters")
            }
            if !(interstitial.offset >= 0 && interstitial.offset <= Limits.seconds) {
                bad("interstitial.offset", "must be a number of seconds from 0 to \(Int(Limits.seconds))")
            }
            if let restrictions = interstitial.restrictions,
                restrictions.count > 2 || !restrictions.allSatisfy({ $0 == "SKIP" || $0 == "JUMP" })
            {
                bad("interstitial.restrictions", "must list at most SKIP and JUMP")
            }
        }
        if let position, !(position >= 0 && position <= Limits.seconds) {
            bad("position", "must be a number of seconds from 0 to \(Int(Limits.seconds))")
        }
        let dateRanges = self.dateRanges ?? []
        let structured = self.events ?? []
        if dateRanges.count + structured.count > Limits.events {
            bad("events", "at most \(Limits.events) client-side events")
        }
        for (index, line) in dateRanges.enumerated() {
            if line.utf8.count > Limits.dateRangeBytes || line.utf8.contains(0) {
                bad("dateRanges[\(index)]", "must be at most \(Limits.dateRangeBytes) bytes with no NUL")
            } else if Self.event(dateRange: line) == nil {
                bad(
                    "dateRanges[\(index)]",
                    "must be an EXT-X-DATERANGE of class com.apple.hls.interstitial with an ID and a START-DATE"
                )
            }
        }
        for (index, event) in structured.enumerated() {
            let field = "events[\(index)]"
            if event.id.isEmpty || event.id.utf8.count > 256 || event.id.utf8.contains(where: { $0 < 0x20 }) {
                bad(field + ".id", "must be 1 to 256 bytes with no control characters")
            }
            if !(event.time >= 0 && event.time <= Limits.seconds) {
                bad(field + ".time", "must be a number of seconds from 0 to \(Int(Limits.seconds))")
            }
            if let offset = event.resumeOffset, !(abs(offset) <= Limits.seconds) {
                bad(field + ".resumeOffset", "must be a number of seconds from -1e7 to 1e7")
            }
            if event.assetURI.isEmpty || event.assetURI.utf8.count > Limits.urlBytes
                || event.assetURI.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F })
            {
                bad(field + ".assetURI", "must be 1 to \(Limits.urlBytes) bytes with no spaces or control characters")
            }
            if let members = event.restrict,
                members.count > 2 || members.contains(where: { $0 != "SKIP" && $0 != "JUMP" })
            {
                bad(field + ".restrict", "takes SKIP and JUMP only")
            }
        }
        for (field, language) in [("audioLanguage", self.audioLanguage), ("subtitleLanguage", self.subtitleLanguage)] {
            guard let language else { continue }
            let allowed = language.utf8.allSatisfy {
                $0 == 0x2D || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            }
            if language.isEmpty || language.utf8.count > Limits.languageBytes || !allowed {
                bad(field, "must be a language tag of 1 to \(Limits.languageBytes) letters, digits and hyphens")
            }
        }
        return problems
    }

    /// Why `url` cannot be a primary URL, or `nil` when it can.
    static func urlProblem(_ url: String) -> String? {
        let lowered = url.prefix(8).lowercased()
        guard url.utf8.count <= Limits.urlBytes, !url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }),
            lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), url.utf8.count > 8
        else {
            return
                "must be an http or https URL of at most \(Limits.urlBytes) bytes with no spaces or control characters"
        }
        return nil
    }

    /// An interstitial event from one `EXT-X-DATERANGE` line, or `nil` when it is not one.
    static func event(dateRange line: String) -> InterstitialEvent? {
        guard let range = try? DateRange(parsing: line), !range.id.isEmpty else { return nil }
        return InterstitialEvent(dateRange: range)
    }

    /// The client-side events, with asset URIs resolved against the primary URL.
    public func clientEvents() -> [InterstitialEvent] {
        var result = (self.dateRanges ?? []).compactMap(Self.event(dateRange:))
        for client in self.events ?? [] {
            var event = InterstitialEvent(identifier: client.id, time: MediaTime(seconds: client.time))
            event.assetURIs = [client.assetURI]
            event.restrictions = Restrictions(members: client.restrict ?? [])
            event.resumptionOffset = client.resumeOffset.map { MediaTime(seconds: $0) }
            result.append(event)
        }
        return result.map { event in
            var event = event
            event.assetURIs = event.assetURIs.map { URIReference.resolve($0, against: self.url) }
            event.assetListURI = event.assetListURI.map { URIReference.resolve($0, against: self.url) }
            return event
        }
    }

    /// Reads and checks a session document.
    public static func decode(_ bytes: [UInt8]) throws(ReceiverError) -> ReceiverSession {
        let session: ReceiverSession = try ReceiverError.decodeJSON(bytes, limit: Limits.documentBytes)
        if let first = session.problems().first { throw first }
        return session
    }
}

/// A remote command from the sender: what the AirPlay controls and the receiver's remote send.
public struct ReceiverCommand: Sendable, Hashable, Codable {
    /// What the command does.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// Play at the default rate.
        case play
        /// Pause.
        case pause
        /// Seek the primary to ``ReceiverCommand/time``.
        case seek
        /// Play at ``ReceiverCommand/rate``.
        case rate
        /// Skip the interstitial playing (skip control).
        case skip
    }

    /// The command.
    public var command: Kind
    /// The target of a seek, in seconds on the primary timeline.
    public var time: Double?
    /// The rate of a rate command (0 to 64).
    public var rate: Double?

    /// Creates a command.
    public init(_ command: Kind, time: Double? = nil, rate: Double? = nil) {
        self.command = command
        self.time = time
        self.rate = rate
    }

    /// The largest command document.
    public static let maximumDocumentBytes = 4_096

    /// Reads and checks a command: a known `command`, a seek `time` from 0 to 1e7, a `rate` from 0 to 64.
    public static func decode(_ bytes: [UInt8]) throws(ReceiverError) -> ReceiverCommand {
        if let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let name = object["command"] as? String, Kind(rawValue: name) == nil
        {
            throw ReceiverError(
                code: "unknownCommand",
                message:
                    "unknown command '\(String(String.UnicodeScalarView(name.unicodeScalars.filter { $0.value >= 0x20 }.prefix(40))))': use one of "
                    + Kind.allCases.map(\.rawValue).joined(separator: ", "),
                field: "command"
            )
        }
        let command: ReceiverCommand = try ReceiverError.decodeJSON(bytes, limit: Self.maximumDocumentBytes)
        switch command.command {
        case .seek:
            guard let time = command.time, time >= 0, time <= ReceiverSession.Limits.seconds else {
                throw ReceiverError(
                    code: "invalidInput",
                    message: "a seek needs a time from 0 to 1e7 seconds",
                    field: "time"
                )
            }
        case .rate:
            guard let rate = command.rate, rate >= 0, rate <= 64 else {
                throw ReceiverError(
                    code: "invalidInput",
                    message: "a rate command needs a rate from 0 to 64",
                    field: "rate"
                )
            }
        case .play, .pause, .skip: break
        }
        return command
    }
}

/// The receiver's answer to a command: granted or refused, and why, exactly as the local player
/// answers.
public struct ReceiverReply: Sendable, Hashable, Codable {
    /// The command answered.
    public var command: ReceiverCommand.Kind
    /// Whether it was carried out.
    public var allowed: Bool
    /// Why, in words (the restriction that refused it, or what happened).
    public var reason: String
    /// Where a granted seek continues on the primary timeline.
    public var grantedTime: Double?
    /// Interstitials a seek plays first (`JUMP`).
    public var interstitials: [String]?

    /// Creates a reply.
    public init(
        command: ReceiverCommand.Kind,
        allowed: Bool,
        reason: String,
        grantedTime: Double? = nil,
        interstitials: [String]? = nil
    ) {
        self.command = command
        self.allowed = allowed
        self.reason = reason
        self.grantedTime = grantedTime
        self.interstitials = interstitials
    }
}

/// Something that happened on the receiver, as the sender sees it.
public struct ReceiverEvent: Sendable, Hashable, Codable {
    /// The kind: `session`, `scheduled`, `transitionRisk`, `interstitialStarted`, `primaryResumed`,
    /// `eventFinished`, `skipped`, `skippable`, `status`, `command`, `ended`, `error`, and `replaced`
    /// (another sender handed over a new session, which ends this one).
    public var kind: String
    /// Its number, from 1, in the order of the receiver's events.
    public var sequence: Int
    /// The number of the session it belongs to (``ReceiverState/session``): a sender follows only
    /// its own session's events.
    ///
    /// `nil` from a receiver that does not number sessions.
    public var session: Int?
    /// Seconds since the session started, on the receiver's clock.
    public var t: Double
    /// The interstitial event concerned, if one is.
    public var eventID: String?
    /// The primary time, when it matters.
    public var primaryTime: Double?
    /// A status, a plan, or what happened, in words.
    public var message: String?
    /// The event IDs of a `scheduled` event.
    public var events: [String]?
    /// The risks of a `transitionRisk` event.
    public var risks: [TransitionRisk]?
    /// The reply of a `command` event.
    public var reply: ReceiverReply?

    /// Creates an event (the receiver numbers it).
    public init(
        kind: String,
        eventID: String? = nil,
        primaryTime: Double? = nil,
        message: String? = nil,
        events: [String]? = nil,
        risks: [TransitionRisk]? = nil,
        reply: ReceiverReply? = nil
    ) {
        self.kind = kind
        self.sequence = 0
        self.t = 0
        self.eventID = eventID
        self.primaryTime = primaryTime
        self.message = message
        self.events = events
        self.risks = risks
        self.reply = reply
    }
}

/// A receiver request that cannot be used: a code, a message, and the field at fault.
public struct ReceiverError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `invalidInput`, `unknownCommand`, `tooLarge`, `notJSON`, `noSession` or `unreachable`.
    public var code: String
    /// What is wrong.
    public var message: String
    /// The JSON key at fault, if one is.
    public var field: String?

    /// Creates an error.
    public init(code: String, message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    /// `code: field: message`.
    public var description: String { "\(self.code): " + (self.field.map { "\($0): " } ?? "") + self.message }

    /// Decodes a JSON document of at most `limit` bytes.
    static func decodeJSON<T: Decodable>(_ bytes: [UInt8], limit: Int) throws(ReceiverError) -> T {
        guard bytes.count <= limit else {
            throw ReceiverError(code: "tooLarge", message: "the document is over \(limit) bytes")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch {
            throw ReceiverError(code: "notJSON", message: ReceiverProfile.describe(error))
        }
    }
}

/// The interstitial a sender was playing when it handed a session over (``ReceiverSession/interstitial``).
public struct InterstitialInProgress: Sendable, Hashable, Codable {
    /// The event's `ID`.
    public var eventID: String
    /// How far into the event the sender was, in seconds, from its start across its assets (the
    /// asset in progress follows from it).
    public var offset: Double
    /// The event's `X-RESTRICT` as the sender knew it (`SKIP`, `JUMP`), reported back in the
    /// `session` event; the receiver enforces what its own playlist says.
    public var restrictions: [String]?

    /// Creates one.
    public init(eventID: String, offset: Double, restrictions: [String]? = nil) {
        self.eventID = eventID
        self.offset = offset
        self.restrictions = restrictions
    }
}
