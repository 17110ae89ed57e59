import Foundation
import HLSPlaylist

/// What a receiver (a TV, a set-top box, a speaker) can decode, and which changes of format between
/// primary content and an interstitial cost it a visible transition.
///
/// The AirPlay talk (WWDC23 10275) asks services to test with a high-end receiver (Dolby Vision,
/// surround) and a low-end one (SDR, stereo AAC) and warns that receivers may need time to switch
/// decoders between an AVC primary and an HEVC ad. `Examples/receiver-high-end.json` and
/// `Examples/receiver-low-end.json` are the two kinds. Read one from JSON with
/// ``ReceiverProfile/decode(_:)``, which checks every value.
public struct ReceiverProfile: Sendable, Hashable, Codable {
    /// A differing parameter that makes the receiver switch decoders or output modes.
    public enum Change: String, Sendable, Hashable, Codable, CaseIterable {
        /// Video codec family (AVC to HEVC).
        case videoCodec
        /// Dynamic range (SDR to PQ).
        case videoRange
        /// Frame rate.
        case frameRate
        /// Picture aspect ratio.
        case aspectRatio
        /// Audio codec family (AAC to E-AC-3).
        case audioCodec
        /// Audio channel layout (stereo to 5.1).
        case channelLayout
        /// Audio sample rate (48 kHz to 44.1 kHz).
        case sampleRate
    }

    /// The receiver's name, for reports.
    public var name: String
    /// Video codec families it decodes (``CodecFamily``: `avc`, `hevc`, `dolby-vision`, `av1`).
    public var videoCodecs: Set<String>
    /// Video ranges it shows: `SDR`, `PQ`, `HLG`.
    public var videoRanges: Set<String>
    /// The largest picture it decodes.
    public var maximumWidth: Int
    /// The largest picture height it decodes.
    public var maximumHeight: Int
    /// The highest frame rate it decodes.
    public var maximumFrameRate: Double
    /// Audio codec families it decodes (`aac`, `ac-3`, `ec-3`, `alac`, `flac`, `opus`).
    public var audioCodecs: Set<String>
    /// The most audio channels it plays.
    public var maximumAudioChannels: Int
    /// The changes that cost this receiver a transition delay (a high-end receiver switches most
    /// seamlessly; a low-end one stalls on any).
    public var slowTransitions: Set<Change>

    /// Creates a profile.
    public init(
        name: String,
        videoCodecs: Set<String>,
        videoRanges: Set<String>,
        maximumWidth: Int,
        maximumHeight: Int,
        maximumFrameRate: Double,
        audioCodecs: Set<String>,
        maximumAudioChannels: Int,
        slowTransitions: Set<Change>
    ) {
        self.name = name
        self.videoCodecs = videoCodecs
        self.videoRanges = videoRanges
        self.maximumWidth = maximumWidth
        self.maximumHeight = maximumHeight
        self.maximumFrameRate = maximumFrameRate
        self.audioCodecs = audioCodecs
        self.maximumAudioChannels = maximumAudioChannels
        self.slowTransitions = slowTransitions
    }

    /// A profile problem: the field and what is wrong with it.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// The JSON key, or `""` for the document.
        public var field: String
        /// What is wrong.
        public var message: String
        /// `field: message`.
        public var description: String { self.field.isEmpty ? self.message : "\(self.field): \(self.message)" }
    }

    /// The largest profile document read.
    public static let maximumDocumentBytes = 64 * 1024

    /// Checks every value: names bounded, sizes and rates positive and finite, nothing empty that
    /// must not be.
    public func problems() -> [Problem] {
        var problems: [Problem] = []
        if self.name.isEmpty || self.name.utf8.count > 200 {
            problems.append(Problem(field: "name", message: "must be 1 to 200 bytes"))
        }
        if self.maximumWidth <= 0 || self.maximumWidth > 100_000 {
            problems.append(Problem(field: "maximumWidth", message: "must be 1 to 100000"))
        }
        if self.maximumHeight <= 0 || self.maximumHeight > 100_000 {
            problems.append(Problem(field: "maximumHeight", message: "must be 1 to 100000"))
        }
        if !self.maximumFrameRate.isFinite || self.maximumFrameRate <= 0 || self.maximumFrameRate > 1_000 {
            problems.append(Problem(field: "maximumFrameRate", message: "must be a number above 0 and at most 1000"))
        }
        if self.maximumAudioChannels <= 0 || self.maximumAudioChannels > 64 {
            problems.append(Problem(field: "maximumAudioChannels", message: "must be 1 to 64"))
        }
        if self.audioCodecs.isEmpty {
            problems.append(Problem(field: "audioCodecs", message: "must name at least one codec"))
        }
        for (field, names) in [
            ("videoCodecs", self.videoCodecs), ("videoRanges", self.videoRanges), ("audioCodecs", self.audioCodecs),
        ]
        where names.count > 32 || names.contains(where: { $0.isEmpty || $0.utf8.count > 40 }) {
            problems.append(Problem(field: field, message: "at most 32 names of 1 to 40 bytes"))
        }
        return problems
    }

    /// Why the receiver cannot play a format at all; empty when it can.
    public func unsupported(_ format: MediaFormat) -> [String] {
        var reasons: [String] = []
        if let video = format.videoCodec, !self.videoCodecs.contains(video) {
            reasons.append("no \(video) video decoder")
        }
        if format.videoCodec != nil, !self.videoRanges.contains(format.videoRange) {
            reasons.append("cannot show \(format.videoRange) video")
        }
        if let width = format.width, let height = format.height,
            width > self.maximumWidth || height > self.maximumHeight
        {
            reasons.append("\(width)x\(height) is larger than \(self.maximumWidth)x\(self.maximumHeight)")
        }
        if let rate = format.frameRate, rate > self.maximumFrameRate {
            reasons.append("\(rate) fps is above \(self.maximumFrameRate) fps")
        }
        if let audio = format.audioCodec, !self.audioCodecs.contains(audio) {
            reasons.append("no \(audio) audio decoder")
        }
        if let channels = format.channelCount, channels > self.maximumAudioChannels {
            reasons.append("\(channels) audio channels, more than \(self.maximumAudioChannels)")
        }
        return reasons
    }

    /// The variant of a multivariant playlist this receiver would play: the highest `BANDWIDTH`
    /// among those it can decode, or `nil` when it can decode none.
    public func chooseVariant(in playlist: MultivariantPlaylist) -> VariantStream? {
        let renditions = playlist.renditions
        return playlist.variants
            .filter { self.unsupported(MediaFormat(variant: $0, renditions: renditions)).isEmpty }
            .max { $0.bandwidth < $1.bandwidth }
    }
}

extension ReceiverProfile {
    /// A profile document that could not be used: every problem, with its field.
    public struct DecodingError: Error, Sendable, Hashable, CustomStringConvertible {
        /// `profile-too-large`, `profile-not-json` or `profile-invalid`.
        public var code: String
        /// Each problem, with its JSON key.
        public var problems: [Problem]
        /// The code and the problems.
        public var description: String { "\(self.code): " + self.problems.map(\.description).joined(separator: "; ") }
    }

    /// Reads and checks a profile document (JSON with the property names as keys).
    public static func decode(_ bytes: [UInt8]) throws(DecodingError) -> ReceiverProfile {
        guard bytes.count <= Self.maximumDocumentBytes else {
            throw DecodingError(
                code: "profile-too-large",
                problems: [Problem(field: "", message: "the document is over \(Self.maximumDocumentBytes) bytes")]
            )
        }
        let profile: ReceiverProfile
        do {
            profile = try JSONDecoder().decode(ReceiverProfile.self, from: Data(bytes))
        } catch {
            throw DecodingError(code: "profile-not-json", problems: [Problem(field: "", message: Self.describe(error))])
        }
        let problems = profile.problems()
        guard problems.isEmpty else { throw DecodingError(code: "profile-invalid", problems: problems) }
        return profile
    }

    static func describe(_ error: any Error) -> String {
        switch error as? Swift.DecodingError {
        case .keyNotFound(let key, _): "missing key \"\(key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            "at \(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription.prefix(200))"
        default: "not a JSON object"
        }
    }
}
