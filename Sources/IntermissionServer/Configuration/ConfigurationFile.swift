import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist
import Logging
import Yams

/// The YAML configuration file of `intermission serve` (every key is documented in the README, "Configuration file").
public struct ConfigurationFile: Sendable, Codable {
    /// `server:`
    public struct Server: Sendable, Codable {
        public var host: String?
        public var port: Int?
        public var database: String?
        public var publicBaseURL: String?
        public var adminToken: String?
        public var maxUpstreamBytes: Int?
        public var upstreamTimeout: Double?
        public var logLevel: String?
    }

    /// One `inventory:` entry.
    public struct CreativeEntry: Sendable, Codable {
        public var id: String
        public var uri: String
        public var duration: Double
        public var value: Double?
    }

    /// One `breaks:` entry of a VOD asset.
    public struct VODBreakEntry: Sendable, Codable {
        public var id: String
        public var at: Double?
        public var cue: [String]?
        public var duration: Double
        public var resumeOffset: Double?
        public var restrictions: [String]?
    }

    /// One `vod:` entry.
    public struct VODEntry: Sendable, Codable {
        public var id: String
        public var origin: String
        public var playlist: String?
        public var programDateTime: String?
        public var breaks: [VODBreakEntry]?
    }

    /// `breaks:` of a channel.
    public struct LivePlanEntry: Sendable, Codable {
        public var every: Double
        public var duration: Double
        public var offset: Double?
        public var restrictions: [String]?
        public var snap: [String]?
    }

    /// One `channels:` entry.
    public struct ChannelEntry: Sendable, Codable {
        public var id: String
        public var upstream: String?
        public var loop: String?
        public var playlist: String?
        public var window: Int?
        public var startDate: String?
        public var breaks: LivePlanEntry?
        public var lookahead: Double?
        public var staleAfter: Double?
        public var scte35Duration: Double?
    }

    public var server: Server?
    public var media: [String: String]?
    public var repeatWindow: Double?
    public var inventory: [CreativeEntry]?
    public var vod: [VODEntry]?
    public var channels: [ChannelEntry]?

    /// Parses YAML text.
    ///
    /// - Throws: ``ConfigurationError`` saying what is wrong and where.
    public static func parse(_ yaml: String) throws -> ConfigurationFile {
        do {
            return try YAMLDecoder().decode(ConfigurationFile.self, from: yaml)
        } catch let error as DecodingError {
            throw ConfigurationError(message: describe(error))
        } catch {
            throw ConfigurationError(message: "\(error)")
        }
    }

    /// The server configuration this file describes, on top of `base`.
    ///
    /// - Parameters:
    ///   - base: Defaults (and what the command line gave).
    ///   - folder: The folder relative `media:` paths are resolved against (the file's folder).
    /// - Throws: ``ConfigurationError`` naming the bad key.
    public func apply(to base: ServerConfiguration, relativeTo folder: String) throws -> ServerConfiguration {
        var result = base
        if let server = self.server {
            if let host = server.host { result.hostname = host }
            if let port = server.port { result.port = port }
            if let database = server.database { result.database = database }
            if let url = server.publicBaseURL { result.publicBaseURL = url }
            if let token = server.adminToken { result.adminToken = token }
            if let bytes = server.maxUpstreamBytes { result.maximumUpstreamBytes = bytes }
            if let timeout = server.upstreamTimeout { result.upstreamTimeout = .milliseconds(Int64(timeout * 1000)) }
            if let level = server.logLevel {
                guard let parsed = Logger.Level(rawValue: level) else {
                    throw ConfigurationError(message: "server.logLevel: '\(level)' is not one of trace, debug, info, notice, warning, error, critical")
                }
                result.logLevel = parsed
            }
        }
        for (name, path) in self.media ?? [:] {
            guard OriginPath.isSafeName(name) else { throw ConfigurationError(message: "media.\(name): names may use letters, digits, '-', '_', '.', '~'") }
            result.mounts[name] = path.hasPrefix("/") ? path : folder + "/" + path
        }
        var ad = result.adInsertion
        if let window = self.repeatWindow { ad.policy.repeatWindow = MediaTime(seconds: window) }
        for (k, entry) in (self.inventory ?? []).enumerated() {
            guard entry.duration > 0 else { throw ConfigurationError(message: "inventory[\(k)].duration must be positive") }
            ad.inventory.append(Creative(id: entry.id, uri: entry.uri, duration: MediaTime(seconds: entry.duration), value: entry.value ?? 1))
        }
        for (k, entry) in (self.vod ?? []).enumerated() {
            let path = "vod[\(k)]"
            guard OriginPath.isSafeName(entry.id) else { throw ConfigurationError(message: "\(path).id '\(entry.id)' may use letters, digits, '-', '_', '.', '~'") }
            var asset = VODAsset(id: entry.id, origin: entry.origin, playlist: entry.playlist ?? "main.m3u8")
            if let text = entry.programDateTime {
                guard let date = DateTime(iso8601: text) else { throw ConfigurationError(message: "\(path).programDateTime '\(text)' is not an ISO 8601 date") }
                asset.programDateTimeOrigin = date
            }
            for (j, b) in (entry.breaks ?? []).enumerated() {
                asset.breaks.append(try Self.vodBreak(b, path: "\(path).breaks[\(j)]"))
            }
            ad.assets.append(asset)
        }
        for (k, entry) in (self.channels ?? []).enumerated() {
            ad.channels.append(try Self.channel(entry, path: "channels[\(k)]"))
        }
        result.adInsertion = ad
        return result
    }

    static func vodBreak(_ b: VODBreakEntry, path: String) throws -> VODBreak {
        guard OriginPath.isSafeName(b.id) else { throw ConfigurationError(message: "\(path).id '\(b.id)' may use letters, digits, '-', '_', '.', '~'") }
        guard b.duration > 0 else { throw ConfigurationError(message: "\(path).duration must be positive") }
        let cue = b.cue ?? []
        for member in cue where !["PRE", "POST", "ONCE"].contains(member) {
            throw ConfigurationError(message: "\(path).cue: '\(member)' is not PRE, POST or ONCE")
        }
        let position: VODBreakPosition
        if cue.contains("PRE") && cue.contains("POST") {
            throw ConfigurationError(message: "\(path).cue cannot hold both PRE and POST")
        } else if cue.contains("PRE") {
            position = .preRoll
        } else if cue.contains("POST") {
            position = .postRoll
        } else if let at = b.at, at >= 0 {
            position = .midRoll(MediaTime(seconds: at))
        } else {
            throw ConfigurationError(message: "\(path) needs 'at' (seconds, not negative) or a cue of PRE or POST")
        }
        let restrictions = b.restrictions ?? ["SKIP", "JUMP"]
        for member in restrictions where !["SKIP", "JUMP"].contains(member) {
            throw ConfigurationError(message: "\(path).restrictions: '\(member)' is not SKIP or JUMP")
        }
        return VODBreak(
            id: b.id,
            position: position,
            duration: MediaTime(seconds: b.duration),
            once: cue.contains("ONCE"),
            resumeOffset: MediaTime(seconds: b.resumeOffset ?? 0),
            restrictions: Restrictions(members: restrictions)
        )
    }

    static func channel(_ entry: ChannelEntry, path: String) throws -> LiveChannel {
        guard OriginPath.isSafeName(entry.id) else { throw ConfigurationError(message: "\(path).id '\(entry.id)' may use letters, digits, '-', '_', '.', '~'") }
        let source: LiveChannel.Source
        switch (entry.upstream, entry.loop) {
        case (let upstream?, nil): source = .upstream(upstream)
        case (nil, let loop?): source = .loop(origin: loop, playlist: entry.playlist ?? "main.m3u8")
        default: throw ConfigurationError(message: "\(path) needs exactly one of 'upstream' (a live playlist URL) or 'loop' (a VOD folder)")
        }
        var channel = LiveChannel(id: entry.id, source: source)
        if let window = entry.window {
            guard window >= 3 else { throw ConfigurationError(message: "\(path).window must be at least 3 segments") }
            channel.windowSegments = window
        }
        if let text = entry.startDate {
            guard let date = DateTime(iso8601: text) else { throw ConfigurationError(message: "\(path).startDate '\(text)' is not an ISO 8601 date") }
            channel.startDate = date
        }
        if let plan = entry.breaks {
            guard plan.every > 0, plan.duration > 0, plan.duration <= plan.every else {
                throw ConfigurationError(message: "\(path).breaks: 'every' and 'duration' must be positive, with duration <= every")
            }
            channel.breakPlan = LiveBreakPlan(
                interval: MediaTime(seconds: plan.every),
                duration: MediaTime(seconds: plan.duration),
                offset: plan.offset.map { MediaTime(seconds: $0) },
                restrictions: plan.restrictions ?? ["SKIP", "JUMP"],
                snap: plan.snap ?? []
            )
        }
        if let lookahead = entry.lookahead { channel.lookahead = MediaTime(seconds: lookahead) }
        if let stale = entry.staleAfter { channel.staleAfter = MediaTime(seconds: stale) }
        if let scte = entry.scte35Duration { channel.defaultSCTE35Duration = MediaTime(seconds: scte) }
        return channel
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.hasPrefix(".") ? String(keys.dropFirst()) : keys
        }
        switch error {
        case .keyNotFound(let key, let context):
            let at = path(context)
            return "\(at.isEmpty ? "" : at + ": ")missing key '\(key.stringValue)'"
        case .typeMismatch(let type, let context): return "\(path(context)): expected \(type)"
        case .valueNotFound(let type, let context): return "\(path(context)): expected \(type), found nothing"
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}

/// A configuration file that cannot be used.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the key.
    public var message: String

    /// Creates an error.
    public init(message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { self.message }
}
