/// What ``BoundedFetch/get(_:inspect:)`` asks for and within which bounds.
public struct FetchRequest: Sendable {
    /// The absolute `http` or `https` URL.
    public var url: String
    /// The URL as messages show it (for example without a user, password or query that may carry
    /// secrets); `nil` shows ``url``.
    public var shownURL: String?
    /// Header fields sent, in order.
    public var headers: [(name: String, value: String)]
    /// One deadline for the whole exchange: connecting, the headers and the last byte of the body.
    ///
    /// Clamped to 1 ms … 1 hour.
    public var timeout: Duration
    /// The largest body accepted, in bytes; a `Content-Length` above it is refused before the body
    /// is read.
    public var maximumBodySize: Int
    /// Whether the body is returned (playlists, asset lists) or only counted (media segments).
    public var keepsBody: Bool
    /// The statuses answered with a response; any other is ``FetchError/Code/httpStatus``.
    ///
    /// `nil` returns every status (for callers that judge the status themselves).
    public var acceptedStatuses: Range<Int>?
    /// The hosts an ``OutboundPolicy`` trusts for this request as named.
    ///
    /// `host` or `host:port` entries (an inventory creative's URL, which the operator
    /// configured); empty by default. Ignored without a policy.
    public var trustedHosts: Set<String> = []
    /// Whether a redirect may lead only to the first URL's own `host:port` or a host the policy
    /// names (``OutboundPolicy/allowedHosts``, ``trustedHosts``): `false` by default.
    ///
    /// A fetch of a
    /// file the server then works on (a creative to condition) sets it, so that a redirect cannot
    /// send the server off the hosts it was configured with or given. Ignored without a policy.
    public var keepsRedirectsOnConfiguredHosts = false

    /// Creates a request; by default it keeps the body and accepts only `2xx` statuses.
    public init(
        url: String,
        shownURL: String? = nil,
        headers: [(name: String, value: String)] = [],
        timeout: Duration,
        maximumBodySize: Int,
        keepsBody: Bool = true,
        acceptedStatuses: Range<Int>? = 200..<300
    ) {
        self.url = url
        self.shownURL = shownURL
        self.headers = headers
        self.timeout = timeout
        self.maximumBodySize = maximumBodySize
        self.keepsBody = keepsBody
        self.acceptedStatuses = acceptedStatuses
    }

    /// The shortest deadline (1 ms).
    public static let minimumTimeout = Duration.milliseconds(1)
    /// The longest deadline (1 hour).
    public static let maximumTimeout = Duration.seconds(3600)

    /// `timeout` within ``minimumTimeout`` … ``maximumTimeout``.
    public static func clamp(_ timeout: Duration) -> Duration {
        min(max(timeout, minimumTimeout), maximumTimeout)
    }
}

/// What ``BoundedFetch/get(_:inspect:)`` answers.
public struct FetchResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The header fields, in order.
    public var headers: [(name: String, value: String)]
    /// The body, when the request keeps it; empty otherwise.
    public var body: [UInt8]
    /// The number of body bytes received.
    public var byteCount: Int
    /// How long the exchange took.
    public var elapsed: Duration

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8], byteCount: Int, elapsed: Duration)
    {
        self.status = status
        self.headers = headers
        self.body = body
        self.byteCount = byteCount
        self.elapsed = elapsed
    }
}

/// Why a fetch failed: a code, a sentence a person reads (`cannot connect to 127.0.0.1:1:
/// connection refused`, `no answer from … within 5 s`), and the URL it concerns (as shown).
public struct FetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's name.
        public let description: String
        private init(_ description: String) {
            self.description = description
        }

        /// The URL is not an http(s) URL the client can request.
        public static let invalidURL = Code("invalidURL")
        /// The status is not one the request accepts (``FetchError/status`` holds it).
        public static let httpStatus = Code("httpStatus")
        /// The deadline passed before the last byte.
        public static let timeout = Code("timeout")
        /// The body is larger than the request allows.
        public static let bodyTooLarge = Code("bodyTooLarge")
        /// The body was refused by the caller's inspection (for example: not a playlist).
        public static let refused = Code("refused")
        /// Connecting or the exchange failed (refused, reset, DNS, TLS, …).
        public static let transport = Code("transport")
        /// The task was cancelled.
        public static let cancelled = Code("cancelled")
        /// The ``OutboundPolicy`` refused the destination (a private, loopback, link-local, …
        /// address, or a host that is not a plain name), or a redirect led to one.
        public static let forbiddenDestination = Code("forbiddenDestination")
    }

    /// What kind of failure.
    public var code: Code
    /// One line, without a trailing period, saying what went wrong.
    public var message: String
    /// Where: the URL requested (as shown).
    public var url: String
    /// The HTTP status, when one was received.
    public var status: Int?

    /// Creates an error.
    public init(code: Code, message: String, url: String, status: Int? = nil) {
        self.code = code
        self.message = message
        self.url = url
        self.status = status
    }

    /// The message.
    public var description: String { self.message }
}
