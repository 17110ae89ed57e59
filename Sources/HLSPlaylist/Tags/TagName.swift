/// The name of a playlist tag, without the leading `#`: `EXTINF`, `EXT-X-DATERANGE`.
///
/// Tag names are an open vocabulary: every tag of draft-pantos-hls-rfc8216bis has a static member,
/// and any other name (a vendor tag, a tag from a later revision) is kept as written so it survives
/// a round trip.
///
/// ```swift
/// extension TagName {
///     static let comExample = TagName("EXT-X-COM-EXAMPLE")
/// }
/// ```
public struct TagName: RawRepresentable, PlaylistSpelling {
    /// The name as written, without the leading `#` (`EXT-X-DATERANGE`).
    public let rawValue: String

    /// Creates a tag name from its spelling without `#`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// `EXTM3U` (§4.4.1.1): the first line of every playlist.
    public static let m3u = TagName("EXTM3U")
    /// `EXT-X-VERSION` (§4.4.1.2).
    public static let version = TagName("EXT-X-VERSION")
    /// `EXT-X-INDEPENDENT-SEGMENTS` (§4.4.2.1).
    public static let independentSegments = TagName("EXT-X-INDEPENDENT-SEGMENTS")
    /// `EXT-X-START` (§4.4.2.2).
    public static let start = TagName("EXT-X-START")
    /// `EXT-X-DEFINE` (§4.4.2.3).
    public static let define = TagName("EXT-X-DEFINE")
    /// `EXT-X-TARGETDURATION` (§4.4.3.1).
    public static let targetDuration = TagName("EXT-X-TARGETDURATION")
    /// `EXT-X-MEDIA-SEQUENCE` (§4.4.3.2).
    public static let mediaSequence = TagName("EXT-X-MEDIA-SEQUENCE")
    /// `EXT-X-DISCONTINUITY-SEQUENCE` (§4.4.3.3).
    public static let discontinuitySequence = TagName("EXT-X-DISCONTINUITY-SEQUENCE")
    /// `EXT-X-ENDLIST` (§4.4.3.4).
    public static let endList = TagName("EXT-X-ENDLIST")
    /// `EXT-X-PLAYLIST-TYPE` (§4.4.3.5).
    public static let playlistType = TagName("EXT-X-PLAYLIST-TYPE")
    /// `EXT-X-I-FRAMES-ONLY` (§4.4.3.6).
    public static let iFramesOnly = TagName("EXT-X-I-FRAMES-ONLY")
    /// `EXT-X-PART-INF` (§4.4.3.7).
    public static let partInformation = TagName("EXT-X-PART-INF")
    /// `EXT-X-SERVER-CONTROL` (§4.4.3.8).
    public static let serverControl = TagName("EXT-X-SERVER-CONTROL")
    /// `EXTINF` (§4.4.4.1).
    public static let segmentInformation = TagName("EXTINF")
    /// `EXT-X-BYTERANGE` (§4.4.4.2).
    public static let byteRange = TagName("EXT-X-BYTERANGE")
    /// `EXT-X-DISCONTINUITY` (§4.4.4.3).
    public static let discontinuity = TagName("EXT-X-DISCONTINUITY")
    /// `EXT-X-KEY` (§4.4.4.4).
    public static let key = TagName("EXT-X-KEY")
    /// `EXT-X-MAP` (§4.4.4.5).
    public static let map = TagName("EXT-X-MAP")
    /// `EXT-X-PROGRAM-DATE-TIME` (§4.4.4.6).
    public static let programDateTime = TagName("EXT-X-PROGRAM-DATE-TIME")
    /// `EXT-X-GAP` (§4.4.4.7).
    public static let gap = TagName("EXT-X-GAP")
    /// `EXT-X-BITRATE` (§4.4.4.8).
    public static let bitrate = TagName("EXT-X-BITRATE")
    /// `EXT-X-PART` (§4.4.4.9).
    public static let part = TagName("EXT-X-PART")
    /// `EXT-X-DATERANGE` (§4.4.5.1).
    public static let dateRange = TagName("EXT-X-DATERANGE")
    /// `EXT-X-SKIP` (§4.4.5.2).
    public static let skip = TagName("EXT-X-SKIP")
    /// `EXT-X-PRELOAD-HINT` (§4.4.5.3).
    public static let preloadHint = TagName("EXT-X-PRELOAD-HINT")
    /// `EXT-X-RENDITION-REPORT` (§4.4.5.4).
    public static let renditionReport = TagName("EXT-X-RENDITION-REPORT")
    /// `EXT-X-MEDIA` (§4.4.6.1).
    public static let media = TagName("EXT-X-MEDIA")
    /// `EXT-X-STREAM-INF` (§4.4.6.2).
    public static let streamInformation = TagName("EXT-X-STREAM-INF")
    /// `EXT-X-I-FRAME-STREAM-INF` (§4.4.6.3).
    public static let iFrameStreamInformation = TagName("EXT-X-I-FRAME-STREAM-INF")
    /// `EXT-X-SESSION-DATA` (§4.4.6.4).
    public static let sessionData = TagName("EXT-X-SESSION-DATA")
    /// `EXT-X-SESSION-KEY` (§4.4.6.5).
    public static let sessionKey = TagName("EXT-X-SESSION-KEY")
    /// `EXT-X-CONTENT-STEERING` (§4.4.6.6).
    public static let contentSteering = TagName("EXT-X-CONTENT-STEERING")
}

/// The tags the parser knows, as a compact code used on hot paths.
enum KnownTag: UInt8, Sendable, CaseIterable {
    case m3u, version, independentSegments, start, define, targetDuration, mediaSequence
    case discontinuitySequence, endList, playlistType, iFramesOnly, partInformation, serverControl
    case segmentInformation, byteRange, discontinuity, key, map, programDateTime, gap, bitrate, part
    case dateRange, skip, preloadHint, renditionReport, media, streamInformation
    case iFrameStreamInformation, sessionData, sessionKey, contentSteering
    case unknown

    var name: TagName {
        switch self {
        case .m3u: .m3u
        case .version: .version
        case .independentSegments: .independentSegments
        case .start: .start
        case .define: .define
        case .targetDuration: .targetDuration
        case .mediaSequence: .mediaSequence
        case .discontinuitySequence: .discontinuitySequence
        case .endList: .endList
        case .playlistType: .playlistType
        case .iFramesOnly: .iFramesOnly
        case .partInformation: .partInformation
        case .serverControl: .serverControl
        case .segmentInformation: .segmentInformation
        case .byteRange: .byteRange
        case .discontinuity: .discontinuity
        case .key: .key
        case .map: .map
        case .programDateTime: .programDateTime
        case .gap: .gap
        case .bitrate: .bitrate
        case .part: .part
        case .dateRange: .dateRange
        case .skip: .skip
        case .preloadHint: .preloadHint
        case .renditionReport: .renditionReport
        case .media: .media
        case .streamInformation: .streamInformation
        case .iFrameStreamInformation: .iFrameStreamInformation
        case .sessionData: .sessionData
        case .sessionKey: .sessionKey
        case .contentSteering: .contentSteering
        case .unknown: TagName("")
        }
    }

    init(_ name: TagName) {
        self = KnownTag.lookup[name.rawValue] ?? .unknown
    }

    static let lookup: [String: KnownTag] = {
        var table: [String: KnownTag] = [:]
        for tag in KnownTag.allCases where tag != .unknown {
            table[tag.name.rawValue] = tag
        }
        return table
    }()

    /// The spelling without `#`, as a static string (no allocation, no reference counting).
    var spelling: StaticString {
        switch self {
        case .m3u: "EXTM3U"
        case .version: "EXT-X-VERSION"
        case .independentSegments: "EXT-X-INDEPENDENT-SEGMENTS"
        case .start: "EXT-X-START"
        case .define: "EXT-X-DEFINE"
        case .targetDuration: "EXT-X-TARGETDURATION"
        case .mediaSequence: "EXT-X-MEDIA-SEQUENCE"
        case .discontinuitySequence: "EXT-X-DISCONTINUITY-SEQUENCE"
        case .endList: "EXT-X-ENDLIST"
        case .playlistType: "EXT-X-PLAYLIST-TYPE"
        case .iFramesOnly: "EXT-X-I-FRAMES-ONLY"
        case .partInformation: "EXT-X-PART-INF"
        case .serverControl: "EXT-X-SERVER-CONTROL"
        case .segmentInformation: "EXTINF"
        case .byteRange: "EXT-X-BYTERANGE"
        case .discontinuity: "EXT-X-DISCONTINUITY"
        case .key: "EXT-X-KEY"
        case .map: "EXT-X-MAP"
        case .programDateTime: "EXT-X-PROGRAM-DATE-TIME"
        case .gap: "EXT-X-GAP"
        case .bitrate: "EXT-X-BITRATE"
        case .part: "EXT-X-PART"
        case .dateRange: "EXT-X-DATERANGE"
        case .skip: "EXT-X-SKIP"
        case .preloadHint: "EXT-X-PRELOAD-HINT"
        case .renditionReport: "EXT-X-RENDITION-REPORT"
        case .media: "EXT-X-MEDIA"
        case .streamInformation: "EXT-X-STREAM-INF"
        case .iFrameStreamInformation: "EXT-X-I-FRAME-STREAM-INF"
        case .sessionData: "EXT-X-SESSION-DATA"
        case .sessionKey: "EXT-X-SESSION-KEY"
        case .contentSteering: "EXT-X-CONTENT-STEERING"
        case .unknown: ""
        }
    }

    /// Whether `b[start..<end]` spells this tag.
    func matches(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        let spelling = self.spelling
        let length = spelling.utf8CodeUnitCount
        guard end - start == length else { return false }
        let p = UnsafeRawPointer(spelling.utf8Start)
        let q = UnsafeRawPointer(b.baseAddress! + start)
        // Eight bytes at a time (names are 6–28 bytes), then the tail.
        var k = 0
        while k + 8 <= length {
            if p.loadUnaligned(fromByteOffset: k, as: UInt64.self)
                != q.loadUnaligned(fromByteOffset: k, as: UInt64.self)
            {
                return false
            }
            k += 8
        }
        while k < length {
            if p.load(fromByteOffset: k, as: UInt8.self) != q.load(fromByteOffset: k, as: UInt8.self) { return false }
            k += 1
        }
        return true
    }

    /// Identifies a tag name in `bytes[start..<end]` (the part after `#`).
    static func match(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> KnownTag {
        let candidates: (KnownTag, KnownTag, KnownTag, KnownTag)
        switch end - start {
        case 6: candidates = (.segmentInformation, .m3u, .unknown, .unknown)
        case 9: candidates = (.key, .map, .gap, .unknown)
        case 10: candidates = (.part, .skip, .unknown, .unknown)
        case 11: candidates = (.start, .media, .unknown, .unknown)
        case 12: candidates = (.define, .unknown, .unknown, .unknown)
        case 13: candidates = (.version, .endList, .bitrate, .unknown)
        case 14: candidates = (.partInformation, .unknown, .unknown, .unknown)
        case 15: candidates = (.dateRange, .byteRange, .unknown, .unknown)
        case 16: candidates = (.streamInformation, .unknown, .unknown, .unknown)
        case 17: candidates = (.sessionKey, .unknown, .unknown, .unknown)
        case 18: candidates = (.preloadHint, .sessionData, .unknown, .unknown)
        case 19: candidates = (.discontinuity, .playlistType, .iFramesOnly, .unknown)
        case 20: candidates = (.targetDuration, .mediaSequence, .serverControl, .unknown)
        case 22: candidates = (.renditionReport, .contentSteering, .unknown, .unknown)
        case 23: candidates = (.programDateTime, .unknown, .unknown, .unknown)
        case 24: candidates = (.iFrameStreamInformation, .unknown, .unknown, .unknown)
        case 26: candidates = (.independentSegments, .unknown, .unknown, .unknown)
        case 28: candidates = (.discontinuitySequence, .unknown, .unknown, .unknown)
        default: return .unknown
        }
        if candidates.0.matches(b, start, end) { return candidates.0 }
        if candidates.1 != .unknown, candidates.1.matches(b, start, end) { return candidates.1 }
        if candidates.2 != .unknown, candidates.2.matches(b, start, end) { return candidates.2 }
        if candidates.3 != .unknown, candidates.3.matches(b, start, end) { return candidates.3 }
        return .unknown
    }

    /// What follows the colon.
    enum ValueForm {
        case none, integer, enumerated, segmentInformation, byteRange, date, attributes
    }

    var valueForm: ValueForm {
        switch self {
        case .m3u, .independentSegments, .endList, .iFramesOnly, .discontinuity, .gap: .none
        case .version, .targetDuration, .mediaSequence, .discontinuitySequence, .bitrate: .integer
        case .playlistType: .enumerated
        case .segmentInformation: .segmentInformation
        case .byteRange: .byteRange
        case .programDateTime: .date
        case .start, .define, .partInformation, .serverControl, .key, .map, .part, .dateRange, .skip,
            .preloadHint, .renditionReport, .media, .streamInformation, .iFrameStreamInformation,
            .sessionData, .sessionKey, .contentSteering:
            .attributes
        case .unknown: .none
        }
    }

    /// Attributes that the tag must carry (§4.4).
    var requiredAttributes: [AttributeName] {
        switch self {
        case .start: [.timeOffset]
        case .partInformation: [.partTarget]
        case .key, .sessionKey: [.method]
        case .map: [.uri]
        case .part: [.uri, .duration]
        case .dateRange: [.id]
        case .skip: [.skippedSegments]
        case .preloadHint: [.type, .uri]
        case .renditionReport: [.uri]
        case .media: [.type, .groupID, .name]
        case .streamInformation: [.bandwidth]
        case .iFrameStreamInformation: [.bandwidth, .uri]
        case .sessionData: [.dataID]
        case .contentSteering: [.serverURI]
        default: []
        }
    }

    /// Tags that only appear in media playlists.
    var isMediaPlaylistTag: Bool {
        switch self {
        case .targetDuration, .mediaSequence, .discontinuitySequence, .endList, .playlistType, .iFramesOnly,
            .partInformation, .serverControl, .segmentInformation, .byteRange, .discontinuity, .key, .map,
            .programDateTime, .gap, .bitrate, .part, .dateRange, .skip, .preloadHint, .renditionReport:
            true
        default: false
        }
    }

    /// Tags that only appear in multivariant playlists.
    var isMultivariantPlaylistTag: Bool {
        switch self {
        case .media, .streamInformation, .iFrameStreamInformation, .sessionData, .sessionKey, .contentSteering:
            true
        default: false
        }
    }

    /// Tags that apply to the next media segment (§4.4.4).
    var isSegmentTag: Bool {
        switch self {
        case .segmentInformation, .byteRange, .discontinuity, .key, .map, .programDateTime, .gap, .bitrate, .part:
            true
        default: false
        }
    }

    /// Tags that may appear at most once in a playlist.
    var isUnique: Bool {
        switch self {
        case .m3u, .version, .independentSegments, .start, .targetDuration, .mediaSequence, .discontinuitySequence,
            .endList, .playlistType, .iFramesOnly, .partInformation, .serverControl, .skip, .contentSteering:
            true
        default: false
        }
    }
}
