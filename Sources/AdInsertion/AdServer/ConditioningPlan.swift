import HLSPlaylist

/// The media parameters an ad must have to play inside a presentation without a visible or audible
/// switch (WWDC23 10275: match the video codec, frame rate and aspect ratio, and the audio codec,
/// sample rate and channel layout), and the ladder of renditions it is conditioned into.
///
/// The server reads it from the primary (its multivariant playlist and one probed segment); the
/// ``ConditioningPlan`` made from it only decides, and does no I/O.
public struct ConditioningTarget: Sendable, Hashable {
    /// One rung of the ladder: a picture size and the bandwidth of the primary's variant of it.
    public struct Rendition: Sendable, Hashable {
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// The primary variant's `BANDWIDTH`, bits per second.
        public var bandwidth: Int

        /// Creates a rendition.
        public init(width: Int, height: Int, bandwidth: Int) {
            self.width = width
            self.height = height
            self.bandwidth = bandwidth
        }
    }

    /// The video renditions, largest first; empty for an audio-only primary.
    public var renditions: [Rendition]
    /// The primary's video codec as `CODECS` writes it (`avc1.4d401f`), `nil` for audio only.
    public var videoCodec: String?
    /// Frames per second.
    public var frameRate: Double
    /// The primary's audio codec as `CODECS` writes it (`mp4a.40.2`, `ac-3`, `ec-3`).
    public var audioCodec: String
    /// Audio channels (1, 2, 6, …).
    public var audioChannels: Int
    /// Audio sample rate, hertz.
    public var audioSampleRate: Int
    /// The primary's `EXT-X-TARGETDURATION`, seconds: every conditioned segment is this long (the
    /// last one shorter).
    public var segmentDuration: Int
    /// The primary's bandwidth (bits per second) for an audio-only ladder.
    public var audioBandwidth: Int

    /// Creates a target; the renditions are sorted largest first (by area, then bandwidth) and the
    /// bounds kept: 1 to 30 s segments, 1 to 240 fps, 1 to 16 channels, 8 to 192 kHz.
    public init(
        renditions: [Rendition],
        videoCodec: String?,
        frameRate: Double,
        audioCodec: String,
        audioChannels: Int,
        audioSampleRate: Int,
        segmentDuration: Int,
        audioBandwidth: Int = 128_000
    ) {
        var unique: [Rendition] = []
        for rendition in renditions where !unique.contains(rendition) { unique.append(rendition) }
        self.renditions = unique.sorted { a, b in
            (a.width * a.height, a.bandwidth) > (b.width * b.height, b.bandwidth)
        }
        self.videoCodec = videoCodec
        self.frameRate = frameRate.isFinite ? min(max(frameRate, 1), 240) : 30
        self.audioCodec = audioCodec
        self.audioChannels = min(max(audioChannels, 1), 16)
        self.audioSampleRate = min(max(audioSampleRate, 8000), 192_000)
        self.segmentDuration = min(max(segmentDuration, 1), 30)
        self.audioBandwidth = max(audioBandwidth, 8000)
    }

    /// The largest rendition, which the source must cover (`nil` for audio only).
    public var largest: Rendition? { self.renditions.first }

    /// Every parameter as one line of text: conditioned renditions are kept per source and
    /// signature, so a primary with other parameters gets renditions of its own.
    public var signature: String {
        let ladder = self.renditions.map { "\($0.width)x\($0.height)@\($0.bandwidth)" }.joined(separator: ",")
        return [
            self.videoCodec ?? "-", self.frameRate.threeDecimals, self.audioCodec, String(self.audioChannels),
            String(self.audioSampleRate), String(self.segmentDuration), ladder, String(self.audioBandwidth),
        ].joined(separator: "|")
    }

    /// The ladder of a multivariant playlist's variants that have a `RESOLUTION` (one per size,
    /// the highest `BANDWIDTH` of each), largest first.
    public static func ladder(of variants: [VariantStream]) -> [Rendition] {
        var best: [Resolution: Int] = [:]
        for variant in variants {
            guard let size = variant.resolution, size.width > 0, size.height > 0 else { continue }
            best[size] = max(best[size] ?? 0, variant.bandwidth)
        }
        return best.map { Rendition(width: $0.key.width, height: $0.key.height, bandwidth: $0.value) }
            .sorted { ($0.width * $0.height, $0.bandwidth) > ($1.width * $1.height, $1.bandwidth) }
    }
}

/// How one creative's progressive media file becomes HLS that matches a ``ConditioningTarget``:
/// which `MediaFile` to start from, the `ffmpeg` arguments, and the multivariant playlist written
/// over the renditions ffmpeg made.
///
/// Pure: the server fetches, runs and stores.
public struct ConditioningPlan: Sendable, Hashable {
    /// The parameters to match.
    public var target: ConditioningTarget
    /// The creative's `Duration`: the output is cut there.
    public var duration: MediaTime
    /// Whether the source has an audio track (a silent one is made for a source without).
    public var sourceHasAudio: Bool

    /// The media types ffmpeg reads that a VAST `MediaFile` is conditioned from (Flash video and
    /// VPAID's JavaScript or SWF are not media and never are).
    public static let conditionableTypes: Set<String> = ["video/mp4", "video/quicktime", "video/webm", "video/x-m4v"]

    /// Creates a plan.
    public init(target: ConditioningTarget, duration: MediaTime, sourceHasAudio: Bool = true) {
        self.target = target
        self.duration = duration
        self.sourceHasAudio = sourceHasAudio
    }

    /// Whether `file` can be conditioned: a video type ffmpeg reads (``conditionableTypes``) over
    /// `http(s)`, and not an interactive unit (`apiFramework="VPAID"`: its video plays only inside
    /// the VPAID code, which an interstitial does not run).
    public static func isConditionable(_ file: VASTMediaFile) -> Bool {
        guard Self.conditionableTypes.contains(file.type.lowercased()), file.apiFramework == nil else { return false }
        let lowered = file.url.prefix(8).lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
    }

    /// The media file to condition, by the IAB's guidance for choosing among `MediaFile`s:
    /// progressive delivery over streaming; then a file at least as large as the largest rendition
    /// needed (the highest bitrate of those, then the largest picture), else one of unknown size,
    /// else the largest picture there is (then the highest bitrate); the URL breaks a tie, so the
    /// document's order plays no part.
    ///
    /// `nil` when no file can be conditioned.
    public static func sourceFile(_ files: [VASTMediaFile], for target: ConditioningTarget) -> VASTMediaFile? {
        let usable = files.filter(Self.isConditionable)
        let progressive = usable.filter { ($0.delivery?.lowercased() ?? "progressive") == "progressive" }
        let candidates = progressive.isEmpty ? usable : progressive
        let needed = target.largest
        func rank(_ file: VASTMediaFile) -> Int {
            guard let width = file.width, let height = file.height, width > 0, height > 0 else { return 1 }
            guard let needed else { return 0 }
            return width >= needed.width && height >= needed.height ? 0 : 2
        }
        return candidates.min { a, b in
            let (ra, rb) = (rank(a), rank(b))
            if ra != rb { return ra < rb }
            let areaA = (a.width ?? 0) * (a.height ?? 0)
            let areaB = (b.width ?? 0) * (b.height ?? 0)
            let (bitrateA, bitrateB) = (a.bitrate ?? -1, b.bitrate ?? -1)
            if ra == 2 {
                if areaA != areaB { return areaA > areaB }
                if bitrateA != bitrateB { return bitrateA > bitrateB }
            } else {
                if bitrateA != bitrateB { return bitrateA > bitrateB }
                if areaA != areaB { return areaA > areaB }
            }
            return a.url < b.url
        }
    }

    /// The encoders of the codecs the plan writes: H.264 video, AAC-LC, AC-3 or E-AC-3 audio.
    enum Encoder {
        /// The x264 profile and level of an `avc1`/`avc3` codec string (`avc1.4d401f`: Main, 3.1).
        static func h264(_ codec: String) -> (profile: String, level: String)? {
            let parts = codec.split(separator: ".")
            guard parts.count == 2, ["avc1", "avc3"].contains(parts[0].lowercased()), parts[1].count == 6,
                let value = Int(parts[1], radix: 16)
            else { return nil }
            let profile: String
            switch value >> 16 {
            case 0x42: profile = "baseline"
            case 0x4D: profile = "main"
            case 0x64: profile = "high"
            default: return nil
            }
            let level = value & 0xFF
            guard level > 0 else { return nil }
            return (profile, "\(level / 10).\(level % 10)")
        }

        /// The ffmpeg audio encoder of a `CODECS` audio entry.
        static func audio(_ codec: String) -> String? {
            switch codec.lowercased() {
            case "mp4a.40.2": "aac"
            case "ac-3": "ac3"
            case "ec-3": "eac3"
            default: nil
            }
        }
    }

    /// Why the target cannot be written, or `nil` when it can.
    public var unsupported: String? {
        if let video = self.target.videoCodec {
            if Encoder.h264(video) == nil {
                return
                    "the primary's video codec \(video) is not one conditioning writes (H.264 Baseline, Main or High)"
            }
            if self.target.renditions.isEmpty { return "the primary states no RESOLUTION to condition to" }
        }
        if Encoder.audio(self.target.audioCodec) == nil {
            return
                "the primary's audio codec \(self.target.audioCodec) is not one conditioning writes (AAC-LC, AC-3, E-AC-3)"
        }
        if self.duration <= .zero { return "the creative has no duration" }
        return nil
    }

    /// The audio bitrate written, bits per second: 64 kbit/s a channel, 16 to 640 kbit/s, and no
    /// more than a quarter of the smallest rung's bandwidth (at least 16 kbit/s).
    public var audioBitrate: Int {
        let perChannel = min(max(self.target.audioChannels * 64_000, 16_000), 640_000)
        let smallest = self.target.renditions.last?.bandwidth ?? self.target.audioBandwidth
        return max(16_000, min(perChannel, smallest / 4))
    }

    /// The video bitrate of a rung, bits per second: 80 % of its bandwidth without the audio, at
    /// least 24 kbit/s.
    public func videoBitrate(_ rendition: ConditioningTarget.Rendition) -> Int {
        max(24_000, rendition.bandwidth * 8 / 10 - self.audioBitrate)
    }

    /// The folder of rung `index` (`v0`, `v1`, …; `a0` for audio only), relative to the output folder.
    public func folder(of index: Int) -> String {
        self.target.videoCodec == nil ? "a\(index)" : "v\(index)"
    }

    /// The ffmpeg arguments (without the program) that read `input` and write the renditions into
    /// `output`: `v0/prog.m3u8` … with MPEG-TS segments `v0/seg-000.ts` …, each rung a variant with
    /// the audio muxed in, every segment starting with a keyframe on the target duration's grid.
    ///
    /// - Returns: The arguments, or `nil` when the target cannot be written (``unsupported``).
    public func arguments(input: String, output: String) -> [String]? {
        guard self.unsupported == nil, let audioEncoder = Encoder.audio(self.target.audioCodec) else { return nil }
        let seconds = self.duration.decimalString(places: 3)
        let segment = String(self.target.segmentDuration)
        let rate = self.target.frameRate.threeDecimals
        var arguments = ["-hide_banner", "-nostdin", "-nostats", "-loglevel", "error", "-y", "-i", input]
        let audioInput: String
        if self.sourceHasAudio {
            audioInput = "0:a:0"
        } else {
            arguments += ["-f", "lavfi", "-i", "anullsrc=r=\(self.target.audioSampleRate):cl=\(self.layout)"]
            audioInput = "1:a:0"
        }
        var streams: [String] = []
        if let video = self.target.videoCodec, let h264 = Encoder.h264(video) {
            let (profile, level) = (h264.profile, h264.level)
            let count = self.target.renditions.count
            var graph = "[0:v:0]fps=\(rate),split=\(count)" + (0..<count).map { "[s\($0)]" }.joined() + ";"
            graph += self.target.renditions.enumerated().map { index, rung in
                "[s\(index)]scale=\(rung.width):\(rung.height):force_original_aspect_ratio=decrease,"
                    + "pad=\(rung.width):\(rung.height):(ow-iw)/2:(oh-ih)/2,setsar=1,format=yuv420p[v\(index)]"
            }.joined(separator: ";")
            arguments += ["-filter_complex", graph]
            for index in 0..<count { arguments += ["-map", "[v\(index)]", "-map", audioInput] }
            let gop = String(max(1, Int((self.target.frameRate * Double(self.target.segmentDuration)).rounded())))
            arguments += [
                "-c:v", "libx264", "-preset", "veryfast", "-profile:v", profile, "-level:v", level,
                "-g", gop, "-keyint_min", gop, "-sc_threshold", "0",
                "-force_key_frames", "expr:gte(t,n_forced*\(segment))",
            ]
            if profile == "baseline" { arguments += ["-bf", "0"] }
            for (index, rung) in self.target.renditions.enumerated() {
                let bitrate = self.videoBitrate(rung)
                arguments += [
                    "-b:v:\(index)", String(bitrate), "-maxrate:v:\(index)", String(bitrate * 12 / 10),
                    "-bufsize:v:\(index)", String(bitrate * 2),
                ]
            }
            streams = (0..<count).map { "v:\($0),a:\($0)" }
        } else {
            arguments += ["-map", audioInput, "-vn"]
            streams = ["a:0"]
        }
        arguments += [
            "-c:a", audioEncoder, "-ac", String(self.target.audioChannels), "-ar",
            String(self.target.audioSampleRate), "-b:a", String(self.audioBitrate),
            "-t", seconds, "-shortest",
            "-f", "hls", "-hls_time", segment, "-hls_playlist_type", "vod", "-hls_segment_type", "mpegts",
            "-hls_flags", "independent_segments",
            "-hls_segment_filename", output + "/" + (self.target.videoCodec == nil ? "a" : "v") + "%v/seg-%03d.ts",
            "-var_stream_map", streams.joined(separator: " "),
            output + "/" + (self.target.videoCodec == nil ? "a" : "v") + "%v/prog.m3u8",
        ]
        return arguments
    }

    /// The ffmpeg channel layout name of the target's channel count.
    var layout: String {
        switch self.target.audioChannels {
        case 1: "mono"
        case 2: "stereo"
        case 3: "2.1"
        case 4: "quad"
        case 5: "5.0"
        case 6: "5.1"
        case 8: "7.1"
        default: "\(self.target.audioChannels)c"
        }
    }

    /// The multivariant playlist over the renditions: one `EXT-X-STREAM-INF` per rung with the
    /// primary's `CODECS`, its `RESOLUTION`, `FRAME-RATE`, and `BANDWIDTH` the peak each rung's
    /// segments reached (`peakBandwidths`, bits per second, in rung order; the target's bandwidth
    /// where one is missing).
    public func multivariant(peakBandwidths: [Int]) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-INDEPENDENT-SEGMENTS"]
        if let video = self.target.videoCodec {
            for (index, rung) in self.target.renditions.enumerated() {
                let peak = index < peakBandwidths.count ? peakBandwidths[index] : rung.bandwidth
                lines.append(
                    "#EXT-X-STREAM-INF:BANDWIDTH=\(max(1, peak)),RESOLUTION=\(rung.width)x\(rung.height),"
                        + "FRAME-RATE=\(self.target.frameRate.threeDecimals),"
                        + "CODECS=\"\(video),\(self.target.audioCodec)\""
                )
                lines.append("\(self.folder(of: index))/prog.m3u8")
            }
        } else {
            let peak = peakBandwidths.first ?? self.target.audioBandwidth
            lines.append("#EXT-X-STREAM-INF:BANDWIDTH=\(max(1, peak)),CODECS=\"\(self.target.audioCodec)\"")
            lines.append("a0/prog.m3u8")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// How many rungs ffmpeg writes.
    public var rungCount: Int { self.target.videoCodec == nil ? 1 : self.target.renditions.count }
}

extension Double {
    /// The value with exactly three decimals (`15.000`, `29.970`), as `FRAME-RATE` is written.
    var threeDecimals: String {
        let thousandths = Int64((self * 1000).rounded())
        let fraction = String(thousandths % 1000)
        return "\(thousandths / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
