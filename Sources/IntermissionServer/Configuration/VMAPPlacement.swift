import AdInsertion
import HLSInterstitials
import HLSPlaylist
import IntermissionStore

/// Where a VOD asset's break positions come from: a VMAP 1.0 document (`vod[].vmap` in the
/// configuration file).
///
/// The server fetches it once at start, within ``timeout`` and at most ``maximumBytes``, and adds
/// one break per usable `AdBreak` to the asset: `start` a pre-roll, `end` (or `100%`) a post-roll, a
/// time or a percentage of the primary's duration a mid-roll (times past the end, ordinals `#n` and
/// unreadable offsets are left out). Each break lasts ``breakDuration``; its ads come from the
/// asset's `adServer` or the local inventory, not from the VMAP's own ad sources.
public struct VMAPSource: Sendable, Hashable {
    /// The `http(s)` URL of the VMAP document.
    public var url: String
    /// The pod length of every break it places.
    public var breakDuration: MediaTime
    /// How long the VMAP server has to answer, the whole exchange.
    public var timeout: Duration

    /// The largest VMAP document accepted.
    public static let maximumBytes = 1 << 20

    /// Creates a source.
    public init(url: String, breakDuration: MediaTime = MediaTime(seconds: 30), timeout: Duration = .seconds(5)) {
        self.url = url
        self.breakDuration = breakDuration
        self.timeout = timeout
    }
}

/// Places the breaks of VOD assets that name a VMAP document (see ``VMAPSource``).
enum VMAPPlacement {
    /// `configuration` with the breaks of every ``ServerConfiguration/vmapSources`` entry added to
    /// its asset.
    ///
    /// - Throws: ``ConfigurationError`` naming the asset and the URL when a document cannot be
    ///   fetched, is not VMAP, places no break, or gives a break an ID the asset already has.
    static func place(_ configuration: ServerConfiguration) async throws -> ServerConfiguration {
        var result = configuration
        for (index, asset) in configuration.adInsertion.assets.enumerated() {
            guard let source = configuration.vmapSources[asset.id] else { continue }
            let vmap = OriginClient(
                mounts: [:],
                httpClient: OriginClient.originHTTPClient,
                maximumBytes: VMAPSource.maximumBytes,
                timeout: source.timeout
            )
            let primary = OriginClient(
                mounts: configuration.mounts,
                httpClient: OriginClient.originHTTPClient,
                maximumBytes: configuration.maximumUpstreamBytes,
                timeout: configuration.upstreamTimeout
            )
            let placed = try await Self.breaks(of: asset, from: source, vmap: vmap, primary: primary)
            result.adInsertion.assets[index].breaks += placed
        }
        return result
    }

    /// The breaks a VMAP document places on `asset`.
    ///
    /// - Parameters:
    ///   - asset: The VOD asset the breaks go on.
    ///   - source: Where its VMAP document is and how long to wait for it.
    ///   - vmap: Reads the document (bounded by the source's timeout and ``VMAPSource/maximumBytes``).
    ///   - primary: Reads the asset's primary, whose duration places percentages.
    static func breaks(
        of asset: VODAsset,
        from source: VMAPSource,
        vmap: OriginClient,
        primary: OriginClient
    ) async throws -> [VODBreak] {
        let shown = URLRedaction.redact(source.url)
        func failure(_ why: String) -> ConfigurationError {
            ConfigurationError(key: "vmap", message: "vod '\(asset.id)': the VMAP document at \(shown) \(why)")
        }
        guard source.url.lowercased().hasPrefix("http://") || source.url.lowercased().hasPrefix("https://") else {
            throw failure("is not an http(s) URL")
        }
        let bytes: [UInt8]
        do {
            bytes = try await vmap.bytes(at: source.url)
        } catch let error as AdInsertionError {
            throw failure("could not be read: \(error.message)")
        }
        let document: VMAPDocument
        do {
            document = try VMAPDecoder.decode(bytes).0
        } catch {
            throw failure("is not VMAP: \(error.message) (line \(error.line))")
        }
        let duration = try await Self.primaryDuration(of: asset, origin: primary)
        let taken = Set(asset.breaks.map(\.id))
        var breaks: [VODBreak] = []
        for (k, placed) in document.vodPositions(presentationDuration: duration).enumerated() {
            let id = OriginPath.isSafeName(placed.id) && placed.id.utf8.count <= 64 ? placed.id : "vmap-\(k)"
            guard !taken.contains(id), !breaks.contains(where: { $0.id == id }) else {
                throw failure("places a break '\(id)' the asset already has")
            }
            breaks.append(VODBreak(id: id, position: placed.position, duration: source.breakDuration))
        }
        guard !breaks.isEmpty else {
            throw failure("places no break (no AdBreak has a start, end, time or percentage offset within the primary)")
        }
        return breaks
    }

    /// The duration of the asset's primary: its media playlist's, or its first variant's.
    static func primaryDuration(of asset: VODAsset, origin: OriginClient) async throws -> MediaTime {
        let url = asset.playlistURL
        do {
            switch try await origin.playlist(at: url) {
            case .media(let media):
                return media.duration
            case .multivariant(let multivariant):
                guard let variant = multivariant.variants.first else {
                    throw ConfigurationError(
                        key: "vmap",
                        message:
                            "vod '\(asset.id)': \(URLRedaction.redact(url)) lists no variant to place VMAP breaks on"
                    )
                }
                guard
                    case .media(let media) = try await origin.playlist(
                        at: URIReference.resolve(variant.uri, against: url)
                    )
                else {
                    throw ConfigurationError(
                        key: "vmap",
                        message:
                            "vod '\(asset.id)': the first variant of \(URLRedaction.redact(url)) is not a media playlist"
                    )
                }
                return media.duration
            }
        } catch let error as AdInsertionError {
            throw ConfigurationError(
                key: "vmap",
                message: "vod '\(asset.id)': the primary is needed to place VMAP breaks: \(error.message)"
            )
        }
    }
}
