import HLSPlaylist

/// SVTA2053-2 ad-creative signaling: the `X-AD-CREATIVE-SIGNALING` member of an asset-list entry,
/// which tells a player what the asset's ads are and where to send their tracking beacons.
///
/// ```json
/// {"version": 2, "type": "slot",
///  "payload": [{"type": "linear", "start": 0, "duration": 15,
///               "identifiers": [{"scheme": "adId", "value": "red"}],
///               "tracking": [{"type": "impression", "urls": ["https://ads.example/i"]},
///                            {"type": "firstQuartile", "offset": 3.75, "urls": ["https://ads.example/q1"]}]}]}
/// ```
///
/// The envelope's `type` is `slot` (each payload entry is one ad) or `pod` (each payload entry is a
/// pod with its own `slots`). Members this model does not name are kept with their place at every
/// level, and numbers keep the text they were read with, so a decoded value encodes back to the
/// same JSON (the player fires the beacons; the server writes them).
public struct CreativeSignaling: Sendable, Hashable {
    /// The asset-list key that carries it.
    public static let key = "X-AD-CREATIVE-SIGNALING"

    /// `version`: the layout version (`2` for the layouts of SVTA2053-2 v2).
    public var version: JSONNumber?
    /// `type`: `slot` or `pod`, saying what each payload entry is.
    public var type: String?
    /// `payload`: the slots or pods.
    public var payload: [Item]
    /// The other members, in written order.
    public var otherMembers: [(key: String, value: JSONValue)] {
        get { self.extras.members }
        set { self.extras.members = newValue }
    }

    var extras = OrderedExtras()

    /// Creates an envelope.
    public init(version: JSONNumber? = JSONNumber(2), type: String? = "slot", payload: [Item]) {
        self.version = version
        self.type = type
        self.payload = payload
    }

    /// A slot (one ad) or a pod: its timing, identifiers and tracking events.
    public struct Item: Sendable, Hashable {
        /// `type`: `linear` for a slot (absent for a pod).
        public var type: String?
        /// `start`: seconds from the start of the interstitial.
        public var start: JSONNumber?
        /// `duration`: seconds.
        public var duration: JSONNumber?
        /// `identifiers`: what names the ad (`{"scheme", "value"}`).
        public var identifiers: [Identifier]?
        /// `tracking`: the beacons of the slot or pod.
        public var tracking: [TrackingEvent]?
        /// `slots`: a pod's slots.
        public var slots: [Item]?
        /// The other members, in written order.
        public var otherMembers: [(key: String, value: JSONValue)] {
            get { self.extras.members }
            set { self.extras.members = newValue }
        }

        var extras = OrderedExtras()

        /// Creates a slot or pod.
        public init(
            type: String? = "linear",
            start: JSONNumber? = nil,
            duration: JSONNumber? = nil,
            identifiers: [Identifier]? = nil,
            tracking: [TrackingEvent]? = nil,
            slots: [Item]? = nil
        ) {
            self.type = type
            self.start = start
            self.duration = duration
            self.identifiers = identifiers
            self.tracking = tracking
            self.slots = slots
        }
    }

    /// An identifier of an ad: a scheme (such as `adId` or an ad-ID registry) and a value.
    public struct Identifier: Sendable, Hashable {
        /// The scheme of a VAST `UniversalAdId` written as VAST 4.1 fills `[UNIVERSALADID]`
        /// (`idRegistry`, a space, the value), which a player uses for that macro.
        public static let universalAdIDScheme = "universalAdId"

        /// `scheme`.
        public var scheme: String
        /// `value`.
        public var value: String
        /// The other members, in written order.
        public var otherMembers: [(key: String, value: JSONValue)] {
            get { self.extras.members }
            set { self.extras.members = newValue }
        }

        var extras = OrderedExtras()

        /// Creates an identifier.
        public init(scheme: String, value: String) {
            self.scheme = scheme
            self.value = value
        }
    }

    /// One tracking event: its type (`impression`, `start`, `firstQuartile`, `midpoint`,
    /// `thirdQuartile`, `complete`, `clickTracking`, `creativeView`, `progress`, `skip`, `pause`,
    /// `resume`, `mute`, `unmute`, `error`, …), when it fires, and the URLs to call.
    ///
    /// An `error` event's URLs carry VAST's `[ERRORCODE]` macro for the player to fill with the
    /// VAST error code of the failure; a `progress` event has the `offset` VAST gave it.
    public struct TrackingEvent: Sendable, Hashable {
        /// `type`: the event (VAST's names).
        public var type: String
        /// `offset`: seconds from the start of the slot or pod at which it fires, when timed.
        public var offset: JSONNumber?
        /// `urls`: the beacons.
        public var urls: [String]
        /// The other members, in written order.
        public var otherMembers: [(key: String, value: JSONValue)] {
            get { self.extras.members }
            set { self.extras.members = newValue }
        }

        var extras = OrderedExtras()

        /// Creates a tracking event.
        public init(type: String, offset: JSONNumber? = nil, urls: [String]) {
            self.type = type
            self.offset = offset
            self.urls = urls
        }
    }
}

extension CreativeSignaling {
    /// Reads the signaling from its JSON value.
    ///
    /// - Parameters:
    ///   - json: The value of `X-AD-CREATIVE-SIGNALING`.
    ///   - path: Where it stands, for errors (`ASSETS[0].X-AD-CREATIVE-SIGNALING`).
    /// - Throws: ``AssetListDecodingError`` with ``AssetListDecodingError/Code/invalidCreativeSignaling``.
    public init(json: JSONValue, path: String = CreativeSignaling.key) throws {
        let members = try Self.members(json, path: path)
        var payload: [Item]?
        for (key, value) in members {
            self.extras.order.append(key)
            switch key {
            case "version" where self.version == nil:
                self.version = try Self.number(value, path: path + ".version")
            case "type" where self.type == nil:
                self.type = try Self.string(value, path: path + ".type")
            case "payload" where payload == nil:
                payload = try Self.array(value, path: path + ".payload") { try Item(json: $0, path: $1) }
            default:
                self.extras.members.append((key, value))
            }
        }
        guard let payload else { throw Self.error("the signaling has no payload array", path: path) }
        self.payload = payload
    }

    /// The signaling as a JSON object (decoded key order kept).
    public var json: JSONValue {
        self.extras.object(known: [
            ("version", self.version.map { .number($0) }),
            ("type", self.type.map { .string($0) }),
            ("payload", .array(self.payload.map(\.json))),
        ])
    }

    static func error(_ message: String, path: String) -> AssetListDecodingError {
        AssetListDecodingError(code: .invalidCreativeSignaling, message: message, path: path)
    }

    static func members(_ json: JSONValue, path: String) throws -> [(String, JSONValue)] {
        guard case .object(let members) = json else {
            throw error("must be a JSON object, not \(json.typeName)", path: path)
        }
        return members
    }

    static func number(_ value: JSONValue, path: String) throws -> JSONNumber {
        guard case .number(let number) = value else {
            throw error("must be a number, not \(value.typeName)", path: path)
        }
        return number
    }

    static func string(_ value: JSONValue, path: String) throws -> String {
        guard case .string(let text) = value else { throw error("must be a string, not \(value.typeName)", path: path) }
        return text
    }

    static func array<T>(
        _ value: JSONValue,
        path: String,
        _ element: (JSONValue, String) throws -> T
    ) throws -> [T] {
        guard case .array(let elements) = value else {
            throw error("must be an array, not \(value.typeName)", path: path)
        }
        var result: [T] = []
        for (index, item) in elements.enumerated() { result.append(try element(item, "\(path)[\(index)]")) }
        return result
    }
}

extension CreativeSignaling.Item {
    init(json: JSONValue, path: String) throws {
        typealias S = CreativeSignaling
        self.init(type: nil)
        var seen: Set<String> = []
        for (key, value) in try S.members(json, path: path) {
            self.extras.order.append(key)
            let first = seen.insert(key).inserted
            let at = path + "." + key
            switch key {
            case "type" where first: self.type = try S.string(value, path: at)
            case "start" where first: self.start = try S.number(value, path: at)
            case "duration" where first: self.duration = try S.number(value, path: at)
            case "identifiers" where first:
                self.identifiers = try S.array(value, path: at) { try CreativeSignaling.Identifier(json: $0, path: $1) }
            case "tracking" where first:
                self.tracking = try S.array(value, path: at) { try CreativeSignaling.TrackingEvent(json: $0, path: $1) }
            case "slots" where first:
                self.slots = try S.array(value, path: at) { try CreativeSignaling.Item(json: $0, path: $1) }
            default:
                self.extras.members.append((key, value))
            }
        }
    }

    /// The slot or pod as a JSON object (decoded key order kept).
    public var json: JSONValue {
        self.extras.object(known: [
            ("type", self.type.map { .string($0) }),
            ("start", self.start.map { .number($0) }),
            ("duration", self.duration.map { .number($0) }),
            ("identifiers", self.identifiers.map { .array($0.map(\.json)) }),
            ("tracking", self.tracking.map { .array($0.map(\.json)) }),
            ("slots", self.slots.map { .array($0.map(\.json)) }),
        ])
    }
}

extension CreativeSignaling.Identifier {
    init(json: JSONValue, path: String) throws {
        typealias S = CreativeSignaling
        var scheme: String?
        var value: String?
        var extras = OrderedExtras()
        for (key, member) in try S.members(json, path: path) {
            extras.order.append(key)
            switch key {
            case "scheme" where scheme == nil: scheme = try S.string(member, path: path + ".scheme")
            case "value" where value == nil: value = try S.string(member, path: path + ".value")
            default: extras.members.append((key, member))
            }
        }
        guard let scheme, let value else { throw S.error("an identifier needs a scheme and a value", path: path) }
        self.init(scheme: scheme, value: value)
        self.extras = extras
    }

    /// The identifier as a JSON object (decoded key order kept).
    public var json: JSONValue {
        self.extras.object(known: [("scheme", .string(self.scheme)), ("value", .string(self.value))])
    }
}

extension CreativeSignaling.TrackingEvent {
    init(json: JSONValue, path: String) throws {
        typealias S = CreativeSignaling
        var type: String?
        var offset: JSONNumber?
        var urls: [String]?
        var extras = OrderedExtras()
        for (key, member) in try S.members(json, path: path) {
            extras.order.append(key)
            switch key {
            case "type" where type == nil: type = try S.string(member, path: path + ".type")
            case "offset" where offset == nil: offset = try S.number(member, path: path + ".offset")
            case "urls" where urls == nil:
                urls = try S.array(member, path: path + ".urls") { try S.string($0, path: $1) }
            default: extras.members.append((key, member))
            }
        }
        guard let type, let urls else { throw S.error("a tracking event needs a type and a urls array", path: path) }
        self.init(type: type, offset: offset, urls: urls)
        self.extras = extras
    }

    /// The tracking event as a JSON object (decoded key order kept).
    public var json: JSONValue {
        self.extras.object(known: [
            ("type", .string(self.type)),
            ("offset", self.offset.map { .number($0) }),
            ("urls", .array(self.urls.map { .string($0) })),
        ])
    }
}

extension AssetList.Asset {
    /// The entry's `X-AD-CREATIVE-SIGNALING`, or `nil` when it has none.
    ///
    /// - Throws: ``AssetListDecodingError`` with ``AssetListDecodingError/Code/invalidCreativeSignaling``
    ///   when the member is there but not the SVTA2053-2 shape.
    public func creativeSignaling() throws -> CreativeSignaling? {
        guard let value = self.otherMembers.first(where: { $0.key == CreativeSignaling.key })?.value else { return nil }
        return try CreativeSignaling(json: value)
    }

    /// Sets (in place, or after the other members) or removes the entry's `X-AD-CREATIVE-SIGNALING`.
    public mutating func setCreativeSignaling(_ signaling: CreativeSignaling?) {
        var members = self.otherMembers
        if let index = members.firstIndex(where: { $0.key == CreativeSignaling.key }) {
            if let signaling { members[index].value = signaling.json } else { members.remove(at: index) }
        } else if let signaling {
            members.append((CreativeSignaling.key, signaling.json))
        }
        self.otherMembers = members
    }
}
