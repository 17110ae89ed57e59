import AdInsertion
import Foundation
import HLSPlaylist
import Hummingbird
import IntermissionHTTP
import Logging
import NIOCore

/// A live break as the admin API shows it.
struct BreakView: Codable, Sendable {
    var id: String
    var channel: String
    var startDate: String
    var duration: Double
    var cue: [String]
    var restrictions: [String]
    var snap: [String]
    var resumeOffset: Double?
    var playoutLimit: Double?
    var cancelled: Bool
    var origin: String

    init(_ b: LiveBreak) {
        self.id = b.id
        self.channel = b.channel
        self.startDate = b.startDate.iso8601
        self.duration = b.duration.seconds
        self.cue = b.cue
        self.restrictions = b.restrictions
        self.snap = b.snap
        self.resumeOffset = b.resumeOffset?.seconds
        self.playoutLimit = b.playoutLimit?.seconds
        self.cancelled = b.cancelled
        self.origin = b.origin.rawValue
    }
}

/// `POST /v1/admin/channels/{channel}/breaks`.
struct NewBreakRequest: Decodable {
    /// The ID; `admin-{milliseconds}` when absent.
    var id: String?
    /// `"now"` (the default) or an ISO 8601 date.
    var start: String?
    /// Seconds from now, instead of `start`.
    var startIn: Double?
    var duration: Double
    var cue: [String]?
    var restrictions: [String]?
    var snap: [String]?
    var resumeOffset: Double?
}

/// `POST /v1/admin/channels/{channel}/breaks/{id}/early-return` (the body may be left out).
struct EarlyReturnRequest: OptionalJSONBody {
    /// When the break ends: an ISO 8601 date (default: now).
    var at: String?
    /// Or: how long after its start.
    var after: Double?

    /// No body: the break ends now.
    static var whenEmpty: EarlyReturnRequest { EarlyReturnRequest() }
}

/// A creative as the admin API shows and takes it.
struct CreativeView: Codable, Sendable {
    var id: String
    var uri: String
    var duration: Double
    var value: Double
    /// The presentations it may play in (`vod-{asset}`, `live-{channel}`); absent: any.
    var scopes: [String]?
    /// Why the duration shown is not the one configured or sent (its media say otherwise), or why
    /// the media's duration could not be read (a `POST` answer).
    var warning: String?

    init(_ c: Creative) {
        self.id = c.id
        self.uri = c.uri
        self.duration = c.duration.seconds
        self.value = c.value
        self.scopes = c.scopes.map { $0.sorted() }
    }

    /// The `scopes` of a creative checked: each a presentation's scope (`vod-{asset}`,
    /// `live-{channel}`, as the asset-list URLs spell them), at most 10,000.
    static func scopes(_ scopes: [String]?, field: String) throws -> Set<String>? {
        try InputLimits.idSet(scopes, field: field, noun: "scopes") { text, field in
            // A scope is `vod-` or `live-` and an ID of at most 64 bytes: anything longer is refused
            // before it is parsed.
            guard text.utf8.count <= 69, let scope = AdScope(rawValue: text) else {
                throw InputLimitError(
                    field: field,
                    message: "must be vod-{asset} or live-{channel}, got \(InputLimits.quoted(text))"
                )
            }
            _ = try InputLimits.id(scope.name, field: field)
            return text
        }
    }
}

/// The inventory, changeable through the admin API.
///
/// A configured creative whose media were read (``CreativeDurations``) takes its media's duration in
/// place of the configured one; a creative added through the admin API is stored with its media's
/// duration already.
actor InventoryRegistry {
    /// The configured inventory, before any change.
    private let configured: [Creative]
    /// The inventory as configured and changed, with configured durations.
    private var declared: [Creative]
    /// The configured creatives' URIs, by ID: a media duration applies while a creative keeps its.
    private let configuredURIs: [String: String]
    /// Media durations read from the configured creatives' playlists, by creative ID.
    private var mediaDurations: [String: MediaTime] = [:]
    /// Why a configured duration was replaced (more than a frame from the media's), by creative ID:
    /// shown with the creative by `GET /v1/admin/inventory`, as the start-up log says it.
    private var durationWarnings: [String: String] = [:]
    private(set) var creatives: [Creative]
    private(set) var decider: AdDecider

    init(_ creatives: [Creative]) {
        self.configured = creatives
        self.configuredURIs = Dictionary(creatives.map { ($0.id, $0.uri) }, uniquingKeysWith: { first, _ in first })
        self.declared = creatives
        self.creatives = creatives
        self.decider = AdDecider(inventory: creatives)
    }

    /// Makes the inventory the configured one with every change of a shared store applied, in
    /// order (another instance changed it).
    func replay(_ changes: [InventoryChange]) {
        self.update(InventoryChange.apply(changes, to: self.configured))
    }

    /// Applies the changes the store kept from earlier runs.
    func apply(_ changes: [InventoryChange]) {
        self.update(InventoryChange.apply(changes, to: self.declared))
    }

    func upsert(_ creative: Creative) {
        var creatives = self.declared
        creatives.removeAll { $0.id == creative.id }
        creatives.append(creative)
        // The admin API stores the duration it wants; a measurement of the configured creative no
        // longer applies.
        self.mediaDurations[creative.id] = nil
        self.update(creatives)
    }

    func remove(_ id: String) -> Bool {
        let before = self.declared.count
        var creatives = self.declared
        creatives.removeAll { $0.id == id }
        self.update(creatives)
        return self.declared.count != before
    }

    /// Uses `duration`, read from the media of the configured creative `id` at `uri`, in place of
    /// its configured duration (while the creative still has that URI).
    ///
    /// `warning` says why, when the configured duration was more than a frame off.
    func useMediaDuration(_ duration: MediaTime, of id: String, at uri: String, warning: String? = nil) {
        guard self.configuredURIs[id] == uri else { return }
        self.mediaDurations[id] = duration
        self.durationWarnings[id] = warning
        self.update(self.declared)
    }

    /// The creatives as the admin API shows them, each with the warning its media duration gave.
    func views() -> [CreativeView] {
        self.creatives.map { creative in
            var view = CreativeView(creative)
            if self.configuredURIs[creative.id] == creative.uri, self.mediaDurations[creative.id] != nil {
                view.warning = self.durationWarnings[creative.id]
            }
            return view
        }
    }

    private func update(_ declared: [Creative]) {
        self.declared = declared
        self.creatives = declared.map { creative in
            guard let duration = self.mediaDurations[creative.id], self.configuredURIs[creative.id] == creative.uri
            else {
                return creative
            }
            var measured = creative
            measured.duration = duration
            return measured
        }
        self.decider = AdDecider(inventory: self.creatives)
    }
}

/// JSON answers of the admin API (bodies are decoded with `request.decode(as:context:)`, see
/// `JSONBodyDecoder`).
enum AdminJSON {
    static func response<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(value)
        return .bytes(
            [UInt8](data),
            contentType: "application/json; charset=utf-8",
            cacheControl: "no-store",
            status: status
        )
    }
}
