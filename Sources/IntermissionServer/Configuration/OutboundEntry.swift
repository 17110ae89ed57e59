import HTTPFetch

extension ConfigurationFile {
    /// The `outbound:` section: where requests for URLs from ad servers' documents may go.
    ///
    /// <doc:SecurityAndLimits>. The configured ad servers' own `host:port` are always allowed.
    public struct OutboundEntry: Sendable, Codable {
        /// `allow`: destinations allowed although private, loopback, …: networks (`10.2.0.0/16`,
        /// `fd00::/8`, one address) and hosts (`ads.internal`, any port; `ads.internal:8080`), at
        /// most 1,000 entries (default none).
        public var allow: [String]?
        /// `allowEveryDestination`: no check at all, for closed test networks (default false).
        public var allowEveryDestination: Bool?
        /// `maxRedirects`: redirects followed per request, each checked, 0 to 20 (default 3).
        public var maxRedirects: Int?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case allow, allowEveryDestination, maxRedirects
        }

        /// The most `allow` entries.
        static let maximumEntries = 1000

        /// Checks every value and sets it on `policy`.
        func apply(to policy: inout OutboundPolicy) throws(InputLimitError) {
            if let every = self.allowEveryDestination { policy.allowsEveryDestination = every }
            if let redirects = self.maxRedirects {
                policy.maximumRedirects = try InputLimits.integer(redirects, in: 0...20, field: "outbound.maxRedirects")
            }
            guard let allow = self.allow else { return }
            guard allow.count <= Self.maximumEntries else {
                throw InputLimitError(
                    field: "outbound.allow",
                    message: "lists \(allow.count) entries, more than \(Self.maximumEntries)"
                )
            }
            for (k, entry) in allow.enumerated() {
                if let network = IPNetwork(entry) {
                    policy.allowedNetworks.append(network)
                } else if let endpoint = Self.host(entry) {
                    policy.allowedHosts.insert(endpoint)
                } else {
                    throw InputLimitError(
                        field: "outbound.allow[\(k)]",
                        message:
                            "must be a network (10.2.0.0/16, fd00::/8), an address, a host name or host:port, got \(InputLimits.quoted(entry))"
                    )
                }
            }
        }

        /// `host` or `host:port` (port 1 to 65535) in lower case, as `OutboundPolicy` compares
        /// them; `nil` when `entry` is neither (at most 253 bytes of letters, digits, `-`, `.`,
        /// `_`).
        static func host(_ entry: String) -> String? {
            guard !entry.contains("@"), let target = OutboundPolicy.Target("http://" + entry), target.rest.isEmpty
            else { return nil }
            let name = target.host
            let plain = name.utf8.allSatisfy {
                ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x2E || $0 == 0x5F
            }
            guard name.utf8.count <= 253, plain || IPAddress(name) != nil else { return nil }
            let afterHost = name.hasPrefix("[") ? target.hostPort.drop { $0 != "]" } : target.hostPort
            return afterHost.contains(":") ? target.endpoint : name
        }
    }
}
