import AdInsertion
import Foundation
import HLSPlaylist

/// What `ffprobe -show_streams` says about a media file: its first video and first audio stream.
struct ProbedMedia: Sendable, Hashable {
    /// One stream's facts.
    struct Stream: Sendable, Hashable, Decodable {
        /// The stream's kind: `video`, `audio`, ….
        var codecType: String?
        /// The codec's name: `h264`, `aac`, ….
        var codecName: String?
        /// The codec's profile: `Main`, `LC`, ….
        var profile: String?
        /// The H.264 level times ten (`30` for 3.0).
        var level: Int?
        /// Width in pixels.
        var width: Int?
        /// Height in pixels.
        var height: Int?
        /// The average frame rate as a fraction (`15/1`).
        var avgFrameRate: String?
        /// The base frame rate as a fraction.
        var rFrameRate: String?
        /// Audio channels.
        var channels: Int?
        /// The sample rate in hertz, as text.
        var sampleRate: String?
    }

    /// ffprobe's JSON document (its keys in snake case).
    private struct Document: Decodable {
        var streams: [Stream]?
    }

    /// The first video stream.
    var video: Stream?
    /// The first audio stream.
    var audio: Stream?

    /// Reads ffprobe's JSON (`-print_format json -show_streams`).
    static func parse(_ bytes: [UInt8]) -> ProbedMedia? {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        guard let document = try? decoder.decode(Document.self, from: Data(bytes)) else { return nil }
        let streams = document.streams ?? []
        return ProbedMedia(
            video: streams.first { $0.codecType == "video" },
            audio: streams.first { $0.codecType == "audio" }
        )
    }

    /// ffprobe's arguments for `file`.
    static func arguments(_ file: String) -> [String] {
        ["-v", "error", "-print_format", "json", "-show_streams", file]
    }

    /// The video frame rate (the average, else the base rate), if it is a positive fraction.
    var frameRate: Double? {
        for text in [self.video?.avgFrameRate, self.video?.rFrameRate].compactMap({ $0 }) {
            let parts = text.split(separator: "/")
            guard parts.count == 2, let n = Double(parts[0]), let d = Double(parts[1]), n > 0, d > 0 else { continue }
            return n / d
        }
        return nil
    }

    /// The `CODECS` entry of the video stream when it is H.264 (`avc1.PPCCLL`, the constraint flags
    /// taken as none), else `nil`.
    var videoCodecs: String? {
        guard let video = self.video, video.codecName == "h264", let level = video.level, (1...255).contains(level)
        else { return nil }
        let profile: Int
        switch video.profile?.lowercased() {
        case "baseline", "constrained baseline": profile = 0x42
        case "main": profile = 0x4D
        case "high": profile = 0x64
        default: return nil
        }
        return "avc1." + String(format: "%02x00%02x", profile, level)
    }

    /// The `CODECS` entry of the audio stream (AAC-LC, AC-3, E-AC-3), else `nil`.
    var audioCodecs: String? {
        switch self.audio?.codecName {
        case "aac": "mp4a.40.2"
        case "ac3": "ac-3"
        case "eac3": "ec-3"
        default: nil
        }
    }

    /// The target of a presentation: the ladder of its multivariant playlist (or the probed size for
    /// a media playlist), its `CODECS` (or the probed codecs), the probed frame rate and audio
    /// parameters, and `targetDuration`.
    ///
    /// `nil` when the segment has no audio, or no video where the
    /// playlist states a video codec.
    func target(
        multivariant: MultivariantPlaylist?,
        targetDuration: Int,
        segmentBandwidth: Int
    ) -> ConditioningTarget? {
        guard let audio = self.audio, let channels = audio.channels, let rate = audio.sampleRate.flatMap({ Int($0) })
        else { return nil }
        let codecs = multivariant?.variants.first?.codecs ?? []
        let statedVideo = codecs.first {
            ["avc1", "avc3", "hvc1", "hev1", "dvh1", "dvhe", "av01"].contains($0.prefix(4))
        }
        let statedAudio = codecs.first { $0.hasPrefix("mp4a") || $0 == "ac-3" || $0 == "ec-3" }
        var ladder = multivariant.map { ConditioningTarget.ladder(of: $0.variants) } ?? []
        if ladder.isEmpty, let video = self.video, let width = video.width, let height = video.height {
            ladder = [.init(width: width, height: height, bandwidth: max(segmentBandwidth, 64_000))]
        }
        let videoCodec = self.video == nil ? nil : (statedVideo ?? self.videoCodecs ?? "unknown")
        return ConditioningTarget(
            renditions: videoCodec == nil ? [] : ladder,
            videoCodec: videoCodec,
            frameRate: self.frameRate ?? 30,
            audioCodec: statedAudio ?? self.audioCodecs ?? (audio.codecName ?? "unknown"),
            audioChannels: channels,
            audioSampleRate: rate,
            segmentDuration: targetDuration,
            audioBandwidth: max(segmentBandwidth, 16_000)
        )
    }
}
