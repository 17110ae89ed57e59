import HLSPlaylist

/// The decoder-relevant parameters of one variant stream with its audio rendition, read from the
/// multivariant playlist's `CODECS`, `SUPPLEMENTAL-CODECS`, `VIDEO-RANGE`, `RESOLUTION`, `FRAME-RATE`
/// and the audio rendition's `CHANNELS` and `SAMPLE-RATE`.
///
/// A playlist states no audio bit depth (which the AirPlay talk also lists), and `SAMPLE-RATE` is
/// optional, so those are compared only when stated; a receiver finds the rest in the media.
public struct MediaFormat: Sendable, Hashable, Codable {
    /// The video codec family (``CodecFamily``), or `nil` for audio-only.
    public var videoCodec: String?
    /// `SDR`, `PQ` or `HLG` (`VIDEO-RANGE`; SDR when absent).
    public var videoRange: String
    /// Width and height in pixels, if stated.
    public var width: Int?
    /// Height in pixels, if stated.
    public var height: Int?
    /// Frames per second, if stated.
    public var frameRate: Double?
    /// The audio codec family, if any.
    public var audioCodec: String?
    /// The audio channel layout (`CHANNELS`: `2`, `6`, `16/JOC`), if stated.
    public var audioChannels: String?
    /// The audio sample rate in hertz (`SAMPLE-RATE`), if stated.
    public var audioSampleRate: Int?

    /// Creates a format.
    public init(
        videoCodec: String? = nil,
        videoRange: String = "SDR",
        width: Int? = nil,
        height: Int? = nil,
        frameRate: Double? = nil,
        audioCodec: String? = nil,
        audioChannels: String? = nil,
        audioSampleRate: Int? = nil
    ) {
        self.videoCodec = videoCodec
        self.videoRange = videoRange
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.audioCodec = audioCodec
        self.audioChannels = audioChannels
        self.audioSampleRate = audioSampleRate
    }

    /// Reads the format of a variant stream, with the channels and sample rate of its audio group's
    /// default rendition (or its first).
    public init(variant: VariantStream, renditions: [Rendition] = []) {
        var video: String?
        var audio: String?
        for codec in variant.codecs {
            switch CodecFamily(codec) {
            case .video(let family): video = video ?? family
            case .audio(let family): audio = audio ?? family
            case .other: break
            }
        }
        // Dolby Vision signalled as a supplement of an HEVC base layer.
        if let supplemental = variant.attributes[.supplementalCodecs]?.stringList,
            supplemental.contains(where: { CodecFamily($0) == .video(CodecFamily.dolbyVision) })
        {
            video = CodecFamily.dolbyVision
        }
        self.init(
            videoCodec: video,
            videoRange: variant.videoRange ?? "SDR",
            width: variant.resolution?.width,
            height: variant.resolution?.height,
            frameRate: variant.frameRate,
            audioCodec: audio,
            audioChannels: nil
        )
        if let group = variant.audioGroup {
            let members = renditions.filter { $0.type == "AUDIO" && $0.groupID == group }
            let rendition = members.first(where: \.isDefault) ?? members.first
            self.audioChannels = rendition?.channels
            self.audioSampleRate = rendition?.attributes[.sampleRate]?.integer
        }
    }

    /// The picture's aspect ratio in lowest terms (`16:9`), if the resolution is stated.
    public var aspectRatio: String? {
        guard let width, let height, width > 0, height > 0 else { return nil }
        var (a, b) = (width, height)
        while b != 0 { (a, b) = (b, a % b) }
        return "\(width / a):\(height / a)"
    }

    /// Whether the format names any codec: without `CODECS`, a missing video or audio codec means
    /// unknown rather than absent.
    public var statesCodecs: Bool { self.videoCodec != nil || self.audioCodec != nil }

    /// The number of audio channels (the part of `CHANNELS` before any `/`), if stated.
    public var channelCount: Int? {
        self.audioChannels.flatMap { Int($0.prefix { $0 != "/" }) }
    }
}

/// The family of a `CODECS` entry, as decoders see it: `avc1.640028` and `avc3.4d401f` are both AVC.
public enum CodecFamily: Sendable, Hashable {
    /// A video family (`avc`, `hevc`, `dolby-vision`, `av1`, `vp9`).
    case video(String)
    /// An audio family (`aac`, `mp3`, `ac-3`, `ec-3`, `ac-4`, `alac`, `flac`, `opus`).
    case audio(String)
    /// Subtitles, captions or anything unknown.
    case other

    /// The Dolby Vision family name.
    public static let dolbyVision = "dolby-vision"

    /// Classifies one `CODECS` entry.
    public init(_ codec: String) {
        let parts = codec.split(separator: ".", omittingEmptySubsequences: false).map { $0.lowercased() }
        switch parts.first ?? "" {
        case "avc1", "avc3": self = .video("avc")
        case "hvc1", "hev1": self = .video("hevc")
        case "dvh1", "dvhe", "dva1", "dvav", "dav1": self = .video(Self.dolbyVision)
        case "av01": self = .video("av1")
        case "vp09", "vp08": self = .video("vp9")
        case "mp4a":
            switch parts.dropFirst().joined(separator: ".") {
            case "40.34", "6b", "69": self = .audio("mp3")
            case "a5": self = .audio("ac-3")
            case "a6": self = .audio("ec-3")
            default: self = .audio("aac")
            }
        case "ac-3": self = .audio("ac-3")
        case "ec-3": self = .audio("ec-3")
        case "ac-4": self = .audio("ac-4")
        case "alac": self = .audio("alac")
        case "flac": self = .audio("flac")
        case "opus": self = .audio("opus")
        default: self = .other
        }
    }
}
