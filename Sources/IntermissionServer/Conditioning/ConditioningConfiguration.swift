import HLSPlaylist

/// How creatives whose VAST answer holds no HLS media file are conditioned into HLS (the
/// configuration's `conditioning:` section; <doc:AssetListsAndAdServers>, "Creative conditioning").
///
/// A creative is fetched once, transcoded by `ffmpeg` (a subprocess under `nice` and `prlimit`,
/// killed at ``timeLimit``) into renditions that match the presentation, kept under ``folder`` and
/// served from `/media/conditioned/…` (or ``cdnBaseURL``). Until it is ready it is left out of pods.
public struct ConditioningConfiguration: Sendable, Hashable {
    /// The mount conditioned renditions are served under: `/media/conditioned/{key}/master.m3u8`.
    public static let mountName = "conditioned"

    /// `folder`: where renditions are written, one folder per creative and target (created if
    /// missing; share it between instances that share a database).
    public var folder: String
    /// `ffmpeg`: the ffmpeg program (a path, or a name looked up in `PATH`), `ffmpeg` by default.
    public var ffmpeg: String = "ffmpeg"
    /// `ffprobe`: the ffprobe program, `ffprobe` by default.
    public var ffprobe: String = "ffprobe"
    /// `maxJobs`: how many creatives this instance conditions at once, 1 to 16 (default 1).
    public var maximumJobs: Int = 1
    /// `queue`: how many creatives may wait for a job here, 1 to 10,000 (default 64); past it a
    /// creative is asked for again by a later asset list.
    public var queueLimit: Int = 64
    /// `timeLimit`: seconds one ffmpeg run may take before it is killed, 1 to 7,200 (default 600).
    public var timeLimit: Duration = .seconds(600)
    /// `cpuSeconds`: the CPU time one ffmpeg run may use (`prlimit --cpu`), 1 to 86,400 (default
    /// twice ``timeLimit``'s seconds).
    public var cpuSeconds: Int?
    /// `memoryLimit`: the address space of one ffmpeg run, bytes (`prlimit --as`), 64 MiB to
    /// 64 GiB (default 2 GiB).
    public var memoryLimit: Int = 2 << 30
    /// `nice`: the niceness ffmpeg runs at, 0 to 19 (default 10), so answers come first.
    public var niceness: Int = 10
    /// `maxSourceBytes`: the largest media file fetched, 1 KiB to 4 GiB (default 256 MiB).
    public var maximumSourceBytes: Int = 256 << 20
    /// `fetchTimeout`: seconds fetching the media file may take, 1 to 3,600 (default 120).
    public var fetchTimeout: Duration = .seconds(120)
    /// `cdnBaseURL`: the base URL renditions are handed out under instead of this server's
    /// `/media/conditioned/` (the folder's contents published there); `nil` by default.
    public var cdnBaseURL: String?
    /// `retryAfter`: seconds before a failed creative is tried again, doubled after each failure,
    /// 1 to 86,400 (default 60).
    public var retryAfter: MediaTime = MediaTime(seconds: 60)
    /// `retryMax`: the longest wait between attempts, seconds, 1 to 604,800 (default 3,600).
    public var retryMax: MediaTime = MediaTime(seconds: 3600)
    /// `maxAttempts`: attempts before a creative is given up for good, 1 to 100 (default 5).
    public var maximumAttempts: Int = 5

    /// Conditioning into `folder`, other values the defaults.
    public init(folder: String) {
        self.folder = folder
    }

    /// How long a lease lasts: the fetch, the run and a minute to spare; past it another instance
    /// may take the creative over (its holder is taken to have stopped).
    var lease: MediaTime {
        let seconds = self.fetchTimeout.components.seconds + self.timeLimit.components.seconds + 60
        return MediaTime(seconds: Int(min(seconds, 1_000_000)))
    }

    /// The CPU seconds of one run.
    var cpuLimit: Int {
        self.cpuSeconds ?? max(1, Int(self.timeLimit.components.seconds) * 2)
    }

    /// The wait before attempt `attempts + 1`, after `attempts` failed: ``retryAfter`` doubled
    /// `attempts - 1` times, at most ``retryMax``; `nil` once ``maximumAttempts`` failed.
    func retryDelay(afterAttempts attempts: Int) -> MediaTime? {
        guard attempts < self.maximumAttempts else { return nil }
        var delay = self.retryAfter
        for _ in 1..<max(1, attempts) {
            delay = delay + delay
            if self.retryMax < delay { return self.retryMax }
        }
        return MediaTime.min(delay, self.retryMax)
    }
}
