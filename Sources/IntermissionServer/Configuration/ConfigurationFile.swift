import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist
import IntermissionHTTP
import IntermissionStore
import Logging
import Yams

/// The YAML configuration file of `intermission serve` (every key is documented in <doc:ConfiguringTheServer>).
public struct ConfigurationFile: Sendable, Codable {
    /// The `server:` section.
    public struct Server: Sendable, Codable {
        /// `host`: the address to bind (default `127.0.0.1`).
        public var host: String?
        /// `port`: the port; 0 picks a free one (default 8080).
        public var port: Int?
        /// `database`: a path, `sqlite:PATH`, `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` (one
        /// database shared by several instances; options in <doc:CDNAndSeveralInstances>) or `memory:` (default
        /// `intermission.sqlite`); a SQLite
        /// path may end in `?synchronous=full` to flush every commit to the disk (the default,
        /// `?synchronous=normal`, keeps every answered decision through a crash of the process).
        public var database: String?
        /// `publicBaseURL`: the URL viewers reach the server at, for absolute asset-list URIs.
        public var publicBaseURL: String?
        /// `adminToken`: the bearer token of `/v1/admin` (none: the admin API is disabled).
        public var adminToken: String?
        /// `maxUpstreamBytes`: larger upstream playlists are refused.
        public var maxUpstreamBytes: Int?
        /// `upstreamTimeout`: seconds an upstream has to answer.
        public var upstreamTimeout: Double?
        /// `idleTimeout`: seconds a connection may stay silent before the server closes it.
        public var idleTimeout: Double?
        /// `maxConnections`: the most connections (HTTP and WebSocket) open at once; more are closed
        /// at accept.
        ///
        /// Default: the descriptor limit less a quarter of it (at least 256 less).
        public var maxConnections: Int?
        /// `requestHeadTimeout`: seconds a request head may take to arrive whole (default 10).
        public var requestHeadTimeout: Double?
        /// `logLevel`: `trace`, `debug`, `info`, `notice`, `warning`, `error` or `critical`.
        public var logLevel: String?
        /// `groupHelloTimeout`: seconds a group socket may stay open without joining.
        public var groupHelloTimeout: Double?
        /// `groupPingInterval`: seconds between the pings of a group socket.
        public var groupPingInterval: Double?
        /// `groupJoinsPerAddress`: the most participants of one group from one address.
        public var groupJoinsPerAddress: Int?
        /// `groupMessagesPerSecond`: the messages a group socket may send per second.
        public var groupMessagesPerSecond: Double?
        /// `groupMessageBurst`: the messages a group socket may send at once above the rate.
        public var groupMessageBurst: Int?
        /// `groupSendQueue`: the messages waiting to be written to one group socket.
        public var groupSendQueue: Int?
        /// `groupWriteTimeout`: seconds one message may take to be written to a group socket.
        public var groupWriteTimeout: Double?
        /// `groupAddressHeader`: the header a proxy sets to a participant's address.
        public var groupAddressHeader: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case host, port, database, publicBaseURL, adminToken, maxUpstreamBytes, upstreamTimeout, idleTimeout
            case maxConnections, requestHeadTimeout, logLevel
            case groupHelloTimeout, groupPingInterval, groupJoinsPerAddress, groupMessagesPerSecond, groupMessageBurst
            case groupSendQueue, groupWriteTimeout, groupAddressHeader
        }
    }

    /// One `inventory:` entry.
    public struct CreativeEntry: Sendable, Codable {
        /// `id`: the creative identifier.
        public var id: String
        /// `uri`: an absolute `http(s)` URL or a path on this server.
        public var uri: String
        /// `duration`: seconds.
        public var duration: Double
        /// `value`: higher values are placed first (default 1).
        public var value: Double?
        /// `tracking`: the ad server's beacon URLs by event (`impression`, `start`, `firstQuartile`,
        /// `midpoint`, `thirdQuartile`, `complete`, `clickTracking`, `creativeView`, `skip`, `pause`,
        /// `resume`, `mute`, `unmute`, `error`; `[ERRORCODE]` in an error URL is filled), called when a
        /// viewer's beacon arrives.
        public var tracking: [String: [String]]?
        /// `scopes`: the presentations it may fill pods of (`vod-{asset}`, `live-{channel}`; default: any).
        public var scopes: [String]?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case id, uri, duration, value, tracking, scopes
        }
    }

    /// One `breaks:` entry of a VOD asset.
    public struct VODBreakEntry: Sendable, Codable {
        /// `id`: the `EXT-X-DATERANGE` ID.
        public var id: String
        /// `at`: seconds into the primary, for a break without `PRE` or `POST`.
        public var at: Double?
        /// `cue`: `PRE`, `POST` and/or `ONCE`.
        public var cue: [String]?
        /// `duration`: the pod length in seconds.
        public var duration: Double
        /// `resumeOffset`: `X-RESUME-OFFSET` in seconds (default 0).
        public var resumeOffset: Double?
        /// `restrictions`: `X-RESTRICT` (default `SKIP` and `JUMP`).
        public var restrictions: [String]?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case id, at, cue, duration, resumeOffset, restrictions
        }
    }

    /// One `vod:` entry.
    public struct VODEntry: Sendable, Codable {
        /// `id`: served at `/vod/{id}/`.
        public var id: String
        /// `origin`: the `http(s)` base URL of the presentation, or a `/media/` path.
        public var origin: String
        /// `playlist`: the main playlist inside `origin` (default `main.m3u8`).
        public var playlist: String?
        /// `programDateTime`: the date of media time 0 when the origin has no `PROGRAM-DATE-TIME`.
        public var programDateTime: String?
        /// `breaks`: the breaks of the asset.
        public var breaks: [VODBreakEntry]?
        /// `adServer`: the VAST ad server asked for the breaks' ads (default: the local inventory).
        public var adServer: AdServerEntry?
        /// `vmap`: a VMAP document whose breaks are added to `breaks` at start.
        public var vmap: VMAPEntry?
        /// `inventory`: the IDs of the creatives this asset's pods are filled from (default: all).
        public var inventory: [String]?
        /// `profile`: `podcast` writes the interstitial tags by Apple's rules for podcast episodes.
        public var profile: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case id, origin, playlist, programDateTime, breaks, adServer, vmap, inventory, profile
        }
    }

    /// `breaks:` of a channel.
    public struct LivePlanEntry: Sendable, Codable {
        /// `every`: seconds between break starts.
        public var every: Double
        /// `duration`: the pod length in seconds.
        public var duration: Double
        /// `offset`: seconds from `startDate` to the first break (default `every`).
        public var offset: Double?
        /// `restrictions`: `X-RESTRICT` (default `SKIP` and `JUMP`).
        public var restrictions: [String]?
        /// `snap`: `X-SNAP` (default none).
        public var snap: [String]?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case every, duration, offset, restrictions, snap
        }
    }

    /// One `channels:` entry.
    public struct ChannelEntry: Sendable, Codable {
        /// `id`: served at `/live/{id}/`.
        public var id: String
        /// `upstream`: a live playlist to decorate (or `loop`).
        public var upstream: String?
        /// `loop`: a VOD folder to loop (or `upstream`).
        public var loop: String?
        /// `playlist`: the main playlist of `loop`.
        public var playlist: String?
        /// `window`: segments per playlist (at least 3).
        public var window: Int?
        /// `startDate`: the date of segment 0 (default midnight UTC of the start day).
        public var startDate: String?
        /// `breaks`: the regular breaks.
        public var breaks: LivePlanEntry?
        /// `lookahead`: seconds ahead of the last segment that breaks are announced.
        public var lookahead: Double?
        /// `staleAfter`: seconds without a change before `/health` calls the upstream stale.
        public var staleAfter: Double?
        /// `scte35Duration`: the pod length for an SCTE-35 out without a duration.
        public var scte35Duration: Double?
        /// `scte35BreakStarts`: the `segmentation_type_id`s (0 to 255) of a `time_signal` that open a
        /// break (default: 0x30, 0x32, 0x34, 0x36: provider and distributor advertisement and
        /// placement-opportunity starts).
        public var scte35BreakStarts: [Int]?
        /// `scte35BreakEnds`: the `segmentation_type_id`s that close one (default: 0x31, 0x33, 0x35,
        /// 0x37).
        public var scte35BreakEnds: [Int]?
        /// `cueOnce`: `true` writes the channel's mid-rolls with `CUE="ONCE"` (default `false`).
        public var cueOnce: Bool?
        /// `preloadWindow`: seconds before each break that its preload range (Appendix F) opens;
        /// 0 writes none (default: 8 target durations).
        public var preloadWindow: Double?
        /// `adServer`: the VAST ad server asked for the breaks' ads (default: the local inventory).
        public var adServer: AdServerEntry?
        /// `breakFormat`: `assetList` (default: one interstitial per break with an asset list) or
        /// `schedule` (a scheduled date range per break with one interstitial per ad; Appendix H).
        public var breakFormat: String?
        /// `inventory`: the IDs of the creatives this channel's pods are filled from (default: all).
        public var inventory: [String]?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case id, upstream, loop, playlist, window, startDate, breaks, lookahead, staleAfter, scte35Duration
            case cueOnce, preloadWindow, adServer, breakFormat, inventory, scte35BreakStarts, scte35BreakEnds
        }
    }

    /// `server:`: where to listen and how to reach upstreams.
    public var server: Server?
    /// `media:`: local folders served under `/media/{name}/`, by name.
    public var media: [String: String]?
    /// `repeatWindow:`: seconds a creative is not served again to the same viewer.
    public var repeatWindow: Double?
    /// `inventory:`: the creatives.
    public var inventory: [CreativeEntry]?
    /// `vod:`: the VOD presentations.
    public var vod: [VODEntry]?
    /// `channels:`: the live channels.
    public var channels: [ChannelEntry]?
    /// `tracking:`: beacons and viewer plans.
    public var tracking: TrackingEntry?
    /// `outbound:`: where requests for URLs from ad servers' documents may go.
    public var outbound: OutboundEntry?
    /// `storage:`: how long decisions are kept and how many.
    public var storage: StorageEntry?
    /// `conditioning:`: how creatives without an HLS media file are made into HLS.
    public var conditioning: ConditioningEntry?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case server, media, repeatWindow, inventory, vod, channels, tracking, outbound, storage, conditioning
    }

    /// The keys each part of the file may hold: anything else is refused, so a misspelt key never
    /// goes unnoticed.
    indirect enum Shape: Sendable {
        /// A scalar, or anything the decoder checks by itself.
        case value
        /// A mapping with these keys.
        case keys([String: Shape])
        /// A mapping with any keys (`media:`).
        case anyKeys
        /// A sequence of one shape.
        case list(Shape)

        static func of<Key: CodingKey & CaseIterable & RawRepresentable<String>>(
            _: Key.Type,
            _ nested: [String: Shape] = [:]
        ) -> Shape {
            .keys(Dictionary(uniqueKeysWithValues: Key.allCases.map { ($0.rawValue, nested[$0.rawValue] ?? .value) }))
        }

        static let file: Shape = .of(
            ConfigurationFile.CodingKeys.self,
            [
                "server": .of(Server.CodingKeys.self),
                "media": .anyKeys,
                "inventory": .list(.of(CreativeEntry.CodingKeys.self, ["tracking": .anyKeys])),
                "tracking": .of(TrackingEntry.CodingKeys.self),
                "outbound": .of(OutboundEntry.CodingKeys.self),
                "storage": .of(StorageEntry.CodingKeys.self),
                "conditioning": .of(ConditioningEntry.CodingKeys.self),
                "vod": .list(
                    .of(
                        VODEntry.CodingKeys.self,
                        [
                            "breaks": .list(.of(VODBreakEntry.CodingKeys.self)),
                            "adServer": .of(AdServerEntry.CodingKeys.self),
                            "vmap": .of(VMAPEntry.CodingKeys.self),
                        ]
                    )
                ),
                "channels": .list(
                    .of(
                        ChannelEntry.CodingKeys.self,
                        [
                            "breaks": .of(LivePlanEntry.CodingKeys.self),
                            "adServer": .of(AdServerEntry.CodingKeys.self),
                        ]
                    )
                ),
            ]
        )
    }

    /// Refuses keys the file format does not have, naming the first one with its line.
    static func checkKeys(_ node: Node, shape: Shape, path: String) throws {
        switch shape {
        case .value, .anyKeys:
            return
        case .list(let element):
            guard let sequence = node.sequence else { return }
            for (k, item) in sequence.enumerated() { try checkKeys(item, shape: element, path: "\(path)[\(k)]") }
        case .keys(let known):
            guard let mapping = node.mapping else { return }
            for (keyNode, value) in mapping {
                let key = keyNode.string ?? "?"
                let name = path.isEmpty ? key : path + "." + key
                guard let inner = known[key] else {
                    let line = keyNode.mark.map { " (line \($0.line))" } ?? ""
                    let choices = known.keys.sorted().joined(separator: ", ")
                    throw ConfigurationError(
                        key: name,
                        message: "\(name)\(line): unknown key; \(path.isEmpty ? "the file" : path) takes \(choices)"
                    )
                }
                try checkKeys(value, shape: inner, path: name)
            }
        }
    }

    /// Parses YAML text.
    ///
    /// - Throws: ``ConfigurationError`` saying what is wrong and where: a key the format does not
    ///   have, or a value of the wrong type.
    public static func parse(_ yaml: String) throws -> ConfigurationFile {
        do {
            if let node = try Yams.compose(yaml: yaml) {
                try Self.checkKeys(node, shape: .file, path: "")
            }
            return try YAMLDecoder().decode(ConfigurationFile.self, from: yaml)
        } catch let error as ConfigurationError {
            throw error
        } catch let error as DecodingError {
            throw ConfigurationError(message: describe(error))
        } catch {
            throw ConfigurationError(message: "\(error)")
        }
    }

    /// The server configuration this file describes, on top of `base`.
    ///
    /// Every number is checked against its range in ``InputLimits``.
    ///
    /// - Parameters:
    ///   - base: Defaults (and what the command line gave).
    ///   - folder: The folder relative `media:` paths are resolved against (the file's folder).
    /// - Throws: ``ConfigurationError`` naming the bad key.
    public func apply(to base: ServerConfiguration, relativeTo folder: String) throws -> ServerConfiguration {
        do {
            return try self.checkedApply(to: base, relativeTo: folder)
        } catch let error as InputLimitError {
            throw ConfigurationError(key: error.field, message: error.description)
        }
    }

    private func checkedApply(to base: ServerConfiguration, relativeTo folder: String) throws -> ServerConfiguration {
        typealias L = InputLimits
        var result = base
        if let server = self.server {
            if let host = server.host { result.hostname = host }
            if let port = server.port { result.port = try L.integer(port, in: L.port, field: "server.port") }
            if let database = server.database { result.database = database }
            if let url = server.publicBaseURL {
                let checked = try L.uri(url, field: "server.publicBaseURL")
                guard checked.lowercased().hasPrefix("http") else {
                    throw InputLimitError(
                        field: "server.publicBaseURL",
                        message: "must be an http(s) URL such as https://ads.example.com"
                    )
                }
                result.publicBaseURL = checked
            }
            if let token = server.adminToken {
                guard (1...1024).contains(token.utf8.count), token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                    throw InputLimitError(
                        field: "server.adminToken",
                        message: "must be 1 to 1024 printable ASCII characters without spaces"
                    )
                }
                result.adminToken = token
            }
            if let bytes = server.maxUpstreamBytes {
                result.maximumUpstreamBytes = try L.integer(
                    bytes,
                    in: L.maximumUpstreamBytes,
                    field: "server.maxUpstreamBytes"
                )
            }
            if let timeout = server.upstreamTimeout {
                result.upstreamTimeout = try L.duration(timeout, in: L.upstreamTimeout, field: "server.upstreamTimeout")
            }
            if let timeout = server.idleTimeout {
                result.idleTimeout = try L.duration(timeout, in: L.idleTimeout, field: "server.idleTimeout")
            }
            if let connections = server.maxConnections {
                result.maximumConnections = try L.integer(
                    connections,
                    in: L.maximumConnections,
                    field: "server.maxConnections"
                )
            }
            if let timeout = server.requestHeadTimeout {
                result.requestHeadTimeout = try L.duration(
                    timeout,
                    in: L.requestHeadTimeout,
                    field: "server.requestHeadTimeout"
                )
            }
            result.groupLimits = try Self.groupLimits(server, base: result.groupLimits)
            if let level = server.logLevel {
                guard let parsed = Logger.Level(rawValue: level) else {
                    throw ConfigurationError(
                        key: "server.logLevel",
                        message:
                            "server.logLevel: '\(level)' is not one of trace, debug, info, notice, warning, error, critical"
                    )
                }
                result.logLevel = parsed
            }
        }
        for (name, path) in self.media ?? [:] {
            _ = try L.id(name, field: "media.\(name)")
            result.mounts[name] = path.hasPrefix("/") ? path : folder + "/" + path
        }
        var ad = result.adInsertion
        if let window = self.repeatWindow {
            ad.policy.repeatWindow = try L.seconds(window, in: L.repeatWindow, field: "repeatWindow")
        }
        for (k, entry) in (self.inventory ?? []).enumerated() {
            let path = "inventory[\(k)]"
            ad.inventory.append(
                Creative(
                    id: try L.id(entry.id, field: "\(path).id"),
                    uri: try L.uri(entry.uri, field: "\(path).uri"),
                    duration: try L.seconds(entry.duration, in: L.duration, field: "\(path).duration"),
                    value: try L.number(entry.value ?? 1, in: L.creativeValue, field: "\(path).value"),
                    tracking: try TrackingEntry.creativeTracking(entry.tracking, field: "\(path).tracking"),
                    scopes: try CreativeView.scopes(entry.scopes, field: "\(path).scopes")
                )
            )
        }
        if let tracking = self.tracking { try tracking.apply(to: &result.tracking) }
        if let outbound = self.outbound { try outbound.apply(to: &result.outbound) }
        if let conditioning = self.conditioning {
            guard result.mounts[ConditioningConfiguration.mountName] == nil else {
                throw InputLimitError(
                    field: "media.\(ConditioningConfiguration.mountName)",
                    message:
                        "the mount name '\(ConditioningConfiguration.mountName)' is taken by conditioning: choose another"
                )
            }
            result.conditioning = try conditioning.configuration(relativeTo: folder)
        }
        if let storage = self.storage {
            try storage.apply(to: &result.retention, repeatWindow: ad.policy.repeatWindow)
        }
        for (k, entry) in (self.vod ?? []).enumerated() {
            let path = "vod[\(k)]"
            var asset = VODAsset(
                id: try L.id(entry.id, field: "\(path).id"),
                origin: try L.uri(entry.origin, field: "\(path).origin", allowsUserInfo: true),
                playlist: try L.relativePath(entry.playlist ?? "main.m3u8", field: "\(path).playlist")
            )
            if let text = entry.programDateTime {
                guard let date = DateTime(iso8601: text) else {
                    throw InputLimitError(
                        field: "\(path).programDateTime",
                        message: "\(L.quoted(text)) is not an ISO 8601 date"
                    )
                }
                asset.programDateTimeOrigin = try L.date(date, field: "\(path).programDateTime")
            }
            for (j, b) in (entry.breaks ?? []).enumerated() {
                asset.breaks.append(try Self.vodBreak(b, path: "\(path).breaks[\(j)]"))
            }
            asset.adServer = try entry.adServer.map { try $0.settings(path: "\(path).adServer") }
            asset.inventory = try Self.inventoryFilter(entry.inventory, field: "\(path).inventory")
            if let text = entry.profile {
                guard let profile = ValidationProfile(rawValue: text) else {
                    throw ConfigurationError(
                        key: "\(path).profile",
                        message: "\(path).profile: \(L.quoted(text)) is not a profile (expected podcast)"
                    )
                }
                asset.profile = profile
            }
            if let vmap = entry.vmap { result.vmapSources[asset.id] = try vmap.source(path: "\(path).vmap") }
            ad.assets.append(asset)
        }
        for (k, entry) in (self.channels ?? []).enumerated() {
            ad.channels.append(try Self.channel(entry, path: "channels[\(k)]"))
        }
        result.adInsertion = ad
        return result
    }

    /// The group sockets' limits of a `server:` section, each checked against its range, on top of
    /// `base`.
    static func groupLimits(_ server: Server, base: GroupLimits) throws -> GroupLimits {
        typealias L = InputLimits
        var limits = base
        func duration(_ value: Double?, _ range: ClosedRange<Double>, _ key: String) throws -> Duration? {
            try value.map { .milliseconds(try L.seconds($0, in: range, field: "server.\(key)").milliseconds) }
        }
        func count(_ value: Int?, _ range: ClosedRange<Int>, _ key: String) throws -> Int? {
            try value.map { try L.integer($0, in: range, field: "server.\(key)") }
        }
        limits.helloTimeout =
            try duration(server.groupHelloTimeout, L.groupTimeout, "groupHelloTimeout") ?? limits.helloTimeout
        limits.pingInterval =
            try duration(server.groupPingInterval, L.groupPingInterval, "groupPingInterval") ?? limits.pingInterval
        limits.writeTimeout =
            try duration(server.groupWriteTimeout, L.groupTimeout, "groupWriteTimeout") ?? limits.writeTimeout
        limits.joinsPerAddress =
            try count(server.groupJoinsPerAddress, L.groupJoinsPerAddress, "groupJoinsPerAddress")
            ?? limits.joinsPerAddress
        limits.messageBurst =
            try count(server.groupMessageBurst, L.groupMessageBurst, "groupMessageBurst") ?? limits.messageBurst
        limits.sendQueue = try count(server.groupSendQueue, L.groupSendQueue, "groupSendQueue") ?? limits.sendQueue
        limits.messagesPerSecond =
            try server.groupMessagesPerSecond.map {
                try L.number($0, in: L.groupMessagesPerSecond, field: "server.groupMessagesPerSecond")
            } ?? limits.messagesPerSecond
        if let header = server.groupAddressHeader {
            let token = header.utf8.allSatisfy {
                $0 == 0x2D || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0 & 0xDF)
            }
            guard (1...64).contains(header.utf8.count), token else {
                throw InputLimitError(
                    field: "server.groupAddressHeader",
                    message: "must be a header name of 1 to 64 letters, digits and '-'"
                )
            }
            limits.addressHeader = header
        }
        return limits
    }

    /// The creative IDs of an `inventory` key of an asset or a channel, each checked as an ID.
    static func inventoryFilter(_ ids: [String]?, field: String) throws -> Set<String>? {
        try InputLimits.idSet(ids, field: field, noun: "creative IDs") { try InputLimits.id($0, field: $1) }
    }

    /// The `segmentation_type_id`s of `scte35BreakStarts` or `scte35BreakEnds`: 1 to 256 values,
    /// each 0 to 255.
    static func segmentationTypes(_ values: [Int], field: String) throws -> Set<SegmentationType> {
        guard (1...256).contains(values.count) else {
            throw ConfigurationError(
                key: field,
                message: "\(field): give 1 to 256 segmentation type IDs, got \(values.count)"
            )
        }
        var types: Set<SegmentationType> = []
        for value in values {
            types.insert(SegmentationType(rawValue: UInt8(try InputLimits.integer(value, in: 0...255, field: field))))
        }
        return types
    }

    static func vodBreak(_ b: VODBreakEntry, path: String) throws -> VODBreak {
        typealias L = InputLimits
        let id = try L.id(b.id, field: "\(path).id")
        let duration = try L.seconds(b.duration, in: L.duration, field: "\(path).duration")
        let cue = b.cue ?? []
        for member in cue where !(AttributeName.cue.allowedValues ?? []).contains(member) {
            throw ConfigurationError(
                key: "\(path).cue",
                message: "\(path).cue: \(L.quoted(member)) is not PRE, POST or ONCE"
            )
        }
        let position: VODBreakPosition
        if cue.contains(AttributeName.Value.pre) && cue.contains(AttributeName.Value.post) {
            throw ConfigurationError(key: "\(path).cue", message: "\(path).cue cannot hold both PRE and POST")
        } else if cue.contains(AttributeName.Value.pre) {
            position = .preRoll
        } else if cue.contains(AttributeName.Value.post) {
            position = .postRoll
        } else if let at = b.at {
            position = .midRoll(try L.seconds(at, in: L.vodBreakAt, field: "\(path).at"))
        } else {
            throw ConfigurationError(
                key: "\(path).at",
                message: "\(path) needs 'at' (seconds, not negative) or a cue of PRE or POST"
            )
        }
        let allRestrictions = AttributeName.restrict.allowedValues ?? []
        let restrictions = b.restrictions ?? allRestrictions
        for member in restrictions where !allRestrictions.contains(member) {
            throw ConfigurationError(
                key: "\(path).restrictions",
                message: "\(path).restrictions: \(L.quoted(member)) is not SKIP or JUMP"
            )
        }
        return VODBreak(
            id: id,
            position: position,
            duration: duration,
            once: cue.contains(AttributeName.Value.once),
            resumeOffset: try L.seconds(b.resumeOffset ?? 0, in: L.resumeOffset, field: "\(path).resumeOffset"),
            restrictions: Restrictions(members: restrictions)
        )
    }

    static func channel(_ entry: ChannelEntry, path: String) throws -> LiveChannel {
        typealias L = InputLimits
        let id = try L.id(entry.id, field: "\(path).id")
        let source: LiveChannel.Source
        switch (entry.upstream, entry.loop) {
        case (let upstream?, nil):
            source = .upstream(try L.uri(upstream, field: "\(path).upstream", allowsUserInfo: true))
        case (nil, let loop?):
            source = .loop(
                origin: try L.uri(loop, field: "\(path).loop", allowsUserInfo: true),
                playlist: try L.relativePath(entry.playlist ?? "main.m3u8", field: "\(path).playlist")
            )
        default:
            throw ConfigurationError(
                key: path,
                message: "\(path) needs exactly one of 'upstream' (a live playlist URL) or 'loop' (a VOD folder)"
            )
        }
        var channel = LiveChannel(id: id, source: source)
        if let window = entry.window {
            channel.windowSegments = try L.integer(window, in: L.window, field: "\(path).window")
        }
        if let text = entry.startDate {
            guard let date = DateTime(iso8601: text) else {
                throw InputLimitError(field: "\(path).startDate", message: "\(L.quoted(text)) is not an ISO 8601 date")
            }
            channel.startDate = try L.date(date, field: "\(path).startDate")
        }
        if let plan = entry.breaks {
            let every = try L.seconds(plan.every, in: L.breakInterval, field: "\(path).breaks.every")
            let duration = try L.seconds(plan.duration, in: L.duration, field: "\(path).breaks.duration")
            guard duration <= every else {
                throw ConfigurationError(
                    key: "\(path).breaks.duration",
                    message: "\(path).breaks.duration must not be longer than \(path).breaks.every"
                )
            }
            channel.breakPlan = LiveBreakPlan(
                interval: every,
                duration: duration,
                offset: try plan.offset.map { (value) throws(InputLimitError) in
                    try L.seconds(value, in: L.breakOffset, field: "\(path).breaks.offset")
                },
                restrictions: try L.members(
                    plan.restrictions ?? (AttributeName.restrict.allowedValues ?? []),
                    of: AttributeName.restrict.allowedValues ?? [],
                    field: "\(path).breaks.restrictions"
                ),
                snap: try L.members(
                    plan.snap ?? [],
                    of: AttributeName.snap.allowedValues ?? [],
                    field: "\(path).breaks.snap"
                )
            )
        }
        if let lookahead = entry.lookahead {
            channel.lookahead = try L.seconds(lookahead, in: L.lookahead, field: "\(path).lookahead")
        }
        if let stale = entry.staleAfter {
            channel.staleAfter = try L.seconds(stale, in: L.staleAfter, field: "\(path).staleAfter")
        }
        if let scte = entry.scte35Duration {
            channel.defaultSCTE35Duration = try L.seconds(scte, in: L.duration, field: "\(path).scte35Duration")
        }
        if let starts = entry.scte35BreakStarts {
            channel.scte35Signals.breakStarts = try Self.segmentationTypes(starts, field: "\(path).scte35BreakStarts")
        }
        if let ends = entry.scte35BreakEnds {
            channel.scte35Signals.breakEnds = try Self.segmentationTypes(ends, field: "\(path).scte35BreakEnds")
        }
        guard channel.scte35Signals.breakStarts.isDisjoint(with: channel.scte35Signals.breakEnds) else {
            throw ConfigurationError(
                key: "\(path).scte35BreakEnds",
                message: "\(path).scte35BreakEnds: a segmentation type cannot both open and close a break"
            )
        }
        channel.marksMidRollsOnce = entry.cueOnce ?? false
        if let format = entry.breakFormat {
            guard let parsed = LiveBreakFormat(rawValue: format) else {
                throw ConfigurationError(
                    message: "\(path).breakFormat: expected assetList or schedule, got '\(format.prefix(40))'"
                )
            }
            channel.breakFormat = parsed
        }
        channel.adServer = try entry.adServer.map { try $0.settings(path: "\(path).adServer") }
        channel.inventory = try Self.inventoryFilter(entry.inventory, field: "\(path).inventory")
        if let window = entry.preloadWindow {
            channel.preloadWindow = try L.seconds(window, in: L.preloadWindow, field: "\(path).preloadWindow")
        }
        return channel
    }

    /// A coding path as a key path: `vod[0].breaks[1].duration`, `cue[1]`; empty for the root.
    static func keyPath(_ codingPath: [any CodingKey]) -> String { DecodingErrorText.keyPath(codingPath) }

    /// What is wrong with a decoded document, after the key at fault.
    static func describe(_ error: DecodingError) -> String { DecodingErrorText.describe(error) }
}

/// A configuration that cannot be used (defined with the storage protocols, whose drivers check
/// their database URLs with it).
public typealias ConfigurationError = IntermissionStore.ConfigurationError
