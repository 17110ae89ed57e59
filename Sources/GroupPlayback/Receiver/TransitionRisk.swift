/// A risk that a receiver shows a visible or audible gap when it moves from the primary content to
/// an interstitial (or back), because the two need different decoders or output modes.
public struct TransitionRisk: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What differs; `nil` when the receiver cannot play the interstitial at all.
    public var change: ReceiverProfile.Change?
    /// The primary's value.
    public var primary: String
    /// The interstitial's value.
    public var interstitial: String
    /// The risk in words.
    public var message: String

    /// Creates a risk.
    public init(change: ReceiverProfile.Change?, primary: String, interstitial: String, message: String) {
        self.change = change
        self.primary = primary
        self.interstitial = interstitial
        self.message = message
    }

    /// The message.
    public var description: String { self.message }

    /// What keeps a receiver from playing an interstitial at all (a decoder it lacks, more channels
    /// than it outputs, …): the only risks that can be told when the primary's format is unknown (a
    /// primary given as a media playlist has no `CODECS` to compare with).
    public static func unplayable(_ interstitial: MediaFormat, on profile: ReceiverProfile) -> [TransitionRisk] {
        profile.unsupported(interstitial).map {
            TransitionRisk(
                change: nil,
                primary: "",
                interstitial: "",
                message: "\(profile.name) cannot play the interstitial: \($0)"
            )
        }
    }

    /// The risks of moving between a primary format and an interstitial format on a receiver: first
    /// whatever makes the interstitial unplayable, then each change the receiver handles slowly.
    ///
    /// The talk's advice is to match video codec, frame rate and aspect ratio, and audio codec,
    /// sample rate and channel layout.
    public static func assess(
        primary: MediaFormat,
        interstitial: MediaFormat,
        on profile: ReceiverProfile
    ) -> [TransitionRisk] {
        var risks = Self.unplayable(interstitial, on: profile)
        func compare(_ change: ReceiverProfile.Change, _ a: String?, _ b: String?, _ what: String) {
            guard profile.slowTransitions.contains(change), let a, let b, a != b else { return }
            risks.append(
                TransitionRisk(
                    change: change,
                    primary: a,
                    interstitial: b,
                    message: "\(what) changes from \(a) to \(b): \(profile.name) may pause to switch"
                )
            )
        }
        // A track that one side has and the other lacks (an audio-only ad in a video primary): the
        // receiver tears down or sets up a decoder and an output, the slowest change of all. Told
        // only when both sides' `CODECS` name a codec, since a format read without them is unknown,
        // not empty.
        func presence(_ change: ReceiverProfile.Change, _ a: String?, _ b: String?, _ track: String) {
            guard profile.slowTransitions.contains(change), primary.statesCodecs, interstitial.statesCodecs,
                (a == nil) != (b == nil)
            else { return }
            let message =
                a != nil
                ? "the interstitial has no \(track) where the primary has \(a ?? ""): \(profile.name) may pause to switch"
                : "the interstitial has \(track) (\(b ?? "")) where the primary has none: \(profile.name) may pause to switch"
            risks.append(
                TransitionRisk(change: change, primary: a ?? "none", interstitial: b ?? "none", message: message)
            )
        }
        presence(.videoCodec, primary.videoCodec, interstitial.videoCodec, "video")
        presence(.audioCodec, primary.audioCodec, interstitial.audioCodec, "audio")
        let rate = { (value: Double?) in value.map { String(format3: $0) } }
        compare(.videoCodec, primary.videoCodec, interstitial.videoCodec, "the video codec")
        if primary.videoCodec != nil, interstitial.videoCodec != nil {
            compare(.videoRange, primary.videoRange, interstitial.videoRange, "the video range")
        }
        compare(.frameRate, rate(primary.frameRate), rate(interstitial.frameRate), "the frame rate")
        compare(.aspectRatio, primary.aspectRatio, interstitial.aspectRatio, "the aspect ratio")
        compare(.audioCodec, primary.audioCodec, interstitial.audioCodec, "the audio codec")
        compare(.channelLayout, primary.audioChannels, interstitial.audioChannels, "the channel layout")
        compare(
            .sampleRate,
            primary.audioSampleRate.map { "\($0) Hz" },
            interstitial.audioSampleRate.map { "\($0) Hz" },
            "the sample rate"
        )
        return risks
    }
}

extension String {
    /// A rate with up to three decimals and no trailing zeros (`29.97`, `25`).
    init(format3 value: Double) {
        let thousandths = (value * 1000).rounded()
        guard thousandths.isFinite, abs(thousandths) < 1e15 else {
            self = "\(value)"
            return
        }
        let whole = Int64(thousandths) / 1000
        var fraction = String(abs(Int64(thousandths) % 1000))
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        self = fraction.isEmpty ? "\(whole)" : "\(whole).\(fraction)"
    }
}
