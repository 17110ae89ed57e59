import AdInsertion
import HLSPlaylist

extension ConfigurationFile {
    /// The `adServer:` of a `vod:` or `channels:` entry: a VAST ad server (README, "Ad servers").
    public struct AdServerEntry: Sendable, Codable {
        /// `url`: the `http(s)` URL template, with macros such as `[BREAKDURATION]`.
        public var url: String
        /// `timeout`: the time budget of an asset list in seconds (default 1.5).
        public var timeout: Double?
        /// `bitrate`: the kbit/s the media file is chosen nearest to (default: the highest).
        public var bitrate: Int?
        /// `podSize`: the `[PODSIZE]` value (default: one ad per started 15 s of the break).
        public var podSize: Int?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case url, timeout, bitrate, podSize
        }

        /// The settings, every value checked.
        func settings(path: String) throws -> AdServerSettings {
            typealias L = InputLimits
            let url = try L.uri(self.url, field: "\(path).url")
            let lowered = url.lowercased()
            guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
                throw InputLimitError(field: "\(path).url", message: "\(path).url must be an http(s) URL template")
            }
            var settings = AdServerSettings(urlTemplate: url)
            if let timeout = self.timeout {
                settings.timeout = try L.seconds(timeout, in: 0.05...30, field: "\(path).timeout")
            }
            if let bitrate = self.bitrate {
                settings.targetBitrate = try L.integer(bitrate, in: 1...1_000_000, field: "\(path).bitrate")
            }
            if let size = self.podSize {
                settings.podSize = try L.integer(size, in: 1...100, field: "\(path).podSize")
            }
            return settings
        }
    }
}
