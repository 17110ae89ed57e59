import AsyncHTTPClient
import HLSPlaylist
import HTTPFetch

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
        /// A scheduled-date-range JSON document (Appendix H).
        public static let schedule = Kind("schedule")
        /// A tracking beacon (SVTA2053-2 `X-AD-CREATIVE-SIGNALING`).
        public static let beacon = Kind("beacon")
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
    public init(
        url: String,
        kind: Kind,
        byteRange: ByteRange? = nil,
        timeout: Duration,
        maximumBodySize: Int,
        keepsBody: Bool
    ) {
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

/// A loader on HTTPFetch's `BoundedFetch`: per-request deadlines, `Range` headers for byte ranges,
/// bounded bodies, and the `X-PLAYBACK-SESSION-ID` header on every request.
public struct HTTPResourceLoader: ResourceLoader {
    /// The client requests go through.
    public let client: HTTPClient
    /// The `User-Agent` sent.
    public var userAgent: String

    /// The client of loaders made without one: like `HTTPClient.shared`, but a refused connection
    /// fails at once (`HTTPClient.shared` tries again until the connect deadline, so a player
    /// pointed at a closed port said "timeout" after 15 s instead of "connection refused").
    public static let sharedClient: HTTPClient = BoundedFetch.makeClient()

    /// Creates a loader.
    ///
    /// - Parameters:
    ///   - client: The HTTP client; ``sharedClient`` by default.
    ///   - userAgent: The `User-Agent` header of every request.
    public init(client: HTTPClient = HTTPResourceLoader.sharedClient, userAgent: String = "intermission-player/0.1") {
        self.client = client
        self.userAgent = userAgent
    }

    /// Loads one resource over HTTP; every status is answered (the player judges it).
    public func load(_ request: LoadRequest, sessionID: String) async -> Result<LoadResponse, PlaybackError> {
        guard request.url.hasPrefix("http://") || request.url.hasPrefix("https://") else {
            return .failure(
                PlaybackError(code: .invalidURL, message: "only http and https URLs can be loaded", url: request.url)
            )
        }
        var headers = [(name: "User-Agent", value: self.userAgent), (name: "X-PLAYBACK-SESSION-ID", value: sessionID)]
        if let range = request.byteRange { headers.append((name: "Range", value: range.rangeField)) }
        let fetch = FetchRequest(
            url: request.url,
            headers: headers,
            timeout: request.timeout,
            maximumBodySize: request.maximumBodySize,
            keepsBody: request.keepsBody,
            acceptedStatuses: nil
        )
        do {
            let response = try await BoundedFetch(client: self.client).get(fetch)
            return .success(
                LoadResponse(
                    status: response.status,
                    body: response.body,
                    byteCount: response.byteCount,
                    elapsed: response.elapsed
                )
            )
        } catch {
            return .failure(Self.playbackError(error, request: request))
        }
    }

    /// A fetch failure as the player's error, with the player's code and wording.
    static func playbackError(_ error: FetchError, request: LoadRequest) -> PlaybackError {
        let code: PlaybackError.Code
        var message = error.message
        switch error.code {
        case .timeout: code = .timeout
        case .cancelled:
            code = .cancelled
            message = "the request was cancelled"
        case .bodyTooLarge:
            code = .bodyTooLarge
            message = "the body is larger than \(request.maximumBodySize) bytes"
        case .invalidURL: code = .invalidURL
        case .httpStatus: code = .httpStatus
        default: code = .transport
        }
        return PlaybackError(code: code, message: message, url: request.url, status: error.status)
    }
}

extension ByteRange {
    /// The `Range` field asking for these bytes (`bytes=FIRST-LAST`; from 0 without an offset).
    ///
    /// A range reaching past `Int.max` asks up to `Int.max` (the server answers what it has).
    /// `package`: `KeepAliveLoader` (ViewerLoadSupport) asks with the same field.
    package var rangeField: String {
        let first = max(0, self.offset ?? 0)
        let (end, overflow) = first.addingReportingOverflow(max(1, self.length) - 1)
        return "bytes=\(first)-\(overflow ? Int.max : end)"
    }
}
