import HLSInterstitials
import HLSPlaylist

/// Makes the URIs of an upstream live playlist absolute, resolving each URI once while it stays in
/// the window.
///
/// A live playlist read again differs from the last read by a few segments at its end (and a few
/// gone from its start), so a decorator that is kept from one read to the next only resolves the
/// new URIs: the others are looked up in what the last read resolved. The resolved URIs of a read
/// are kept until the next read, and only those the next read still holds are kept after it, so the
/// memory follows the window.
///
/// Keyed by the URI text (not by media sequence number): resolving is a function of the URI and the
/// playlist URL alone, so an upstream that renumbers or rewrites its window still gets exactly what
/// a fresh resolution gives.
public struct SegmentURIResolver: Sendable {
    /// The playlist's URL, the base every URI is resolved against.
    public let playlistURL: String
    private let plainBase: String?
    /// ``plainBase``'s bytes (empty without one).
    private let plainBaseBytes: [UInt8]
    /// Whether resolutions are kept for the next read (a resolver used once keeps nothing).
    private let remembering: Bool
    private var known: [String: String] = [:]
    private var lastSeen = 0
    /// How many URIs were resolved since the resolver was made (the others were known already): a
    /// count for tests and metrics.
    public private(set) var resolutions = 0

    /// A resolver for the playlist at `playlistURL`, knowing no URI yet.
    public init(playlistURL: String) {
        self.init(playlistURL: playlistURL, remembering: true)
    }

    /// A resolver that keeps its resolutions for the next read, or one used once that does not.
    init(playlistURL: String, remembering: Bool) {
        self.playlistURL = playlistURL
        self.plainBase = PlainRelativeURI.base(of: playlistURL)
        self.plainBaseBytes = Array((self.plainBase ?? "").utf8)
        self.remembering = remembering
    }

    /// `uri` made absolute, as `URIReference.resolve(_:against:)` would against ``playlistURL``
    /// (with the fast path of ``PlainRelativeURI`` for plain relative paths).
    public func resolve(_ uri: String) -> String {
        Self.resolve(uri, plainBase: self.plainBase, playlistURL: self.playlistURL)
    }

    private static func resolve(_ uri: String, plainBase: String?, playlistURL: String) -> String {
        if let plainBase, PlainRelativeURI.isPlain(uri) { return plainBase + uri }
        return URIReference.resolve(uri, against: playlistURL)
    }

    /// Rewrites every URI of `playlist` (segments, keys, maps, parts, hints, reports) made absolute,
    /// resolving only those the resolver has not seen.
    ///
    /// URIs that left the window are forgotten once the resolver holds more than twice as many as
    /// the last call rewrote (then this call keeps only its own): lookups alone on the usual call.
    public mutating func rewrite(_ playlist: inout MediaPlaylist) {
        guard self.remembering else {
            self.rewriteOnce(&playlist)
            return
        }
        let pruning = self.known.count > 2 * self.lastSeen + 64
        var kept: [String: String] = [:]
        var seen = 0
        var resolved = 0
        var known = self.known
        let (plainBase, playlistURL) = (self.plainBase, self.playlistURL)
        self.known = [:]  // one owner while it is edited below
        playlist.rewriteURIs { uri in
            seen += 1
            let absolute: String
            if let found = known[uri] {
                absolute = found
            } else {
                absolute = Self.resolve(uri, plainBase: plainBase, playlistURL: playlistURL)
                resolved += 1
                known[uri] = absolute
            }
            if pruning { kept[uri] = absolute }
            return absolute
        }
        self.known = pruning ? kept : known
        self.lastSeen = seen
        self.resolutions += resolved
    }

    /// The rewrite of a resolver used once: every URI resolved, plain relative ones on their bytes
    /// (the base's bytes then the URI's, no `String` made), nothing remembered.
    private mutating func rewriteOnce(_ playlist: inout MediaPlaylist) {
        var resolved = 0
        let (plainBase, plainBaseBytes, playlistURL) = (self.plainBase, self.plainBaseBytes, self.playlistURL)
        playlist.rewriteURIBytes { uri, output in
            resolved += 1
            if plainBase != nil, PlainRelativeURI.isPlain(uri) {
                output.append(contentsOf: plainBaseBytes)
                output.append(contentsOf: uri)
            } else {
                let absolute = URIReference.resolve(String(decoding: uri, as: UTF8.self), against: playlistURL)
                output.append(contentsOf: absolute.utf8)
            }
            return true
        }
        self.resolutions += resolved
    }

    /// How many URIs are remembered (for tests: it follows the window).
    public var rememberedCount: Int { self.known.count }
}
