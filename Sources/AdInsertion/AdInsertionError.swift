/// An error of the ad-insertion layer: a code that callers switch on, and a message for people.
///
/// The server maps codes to HTTP statuses (``Code/notFound`` to 404, ``Code/invalidInput`` to 400,
/// ``Code/upstream`` to 502, ``Code/conflict`` to 409).
public struct AdInsertionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a value that can be compared.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case notFound, invalidInput, upstream, conflict, storage
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// An unknown channel, asset, break or playlist.
        public static let notFound = Code(.notFound)
        /// Input that cannot be used (a malformed query, a bad break, a playlist the operation cannot handle).
        public static let invalidInput = Code(.invalidInput)
        /// An origin or upstream playlist that is unreachable, too large, or not a playlist.
        public static let upstream = Code(.upstream)
        /// A request that contradicts the current state (for example, an early return before the break starts).
        public static let conflict = Code(.conflict)
        /// The storage failed.
        public static let storage = Code(.storage)

        /// The code's name (`notFound`, `invalidInput`, `upstream`, `conflict`, `storage`).
        public var description: String { self.base.rawValue }
    }

    /// The code.
    public var code: Code
    /// What went wrong, in one sentence.
    public var message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(self.code): \(self.message)" }
}
