import HLSPlaylist

extension ConfigurationFile {
    /// `conditioning:`: creatives without an HLS media file made into HLS (see
    /// ``ConditioningConfiguration``; <doc:AssetListsAndAdServers>, "Creative conditioning").
    public struct ConditioningEntry: Sendable, Codable {
        /// `folder`: where renditions are written (relative to the file's folder), required.
        public var folder: String
        /// `ffmpeg`: the ffmpeg program, a path or a name in `PATH` (default `ffmpeg`).
        public var ffmpeg: String?
        /// `ffprobe`: the ffprobe program (default `ffprobe`).
        public var ffprobe: String?
        /// `maxJobs`: creatives conditioned at once by this instance, 1 to 16 (default 1).
        public var maxJobs: Int?
        /// `queue`: creatives waiting here at most, 1 to 10,000 (default 64).
        public var queue: Int?
        /// `timeLimit`: seconds an ffmpeg run may take, 1 to 7,200 (default 600).
        public var timeLimit: Double?
        /// `cpuSeconds`: CPU seconds an ffmpeg run may use, 1 to 86,400 (default twice `timeLimit`).
        public var cpuSeconds: Int?
        /// `memoryLimit`: bytes of address space an ffmpeg run may use, 64 MiB to 64 GiB (default 2 GiB).
        public var memoryLimit: Int?
        /// `nice`: the niceness of ffmpeg, 0 to 19 (default 10).
        public var nice: Int?
        /// `maxSourceBytes`: the largest media file fetched, 1,024 to 4 GiB (default 256 MiB).
        public var maxSourceBytes: Int?
        /// `fetchTimeout`: seconds fetching a media file may take, 1 to 3,600 (default 120).
        public var fetchTimeout: Double?
        /// `cdnBaseURL`: the http(s) base URL the folder is published under (default: this server's
        /// `/media/conditioned/`).
        public var cdnBaseURL: String?
        /// `retryAfter`: seconds before the first retry of a failed creative, 1 to 86,400 (default 60);
        /// doubled after each failure.
        public var retryAfter: Double?
        /// `retryMax`: the longest wait between attempts, seconds, 1 to 604,800 (default 3,600).
        public var retryMax: Double?
        /// `maxAttempts`: attempts before a creative is given up, 1 to 100 (default 5).
        public var maxAttempts: Int?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case folder, ffmpeg, ffprobe, maxJobs, queue, timeLimit, cpuSeconds, memoryLimit, nice
            case maxSourceBytes, fetchTimeout, cdnBaseURL, retryAfter, retryMax, maxAttempts
        }

        /// A program name or path: 1 to 1,024 printable ASCII bytes.
        static func program(_ value: String, field: String) throws(InputLimitError) -> String {
            guard (1...1024).contains(value.utf8.count), value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
                throw InputLimitError(field: field, message: "\(field) must be 1 to 1024 printable ASCII characters")
            }
            return value
        }

        /// The configuration, every value checked; a relative `folder` is resolved against `base`.
        func configuration(relativeTo base: String) throws -> ConditioningConfiguration {
            typealias L = InputLimits
            let folder = try Self.program(self.folder, field: "conditioning.folder")
            var result = ConditioningConfiguration(folder: folder.hasPrefix("/") ? folder : base + "/" + folder)
            if let value = self.ffmpeg { result.ffmpeg = try Self.program(value, field: "conditioning.ffmpeg") }
            if let value = self.ffprobe { result.ffprobe = try Self.program(value, field: "conditioning.ffprobe") }
            if let value = self.maxJobs {
                result.maximumJobs = try L.integer(value, in: 1...16, field: "conditioning.maxJobs")
            }
            if let value = self.queue {
                result.queueLimit = try L.integer(value, in: 1...10_000, field: "conditioning.queue")
            }
            if let value = self.timeLimit {
                result.timeLimit = try L.duration(value, in: 1...7200, field: "conditioning.timeLimit")
            }
            if let value = self.cpuSeconds {
                result.cpuSeconds = try L.integer(value, in: 1...86_400, field: "conditioning.cpuSeconds")
            }
            if let value = self.memoryLimit {
                result.memoryLimit = try L.integer(
                    value,
                    in: (64 << 20)...(64 << 30),
                    field: "conditioning.memoryLimit"
                )
            }
            if let value = self.nice { result.niceness = try L.integer(value, in: 0...19, field: "conditioning.nice") }
            if let value = self.maxSourceBytes {
                result.maximumSourceBytes = try L.integer(
                    value,
                    in: 1024...(4 << 30),
                    field: "conditioning.maxSourceBytes"
                )
            }
            if let value = self.fetchTimeout {
                result.fetchTimeout = try L.duration(value, in: 1...3600, field: "conditioning.fetchTimeout")
            }
            if let value = self.cdnBaseURL {
                result.cdnBaseURL = try ConfigurationFile.httpURL(
                    value,
                    field: "conditioning.cdnBaseURL",
                    what: "an http(s) base URL"
                )
            }
            if let value = self.retryAfter {
                result.retryAfter = try L.seconds(value, in: 1...86_400, field: "conditioning.retryAfter")
            }
            if let value = self.retryMax {
                result.retryMax = try L.seconds(value, in: 1...604_800, field: "conditioning.retryMax")
            }
            if let value = self.maxAttempts {
                result.maximumAttempts = try L.integer(value, in: 1...100, field: "conditioning.maxAttempts")
            }
            return result
        }
    }
}
