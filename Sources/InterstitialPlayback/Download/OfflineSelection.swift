import HLSPlaylist

/// What an offline copy keeps of a multivariant playlist: one variant and the renditions that go
/// with it, chosen the same way for the primary and for every interstitial asset (as AVFoundation
/// applies one set of interstitial media-selection criteria to the assets it downloads).
public struct OfflineSelection: Sendable, Hashable {
    /// How the variant is chosen.
    public enum VariantCriterion: Sendable, Hashable {
        /// The highest `BANDWIDTH`.
        case highest
        /// The highest `BANDWIDTH` at or under this many bits per second (the lowest when none is).
        case bandwidth(Int)
        /// The largest `RESOLUTION` at or under this one, in height then width (the smallest when
        /// none is); among equal resolutions the highest `BANDWIDTH`.
        case resolution(width: Int, height: Int)
    }

    /// What was chosen from one multivariant playlist.
    public struct Choice: Sendable, Hashable {
        /// The variant.
        public var variant: VariantStream
        /// Its audio rendition with a `URI` (`nil`: audio is in the variant, or there is none).
        public var audio: Rendition?
        /// Its subtitles rendition (`nil`: none chosen).
        public var subtitles: Rendition?
        /// The renditions of the variant's groups without a `URI` (carried in the variant, such
        /// as closed captions), kept as they are.
        public var carried: [Rendition]
    }

    /// How the variant is chosen.
    public var variant: VariantCriterion
    /// The preferred language of audio and subtitles (an RFC 5646 tag; `en` matches `en-US`).
    public var language: String?

    /// Creates a selection.
    public init(variant: VariantCriterion = .highest, language: String? = nil) {
        self.variant = variant
        self.language = language
    }

    /// Reads a `--variant` value: a bandwidth in bits per second (`1500000`) or a resolution
    /// (`1280x720`); `nil` when it is neither or out of range.
    public static func criterion(_ text: String) -> VariantCriterion? {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        func number(_ part: Substring, limit: Int) -> Int? {
            guard !part.isEmpty, part.count <= 10, part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(part),
                value > 0, value <= limit
            else { return nil }
            return value
        }
        if parts.count == 1 { return number(parts[0], limit: 1_000_000_000_000).map { .bandwidth($0) } }
        guard parts.count == 2, let width = number(parts[0], limit: 65_535), let height = number(parts[1], limit: 65_535)
        else { return nil }
        return .resolution(width: width, height: height)
    }

    /// The variant and renditions to keep from `playlist`, or `nil` when it has no variant.
    public func choose(in playlist: MultivariantPlaylist) -> Choice? {
        let variants = playlist.variants
        guard !variants.isEmpty else { return nil }
        let byBandwidth = variants.sorted { $0.bandwidth < $1.bandwidth }
        let chosen: VariantStream
        switch self.variant {
        case .highest:
            chosen = byBandwidth.last!
        case .bandwidth(let limit):
            chosen = byBandwidth.last { $0.bandwidth <= limit } ?? byBandwidth.first!
        case .resolution(let width, let height):
            func size(_ variant: VariantStream) -> (Int, Int, Int) {
                (variant.resolution?.height ?? 0, variant.resolution?.width ?? 0, variant.bandwidth)
            }
            let ordered = variants.sorted { size($0) < size($1) }
            chosen = ordered.last { size($0).0 < height || (size($0).0 == height && size($0).1 <= width) } ?? ordered.first!
        }
        let renditions = playlist.renditions
        func group(_ type: String, _ id: String?) -> [Rendition] {
            guard let id else { return [] }
            return renditions.filter { $0.type == type && $0.groupID == id }
        }
        let audio = self.pick(group("AUDIO", chosen.audioGroup).filter { $0.uri != nil }, fallback: true)
        let subtitles = self.pick(group("SUBTITLES", chosen.subtitlesGroup).filter { $0.uri != nil }, fallback: false)
        let carried = (group("AUDIO", chosen.audioGroup) + group("VIDEO", chosen.videoGroup)
            + group("CLOSED-CAPTIONS", chosen.attributes[AttributeName("CLOSED-CAPTIONS")]?.quotedString))
            .filter { $0.uri == nil }
        return Choice(variant: chosen, audio: audio, subtitles: subtitles, carried: carried)
    }

    /// The rendition in the preferred language, else the default one, else (when `fallback`) the
    /// first.
    func pick(_ renditions: [Rendition], fallback: Bool) -> Rendition? {
        if let language = self.language?.lowercased() {
            let matching = renditions.first {
                guard let own = $0.language?.lowercased() else { return false }
                return own == language || own.hasPrefix(language + "-") || language.hasPrefix(own + "-")
            }
            if let matching { return matching }
        }
        return renditions.first(where: \.isDefault) ?? (fallback ? renditions.first : nil)
    }
}
