import AsyncHTTPClient
import HLSPlaylist
import HTTPFetch
import NIOCore
import NIOHTTP1

/// What the player asks a loader for.
public struct LoadRequest: Sendable, Hashable {
    /// The kind of resource, which sets the timeout and the body limit.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The spelling used in the event log.
        public let description: String
        private init(_ description: String) {
            self.description = description
        }
        /// A multivariant playlist.
        public static let multivariantPlaylist = Kind("multivariantPlaylist")
        /// A media playlist (first load or reload).
        public static let mediaPlaylist = Kind("mediaPlaylist")
        /// A media segment.
        public static let segment = Kind("segment")
        /// A media initialization section (`EXT-X-MAP`).
        public static let initializationSection = Kind("map")
        /// An `X-ASSET-LIST` JSON document.
        public static let assetList = Kind("assetList")
        /// Whether the request is an interstitial request (asset list or asset playlist).
        var isPlaylist: Bool { self == .multivariantPlaylist || self == .mediaPlaylist }
    }

    /// The absolute URL.
    public var url: String
    /// The kind of resource.
    public var kind: Kind
    /// The bytes to ask for (`Range` header), when the resource is a sub-range.
    public var byteRange: ByteRange?
    /// How long the request may take, in real time.
    public var timeout: Duration
    /// The largest body accepted.
    public var maximumBodySize: Int
    /// Whether the body is returned (playlists, asset lists) or only counted (segments).
    public var keepsBody: Bool

    /// Creates a request.
    public init(url: String, kind: Kind, byteRange: ByteRange? = nil, timeout: Duration, maximumBodySize: Int, keepsBody: Bool) {
        self.url = url
        self.kind = kind
        self.byteRange = byteRange
        self.timeout = timeout
        self.maximumBodySize = maximumBodySize
        self.keepsBody = keepsBody
    }
}

/// What a loader answers.
public struct LoadResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The body, when the request keeps it.
    public var body: [UInt8]
    /// The number of body bytes received.
    public var byteCount: Int
    /// How long the request took in real time (for the bandwidth estimate).
    public var elapsed: Duration

    /// Creates a response.
    public init(status: Int, body: [UInt8], byteCount: Int, elapsed: Duration) {
        self.status = status
        self.body = body
        self.byteCount = byteCount
        self.elapsed = elapsed
    }
}

/// Loads resources for a player.
///
/// ``HTTPResourceLoader`` is the real one; tests may supply others.
public protocol ResourceLoader: Sendable {
    /// Loads one resource.
    ///
    /// - Parameters:
    ///   - request: What to load.
    ///   - sessionID: The playback session's ID, sent as `X-PLAYBACK-SESSION-ID`.
    /// - Returns: The response (any status), or the error that kept it from completing.
    func load(_ request: LoadRequest, sessionID: String) async -> Result<LoadResponse, PlaybackError>
}

/// A loader on AsyncHTTPClient: per-request timeouts, `Range` headers for byte ranges, bounded
/// bodies, and the `X-PLAYBACK-SESSION-ID` header on every request.
public struct HTTPResourceLoader: ResourceLoader {
    /// The client requests go through.
    public let client: HTTPClient
    /// The `User-Agent` sent.
    public var userAgent: String

    /// Creates a loader.
    ///
    /// - Parameters:
    ///   - client: The HTTP client; `HTTPClient.shared` by default.
    ///   - userAgent: The `User-Agent` header of every request.
    public init(client: HTTPClient = .shared, userAgent: String = "intermission-player/0.1") {
        self.client = client
        self.userAgent = userAgent
    }

    /// Loads one resource over HTTP.
    public func load(_ request: LoadRequest, sessionID: String) async -> Result<LoadResponse, PlaybackError> {
        guard request.url.hasPrefix("http://") || request.url.hasPrefix("https://") else {
            return .failure(PlaybackError(code: .invalidURL, message: "only http and https URLs can be loaded", url: request.url))
        }
        var http = HTTPClientRequest(url: request.url)
        http.headers.add(name: "User-Agent", value: self.userAgent)
        http.headers.add(name: "X-PLAYBACK-SESSION-ID", value: sessionID)
        if let range = request.byteRange {
            let first = range.offset ?? 0
            http.headers.add(name: "Range", value: "bytes=\(first)-\(first + range.length - 1)")
        }
        let started = ContinuousClock.now
        let timeout = TimeAmount(request.timeout)
        do {
            let response = try await self.client.execute(http, timeout: timeout)
            var body: [UInt8] = []
            var count = 0
            for try await buffer in response.body {
                count += buffer.readableBytes
                if count > request.maximumBodySize {
                    return .failure(
                        PlaybackError(
                            code: .bodyTooLarge,
                            message: "the body is larger than \(request.maximumBodySize) bytes",
                            url: request.url
                        )
                    )
                }
                if request.keepsBody { body.append(contentsOf: buffer.readableBytesView) }
            }
            return .success(
                LoadResponse(status: Int(response.status.code), body: body, byteCount: count, elapsed: ContinuousClock.now - started)
            )
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            let message = NetworkErrorText.describe(error, url: request.url, timeout: request.timeout.secondsValue)
            return .failure(PlaybackError(code: .timeout, message: message, url: request.url))
        } catch is CancellationError {
            return .failure(PlaybackError(code: .cancelled, message: "the request was cancelled", url: request.url))
        } catch {
            let message = NetworkErrorText.describe(error, url: request.url, timeout: request.timeout.secondsValue)
            return .failure(PlaybackError(code: .transport, message: message, url: request.url))
        }
    }
}
