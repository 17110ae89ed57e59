import AdInsertion
import HLSPlaylist

extension ConfigurationFile {
    /// The `adServer:` of a `vod:` or `channels:` entry: a VAST ad server (<doc:AssetListsAndAdServers>).
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
            let url = try ConfigurationFile.httpURL(self.url, field: "\(path).url", what: "an http(s) URL template")
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

extension ConfigurationFile {
    /// The `vmap:` of a `vod:` entry: a VMAP document that places the asset's breaks (<doc:AssetListsAndAdServers>).
    public struct VMAPEntry: Sendable, Codable {
        /// `url`: the `http(s)` URL of the document, fetched once at start.
        public var url: String
        /// `breakDuration`: the pod length of each break it places, in seconds (default 30).
        public var breakDuration: Double?
        /// `timeout`: seconds the fetch may take (default 5).
        public var timeout: Double?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case url, breakDuration, timeout
        }

        /// The source, every value checked.
        func source(path: String) throws -> VMAPSource {
            typealias L = InputLimits
            let url = try ConfigurationFile.httpURL(self.url, field: "\(path).url", what: "an http(s) URL")
            var source = VMAPSource(url: url)
            if let duration = self.breakDuration {
                source.breakDuration = try L.seconds(duration, in: L.duration, field: "\(path).breakDuration")
            }
            if let timeout = self.timeout {
                let checked = try L.seconds(timeout, in: 0.1...60, field: "\(path).timeout")
                source.timeout = .milliseconds(checked.milliseconds)
            }
            return source
        }
    }
}

extension ConfigurationFile {
    /// A checked URI (``InputLimits``) that is an `http(s)` URL; otherwise an error naming `field`
    /// that says it must be `what`.
    static func httpURL(_ value: String, field: String, what: String) throws -> String {
        let url = try InputLimits.uri(value, field: field)
        let lowered = url.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            throw InputLimitError(field: field, message: "\(field) must be \(what)")
        }
        return url
    }
}
