import AdInsertion
import HLSPlaylist

extension ConfigurationFile {
    /// The `tracking:` section: beacons and viewer plans (<doc:TrackingAndPlans>).
    public struct TrackingEntry: Sendable, Codable {
        /// `key`: the HMAC-SHA256 key of beacon URLs and plan tokens, 16 to 1024 printable ASCII bytes.
        public var key: String?
        /// `beacons`: whether asset-list entries carry `X-AD-CREATIVE-SIGNALING` (default false).
        public var beacons: Bool?
        /// `requirePlan`: whether requests without a plan token are refused with 403 (default false).
        public var requirePlan: Bool?
        /// `planBRemovesInterstitials`: whether plan-B playlists carry no interstitial tags (default false).
        public var planBRemovesInterstitials: Bool?
        /// `forwardAttempts`: tries per forward, 1 to 20 (default 6).
        public var forwardAttempts: Int?
        /// `forwardRetryDelay`: seconds before the first retry, doubling after (default 0.5).
        public var forwardRetryDelay: Double?
        /// `forwardQueue`: forwards waiting at most, 1 to 1,000,000 (default 10,000).
        public var forwardQueue: Int?
        /// `forwardRatePerHost`: forwards per second to one host, 0.01 to 100,000 (default 100).
        public var forwardRatePerHost: Double?
        /// `forwardBurstPerHost`: forwards one host may take at once, 1 to 100,000 (default 200).
        public var forwardBurstPerHost: Int?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case key, beacons, requirePlan, planBRemovesInterstitials, forwardAttempts, forwardRetryDelay, forwardQueue
            case forwardRatePerHost, forwardBurstPerHost
        }

        /// Checks every value and sets it on `configuration`.
        func apply(to configuration: inout TrackingConfiguration) throws(InputLimitError) {
            typealias L = InputLimits
            if let key = self.key {
                guard (16...1024).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                    throw InputLimitError(
                        field: "tracking.key",
                        message: "must be 16 to 1024 printable ASCII characters"
                    )
                }
                configuration.key = Array(key.utf8)
            }
            if let beacons = self.beacons { configuration.beacons = beacons }
            if let require = self.requirePlan { configuration.requirePlan = require }
            if let remove = self.planBRemovesInterstitials { configuration.planBRemovesInterstitials = remove }
            if let attempts = self.forwardAttempts {
                configuration.forwardAttempts = try L.integer(attempts, in: 1...20, field: "tracking.forwardAttempts")
            }
            if let delay = self.forwardRetryDelay {
                let checked = try L.seconds(delay, in: 0.001...3600, field: "tracking.forwardRetryDelay")
                configuration.forwardRetryDelay = .milliseconds(checked.milliseconds)
            }
            if let queue = self.forwardQueue {
                configuration.forwardQueueCapacity = try L.integer(
                    queue,
                    in: 1...1_000_000,
                    field: "tracking.forwardQueue"
                )
            }
            if let rate = self.forwardRatePerHost {
                configuration.forwardRatePerHost = try L.number(
                    rate,
                    in: 0.01...100_000,
                    field: "tracking.forwardRatePerHost"
                )
            }
            if let burst = self.forwardBurstPerHost {
                configuration.forwardBurstPerHost = try L.integer(
                    burst,
                    in: 1...100_000,
                    field: "tracking.forwardBurstPerHost"
                )
            }
        }

        /// A creative's `tracking:` map, checked: known event names (not `progress`, which needs an
        /// offset a creative's map cannot give), at most 16 URLs each, each an absolute `http(s)` URL.
        static func creativeTracking(
            _ map: [String: [String]]?,
            field: String
        ) throws(InputLimitError) -> [TrackingEvent: [String]]? {
            guard let map else { return nil }
            var result: [TrackingEvent: [String]] = [:]
            for (name, urls) in map {
                guard let event = TrackingEvent(rawValue: name), event != .progress else {
                    throw InputLimitError(
                        field: "\(field).\(name)",
                        message:
                            "is not a tracking event: use \(TrackingEvent.allCases.filter { $0 != .progress }.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                guard urls.count <= 16 else {
                    throw InputLimitError(field: "\(field).\(name)", message: "may list at most 16 URLs")
                }
                result[event] = try urls.map { (url) throws(InputLimitError) in
                    let checked = try InputLimits.uri(url, field: "\(field).\(name)")
                    guard checked.lowercased().hasPrefix("http") else {
                        throw InputLimitError(field: "\(field).\(name)", message: "must be absolute http(s) URLs")
                    }
                    return checked
                }
            }
            return result
        }
    }
}
