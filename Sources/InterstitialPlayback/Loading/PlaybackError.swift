/// An error of the player: a request that failed, a resource that could not be used.
///
/// Errors carry a ``code`` to compare against (codes can be added without breaking callers), a
/// one-line ``message``, and the URL involved when there is one.
public struct PlaybackError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a comparable value.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case httpStatus, timeout, bodyTooLarge, transport, invalidPlaylist, invalidAssetList, invalidSchedule
            case noPlayableVariant, cancelled, invalidURL, stalled, noItem
        }
        private let base: Base
        private init(_ base: Base) {
            self.base = base
        }
        /// The server answered with a status outside 200–299.
        public static let httpStatus = Code(.httpStatus)
        /// The request did not complete within its timeout.
        public static let timeout = Code(.timeout)
        /// The response body was larger than the limit for its kind of resource.
        public static let bodyTooLarge = Code(.bodyTooLarge)
        /// The connection failed (refused, reset, DNS, TLS).
        public static let transport = Code(.transport)
        /// The response is not a usable playlist of the expected kind.
        public static let invalidPlaylist = Code(.invalidPlaylist)
        /// The response is not a usable asset list (Appendix D.3).
        public static let invalidAssetList = Code(.invalidAssetList)
        /// The response is not a readable scheduled-date-range document (Appendix H).
        public static let invalidSchedule = Code(.invalidSchedule)
        /// A multivariant playlist without a variant the player can use.
        public static let noPlayableVariant = Code(.noPlayableVariant)
        /// The request was abandoned because playback moved on.
        public static let cancelled = Code(.cancelled)
        /// The URL cannot be requested (not http or https).
        public static let invalidURL = Code(.invalidURL)
        /// Playback could not go on: it stalled for longer than ``Player/Configuration/stallTimeout``,
        /// or it waits for media no load will bring.
        public static let stalled = Code(.stalled)
        /// There is no item to play.
        public static let noItem = Code(.noItem)
        /// The code's name, such as `httpStatus`; safe as a metrics label.
        public var description: String { self.base.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// One line saying what happened.
    public var message: String
    /// The URL of the request or resource, when there is one.
    public var url: String?
    /// The HTTP status, for ``Code/httpStatus``.
    public var status: Int?

    /// Creates an error.
    public init(code: Code, message: String, url: String? = nil, status: Int? = nil) {
        self.code = code
        self.message = message
        self.url = url
        self.status = status
    }

    /// `code: message (url)`.
    public var description: String {
        var text = "\(self.code): \(self.message)"
        if let url = self.url { text += " (\(url))" }
        return text
    }
}
