import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where requests made for URLs from outside documents (VAST wrappers, tracking URLs, redirects)
/// may go: public addresses only, unless the operator named the host or its network.
///
/// A host is resolved once, every address it resolves to is checked, and the request connects to
/// the address that was checked (an `http` URL is rewritten to it, with the `Host` field naming
/// the host), so a name that resolves to a public address when checked and to a private one when
/// connecting (DNS rebinding) cannot slip past. An `https` URL keeps its name, for the
/// certificate check: a host that rebinds to an inner address would have to present a valid
/// certificate for the outside name, so the TLS handshake fails before any request is sent.
///
/// ``BoundedFetch`` applies the policy to every hop when it is given one, and follows redirects
/// itself (its client must not: ``BoundedFetch/makeClient(connectTimeout:maximumRedirects:)``
/// with `maximumRedirects: 0`).
public struct OutboundPolicy: Sendable, Hashable {
    /// Whether every destination is allowed, unchecked (for closed test networks); `false` by
    /// default.
    public var allowsEveryDestination: Bool
    /// Hosts trusted as named, unchecked.
    ///
    /// `host` (any port) or `host:port`, lower case, IPv6 in brackets. A host on this list is
    /// neither resolved nor checked.
    public var allowedHosts: Set<String>
    /// Networks whose addresses are allowed although they are private, loopback, ….
    public var allowedNetworks: [IPNetwork]
    /// The most redirects followed per fetch, each checked like the first URL (3 by default,
    /// 0 to 20).
    public var maximumRedirects: Int

    /// Creates a policy: by default public addresses only, 3 redirects.
    public init(
        allowsEveryDestination: Bool = false,
        allowedHosts: Set<String> = [],
        allowedNetworks: [IPNetwork] = [],
        maximumRedirects: Int = 3
    ) {
        self.allowsEveryDestination = allowsEveryDestination
        self.allowedHosts = allowedHosts
        self.allowedNetworks = allowedNetworks
        self.maximumRedirects = min(max(maximumRedirects, 0), 20)
    }

    /// Where one request connects.
    public struct Destination: Sendable, Hashable {
        /// The URL to request: the checked address in place of the host for `http`.
        public var url: String
        /// The `Host` field to send when ``url`` no longer names the host.
        public var hostField: String?
    }

    /// The parts of an absolute `http(s)` URL the policy looks at.
    public struct Target: Sendable, Hashable {
        /// `http` or `https`, lower case.
        public var scheme: String
        /// `user[:password]@`, as written, or empty.
        public var userInfo: Substring
        /// The host as written (IPv6 with its brackets).
        public var host: String
        /// The port, written or the scheme's default.
        public var port: Int
        /// `host[:port]` as written.
        public var hostPort: Substring
        /// The path, query and fragment, as written.
        public var rest: Substring

        /// Splits `url`; `nil` when it is not an absolute `http(s)` URL with a host and a valid port.
        public init?(_ url: String) {
            let lower = url.prefix(8).lowercased()
            let afterScheme: Substring
            if lower.hasPrefix("http://") {
                self.scheme = "http"
                afterScheme = url.dropFirst(7)
            } else if lower.hasPrefix("https://") {
                self.scheme = "https"
                afterScheme = url.dropFirst(8)
            } else {
                return nil
            }
            let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            self.rest = afterScheme[authority.endIndex...]
            if let at = authority.lastIndex(of: "@") {
                self.userInfo = authority[...at]
                self.hostPort = authority[authority.index(after: at)...]
            } else {
                self.userInfo = ""
                self.hostPort = authority
            }
            var host = self.hostPort
            var portText: Substring?
            if host.hasPrefix("[") {
                guard let close = host.firstIndex(of: "]") else { return nil }
                let after = host[host.index(after: close)...]
                if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { return nil }
                host = host[...close]
            } else if let colon = host.lastIndex(of: ":") {
                portText = host[host.index(after: colon)...]
                host = host[..<colon]
            }
            guard !host.isEmpty else { return nil }
            self.host = host.lowercased()
            if let portText {
                guard (1...5).contains(portText.count), portText.allSatisfy(\.isASCII), let port = Int(portText),
                    (1...65_535).contains(port)
                else { return nil }
                self.port = port
            } else {
                self.port = self.scheme == "https" ? 443 : 80
            }
        }

        /// `host:port`, lower case, the port always written.
        public var endpoint: String { "\(self.host):\(self.port)" }
    }

    /// `host:port` of an `http(s)` URL, lower case; `nil` when it is not one.
    ///
    /// The scheme's default port when none is written: the form ``allowedHosts`` and trusted
    /// hosts take.
    public static func endpoint(of url: String) -> String? {
        Target(url)?.endpoint
    }

    /// Whether `target` is trusted as named: everything is allowed, or its host or `host:port` is
    /// on ``allowedHosts`` or `trusted`.
    public func trusts(_ target: Target, also trusted: Set<String>) -> Bool {
        self.allowsEveryDestination || self.allowedHosts.contains(target.host)
            || self.allowedHosts.contains(target.endpoint) || trusted.contains(target.endpoint)
            || trusted.contains(target.host)
    }

    /// Why `address` is refused (see ``IPAddress/refusal``), or `nil` when it is public or in
    /// ``allowedNetworks``.
    public func refusal(of address: IPAddress) -> String? {
        guard let refusal = address.refusal else { return nil }
        return self.allowedNetworks.contains { $0.contains(address) } ? nil : refusal
    }

    /// Where a request for `url` connects, once its host is resolved and checked.
    ///
    /// - Parameters:
    ///   - url: An absolute `http(s)` URL.
    ///   - trusted: `host` or `host:port` entries trusted for this request besides ``allowedHosts``
    ///     (the configured ad server).
    ///   - shown: The URL as messages show it.
    /// - Throws: ``FetchError/Code/forbiddenDestination`` for a refused destination, a host that is
    ///   not a plain name, or one that does not resolve.
    public func destination(
        of url: String,
        trusting trusted: Set<String> = [],
        shown: String
    ) async throws(FetchError) -> Destination {
        guard let target = Target(url) else {
            throw FetchError(code: .invalidURL, message: "\(shown) is not an http or https URL", url: shown)
        }
        if self.trusts(target, also: trusted) { return Destination(url: url, hostField: nil) }
        let address: IPAddress
        if let literal = IPAddress(target.host) {
            address = literal
        } else {
            var name = target.host
            if name.hasSuffix(".") { name.removeLast() }
            guard !name.isEmpty, name.utf8.count <= 253,
                name.utf8.allSatisfy({
                    ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x2E || $0 == 0x5F
                })
            else {
                throw Self.refused(shown, because: "its host is not a plain DNS name")
            }
            let addresses = await Self.resolutions.addresses(of: name, port: target.port)
            guard let first = addresses.first else {
                throw FetchError(code: .transport, message: "cannot resolve the host of \(shown)", url: shown)
            }
            for candidate in addresses {
                if let refusal = self.refusal(of: candidate) {
                    throw Self.refused(shown, because: "\(target.host) resolves to \(candidate), \(refusal)")
                }
            }
            // One address is connected to (no happy eyeballs across them): IPv4 when there is one,
            // as the network more often reaches it.
            address = addresses.first(where: \.isIPv4) ?? first
        }
        if let refusal = self.refusal(of: address) {
            throw Self.refused(shown, because: "\(target.host) is \(address), \(refusal)")
        }
        guard target.scheme == "http" else { return Destination(url: url, hostField: nil) }
        return Destination(
            url: "http://\(target.userInfo)\(address.urlHost):\(target.port)\(target.rest)",
            hostField: String(target.hostPort)
        )
    }

    static func refused(_ shown: String, because reason: String) -> FetchError {
        FetchError(
            code: .forbiddenDestination,
            message: "refused to request \(shown): \(reason)",
            url: shown
        )
    }

    /// Names resolved lately, shared by every policy of the process.
    static let resolutions = ResolutionCache()

    /// The addresses `name` resolves to (`getaddrinfo`, on NIO's blocking-I/O thread pool); empty
    /// when it does not resolve.
    static func resolve(_ name: String, port: Int) async -> [IPAddress] {
        let work: @Sendable () -> [IPAddress] = {
            var hints = addrinfo()
            hints.ai_family = AF_UNSPEC
            #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            #else
            hints.ai_socktype = SOCK_STREAM
            #endif
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(name, String(port), &hints, &list) == 0, let head = list else { return [] }
            defer { freeaddrinfo(head) }
            var result: [IPAddress] = []
            var node: UnsafeMutablePointer<addrinfo>? = head
            while let current = node, result.count < 64 {
                if let socketAddress = current.pointee.ai_addr {
                    if current.pointee.ai_family == AF_INET {
                        socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                            var raw = v4.pointee.sin_addr
                            let bytes = withUnsafeBytes(of: &raw) { Array($0) }
                            if let address = IPAddress(bytes: bytes) { result.append(address) }
                        }
                    } else if current.pointee.ai_family == AF_INET6 {
                        socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                            var raw = v6.pointee.sin6_addr
                            let bytes = withUnsafeBytes(of: &raw) { Array($0) }
                            if let address = IPAddress(bytes: bytes) { result.append(address) }
                        }
                    }
                }
                node = current.pointee.ai_next
            }
            return result
        }
        return (try? await NIOThreadPool.singleton.runIfActive(work)) ?? []
    }
}

/// The addresses names resolved to lately, kept ``lifetime`` (at most ``capacity`` names), so a
/// burst of requests to one host resolves it once rather than once per request.
///
/// Keeping them is safe against DNS rebinding: a request connects to the address that was checked,
/// whether it was resolved now or a moment ago.
final class ResolutionCache: Sendable {
    /// How long a resolution is kept.
    static let lifetime = Duration.seconds(30)
    /// The most names kept.
    static let capacity = 1024
    /// The time since the cache was made, on the clock its lifetime runs on.
    private let elapsed: @Sendable () -> Duration
    /// Resolves a name and port to addresses (``OutboundPolicy/resolve(_:port:)`` but in tests).
    private let resolver: @Sendable (_ name: String, _ port: Int) async -> [IPAddress]
    /// The kept resolutions by `name:port`, each with the time (on ``elapsed``) it expires.
    private let entries = Mutex<[String: (addresses: [IPAddress], until: Duration)]>([:])

    /// Creates an empty cache whose entries expire on `clock` and which resolves with `resolver`.
    init(
        clock: some Clock<Duration> = ContinuousClock(),
        resolver: @escaping @Sendable (_ name: String, _ port: Int) async -> [IPAddress] = { name, port in
            await OutboundPolicy.resolve(name, port: port)
        }
    ) {
        self.elapsed = clock.fetchStopwatch()
        self.resolver = resolver
    }

    /// The addresses of `name` (port `port`): kept ones, or resolved now and kept when there are some.
    func addresses(of name: String, port: Int) async -> [IPAddress] {
        let key = "\(name):\(port)"
        let now = self.elapsed()
        if let kept = self.entries.withLock({ $0[key] }), kept.until > now { return kept.addresses }
        let addresses = await self.resolver(name, port)
        guard !addresses.isEmpty else { return addresses }
        self.entries.withLock { entries in
            if entries.count >= Self.capacity { entries = entries.filter { $0.value.until > now } }
            if entries.count < Self.capacity { entries[key] = (addresses, now + Self.lifetime) }
        }
        return addresses
    }
}
