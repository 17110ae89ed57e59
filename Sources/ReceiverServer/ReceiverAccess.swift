import Foundation
import Hummingbird
import IntermissionHTTP
import Synchronization

/// Who may talk to a receiver: the senders paired with its token, through a `Host` it answers to,
/// from no other web origin than its own.
///
/// A receiver plays what it is handed, so a web page in a browser on the same machine or network
/// must not be able to drive it (a "simple" cross-site `POST` handing it an intranet URL) or read
/// its state through DNS rebinding. Every request is checked, in this order:
///
/// 1. `Host` names the receiver: its bound address, `localhost`, a loopback address, any IP
///    address when it listens on every interface (`0.0.0.0` or `::`), or one of
///    ``allowedHosts``; with a port, the port it listens on. Otherwise `421` (`misdirected`).
/// 2. An `Origin` header, when there is one, is the receiver's own (`http://` and the `Host`
///    value). Otherwise `403` (`foreignOrigin`).
/// 3. `Authorization: Bearer TOKEN` carries ``token`` (compared in constant time), on every
///    route but `/health`. Otherwise `401` (`unauthorized`).
/// 4. A `POST` says `Content-Type: application/json`. Otherwise `415` (`unsupportedMediaType`).
public struct ReceiverAccess: Sendable {
    /// The token senders present (`Authorization: Bearer TOKEN`).
    public var token: String
    /// Host names besides the receiver's own address and `localhost` that `Host` may name.
    ///
    /// Compared without case; none by default; at most ``maximumAllowedHosts``.
    public var allowedHosts: [String]

    /// The environment variable `intermission receiver` and `intermission cast` read the token
    /// from when it is not given with `--token`.
    public static let tokenEnvironmentVariable = "INTERMISSION_RECEIVER_TOKEN"
    /// The shortest token accepted (16 characters).
    public static let minimumTokenLength = 16
    /// The longest token accepted (256 characters).
    public static let maximumTokenLength = 256
    /// The most names ``allowedHosts`` may hold (64).
    public static let maximumAllowedHosts = 64
    /// The longest host name (253 characters, as DNS allows).
    public static let maximumHostLength = 253

    /// Creates the access rules of a receiver.
    ///
    /// - Parameters:
    ///   - token: The senders' token; see ``tokenProblem(_:)``.
    ///   - allowedHosts: Further names `Host` may carry; see ``hostProblem(_:)``.
    /// - Throws: ``ReceiverAccessError`` when the token or a name is out of range.
    public init(token: String, allowedHosts: [String] = []) throws(ReceiverAccessError) {
        if let problem = Self.tokenProblem(token) { throw ReceiverAccessError(message: problem, field: "token") }
        guard allowedHosts.count <= Self.maximumAllowedHosts else {
            throw ReceiverAccessError(
                message: "at most \(Self.maximumAllowedHosts) allowed hosts, not \(allowedHosts.count)",
                field: "allowedHosts"
            )
        }
        for name in allowedHosts {
            if let problem = Self.hostProblem(name) {
                throw ReceiverAccessError(message: problem, field: "allowedHosts")
            }
        }
        self.token = token
        self.allowedHosts = allowedHosts.map { $0.lowercased() }
    }

    /// A fresh random token: 128 bits from the system's generator, as 32 hexadecimal digits.
    public static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Why `token` cannot be a receiver token (`nil` when it can): it takes
    /// ``minimumTokenLength`` to ``maximumTokenLength`` visible ASCII characters (no spaces).
    public static func tokenProblem(_ token: String) -> String? {
        let bytes = token.utf8
        guard bytes.count >= Self.minimumTokenLength, bytes.count <= Self.maximumTokenLength,
            bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else {
            return "the token takes \(Self.minimumTokenLength) to \(Self.maximumTokenLength) visible ASCII characters"
        }
        return nil
    }

    /// Why `name` cannot be an allowed host (`nil` when it can): a DNS name or an IP address of
    /// at most ``maximumHostLength`` characters (letters, digits, `-`, `.`, `:`), without a port.
    public static func hostProblem(_ name: String) -> String? {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= Self.maximumHostLength,
            bytes.allSatisfy({ Self.isHostByte($0) || $0 == UInt8(ascii: ":") })
        else {
            return
                "'\(name.prefix(40))' is not a host name (letters, digits, '-', '.', up to \(Self.maximumHostLength))"
        }
        return nil
    }

    /// A byte of a DNS name: a letter, a digit, `-` or `.`.
    static func isHostByte(_ byte: UInt8) -> Bool {
        (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E
    }
}

/// A receiver's access rules out of range (a short token, a host name with a space).
public struct ReceiverAccessError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `invalidInput`.
    public var code = "invalidInput"
    /// What is wrong.
    public var message: String
    /// The setting at fault: `token` or `allowedHosts`.
    public var field: String

    /// `field: message`.
    public var description: String { "\(self.field): \(self.message)" }
}

/// The port a receiver listens on, known once it is bound (port 0 picks one).
final class BoundPort: Sendable {
    /// The port, 0 until the server listens.
    private let port = Atomic<Int>(0)

    /// The bound port, or `nil` before the server listens.
    var value: Int? {
        let port = self.port.load(ordering: .acquiring)
        return port == 0 ? nil : port
    }

    /// Records the bound port.
    func set(_ port: Int) {
        self.port.store(port, ordering: .releasing)
    }
}

/// Enforces ``ReceiverAccess`` on every request of a receiver (see there for the order).
struct ReceiverAccessMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The rules.
    let access: ReceiverAccess
    /// The address the receiver was asked to listen on (lower-cased).
    let hostname: String
    /// The port it listens on.
    let port: BoundPort
    /// The token's digest, compared in constant time.
    private let expected: TokenDigest

    /// Creates the middleware of a receiver listening on `hostname`.
    init(access: ReceiverAccess, hostname: String, port: BoundPort) {
        self.access = access
        self.hostname = hostname.lowercased()
        self.port = port
        self.expected = TokenDigest(Array(access.token.utf8))
    }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let host = request.head.authority ?? ""
        guard self.answers(host) else {
            throw APIError(
                .misdirectedRequest,
                code: "misdirected",
                message: "this receiver does not answer to Host '\(host.prefix(64))' (allow a name with --allow-host)"
            )
        }
        if let origin = request.headers[.origin], origin.lowercased() != "http://" + host.lowercased() {
            throw APIError(
                .forbidden,
                code: "foreignOrigin",
                message: "requests from the web origin '\(origin.prefix(64))' are refused"
            )
        }
        if request.uri.path != "/health" {
            guard let header = request.headers[.authorization],
                let credentials = BearerTokenMiddleware<Context>.bearerCredentials(header),
                TokenDigest(Array(credentials.utf8)) == self.expected
            else {
                throw APIError(
                    .unauthorized,
                    code: "unauthorized",
                    message: "missing or wrong receiver token (Authorization: Bearer TOKEN, as the receiver printed)"
                )
            }
        }
        if request.method == .post, !Self.isJSON(request.headers[.contentType]) {
            throw APIError(
                .unsupportedMediaType,
                code: "unsupportedMediaType",
                message: "a POST takes Content-Type: application/json"
            )
        }
        return try await next(request, context)
    }

    /// Whether `application/json` (any case, parameters allowed) is the media type of `field`.
    static func isJSON(_ field: String?) -> Bool {
        guard let field else { return false }
        let type = field.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return type.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }

    /// Whether `authority` (`Host`: a name or address, a bracketed IPv6 address, an optional
    /// port) names this receiver.
    func answers(_ authority: String) -> Bool {
        guard !authority.isEmpty, authority.utf8.count <= ReceiverAccess.maximumHostLength + 8 else { return false }
        var name = Substring(authority.lowercased())
        var port: Substring?
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return false }
            let rest = name[name.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return false }
                port = rest.dropFirst()
            }
            name = name[name.index(after: name.startIndex)..<close]
        } else if let colon = name.lastIndex(of: ":") {
            port = name[name.index(after: colon)...]
            name = name[..<colon]
        }
        if let port {
            guard port.utf8.count <= 5, let number = Int(port), number == (self.port.value ?? number) else {
                return false
            }
        }
        let text = String(name)
        if ["localhost", "127.0.0.1", "::1", self.hostname].contains(text) || self.access.allowedHosts.contains(text) {
            return true
        }
        // Listening on every interface: any of the machine's addresses, which DNS rebinding
        // cannot pass for (it needs a name).
        let wildcard = self.hostname == "0.0.0.0" || self.hostname == "::"
        return wildcard && Self.isAddress(text)
    }

    /// Whether `text` is an IPv4 or IPv6 address (never a DNS name).
    static func isAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}
