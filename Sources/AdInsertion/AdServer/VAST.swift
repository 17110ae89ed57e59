import HLSInterstitials
import HLSPlaylist

/// A VAST 4.x response: ads, or none with the root `Error` URLs.
public struct VASTDocument: Sendable, Hashable {
    /// The `version` attribute.
    public var version: String?
    /// The ads, in document order (a pod is those with a `sequence`).
    public var ads: [VASTAd]
    /// The root `Error` URLs, fired when the response holds no ad.
    public var errorURLs: [String]

    /// Creates a document.
    public init(version: String? = nil, ads: [VASTAd] = [], errorURLs: [String] = []) {
        self.version = version
        self.ads = ads
        self.errorURLs = errorURLs
    }
}

/// One `Ad` of a VAST response: an `InLine` ad or a `Wrapper` that points to another response.
public struct VASTAd: Sendable, Hashable {
    /// What the ad holds.
    public enum Kind: Sendable, Hashable {
        /// An `InLine` ad: its creatives are here.
        case inLine
        /// A `Wrapper`: `VASTAdTagURI` names the next response.
        case wrapper(VASTWrapper)
    }

    /// The `id` attribute.
    public var id: String?
    /// The `sequence` attribute: the ad's place in a pod; `nil` for a stand-alone ad.
    public var sequence: Int?
    /// InLine or Wrapper.
    public var kind: Kind
    /// The `AdSystem` text.
    public var adSystem: String?
    /// `Impression` URLs.
    public var impressionURLs: [String]
    /// `Error` URLs.
    public var errorURLs: [String]
    /// The creatives (for a wrapper, those whose tracking is carried forward).
    public var creatives: [VASTCreative]
    /// The line of the `Ad` element.
    public var line: Int

    /// Creates an ad.
    public init(
        id: String? = nil,
        sequence: Int? = nil,
        kind: Kind,
        adSystem: String? = nil,
        impressionURLs: [String] = [],
        errorURLs: [String] = [],
        creatives: [VASTCreative] = [],
        line: Int = 1
    ) {
        self.id = id
        self.sequence = sequence
        self.kind = kind
        self.adSystem = adSystem
        self.impressionURLs = impressionURLs
        self.errorURLs = errorURLs
        self.creatives = creatives
        self.line = line
    }
}

/// What a `Wrapper` says about the response it points to.
public struct VASTWrapper: Sendable, Hashable {
    /// `VASTAdTagURI`: the next response.
    public var adTagURI: String
    /// `followAdditionalWrappers` (default `true`).
    public var followsAdditionalWrappers: Bool
    /// `allowMultipleAds` (default `false`): whether a pod may answer the wrapper.
    public var allowsMultipleAds: Bool

    /// Creates a wrapper.
    public init(adTagURI: String, followsAdditionalWrappers: Bool = true, allowsMultipleAds: Bool = false) {
        self.adTagURI = adTagURI
        self.followsAdditionalWrappers = followsAdditionalWrappers
        self.allowsMultipleAds = allowsMultipleAds
    }
}

/// One `Creative` of an ad.
public struct VASTCreative: Sendable, Hashable {
    /// The `id` attribute.
    public var id: String?
    /// The `adId` attribute.
    public var adID: String?
    /// The `UniversalAdId` text (`idRegistry` prefix not included), when it names one.
    public var universalAdID: String?
    /// The `UniversalAdId@idRegistry` attribute (`ad-id.org`, `clearcast.co.uk`, …), when given.
    public var universalAdIDRegistry: String?
    /// The `Linear` part, if any (non-linear and companion creatives are not played here).
    public var linear: VASTLinear?
    /// Whether the creative has a `NonLinearAds` part (overlays, which an interstitial cannot
    /// play: an ad of such creatives alone is VAST error 201).
    public var hasNonLinear = false

    /// Creates a creative.
    public init(id: String? = nil, adID: String? = nil, universalAdID: String? = nil, linear: VASTLinear? = nil) {
        self.id = id
        self.adID = adID
        self.universalAdID = universalAdID
        self.linear = linear
    }
}

/// A `Linear` creative: its duration, media files, tracking events and clicks.
public struct VASTLinear: Sendable, Hashable {
    /// `Duration`, when valid.
    public var duration: MediaTime?
    /// `MediaFiles/MediaFile`.
    public var mediaFiles: [VASTMediaFile]
    /// `TrackingEvents/Tracking`: event name (`start`, `firstQuartile`, …) and URL, in order.
    public var tracking: [VASTTrackingURL]
    /// `VideoClicks/ClickThrough`.
    public var clickThrough: String?
    /// `VideoClicks/ClickTracking`.
    public var clickTracking: [String]
    /// `Linear@skipoffset`: when the ad may be skipped (`HH:MM:SS(.mmm)` or `n%`), `nil` when it
    /// may not.
    public var skipOffset: VASTOffset?

    /// Creates a linear creative.
    public init(
        duration: MediaTime? = nil,
        mediaFiles: [VASTMediaFile] = [],
        tracking: [VASTTrackingURL] = [],
        clickThrough: String? = nil,
        clickTracking: [String] = []
    ) {
        self.duration = duration
        self.mediaFiles = mediaFiles
        self.tracking = tracking
        self.clickThrough = clickThrough
        self.clickTracking = clickTracking
    }
}

/// One `Tracking` element.
public struct VASTTrackingURL: Sendable, Hashable {
    /// The `event` attribute (`start`, `firstQuartile`, `midpoint`, `thirdQuartile`, `complete`, …).
    public var event: String
    /// The URL.
    public var url: String
    /// The `offset` attribute of a `progress` event (`HH:MM:SS(.mmm)` or `n%`), when valid.
    public var offset: VASTOffset?

    /// Creates a tracking URL.
    public init(event: String, url: String, offset: VASTOffset? = nil) {
        self.event = event
        self.url = url
        self.offset = offset
    }
}

/// A moment in a linear creative as VAST writes `Tracking@offset` and `Linear@skipoffset`: a time
/// from the creative's start (`HH:MM:SS` or `HH:MM:SS.mmm`) or a share of its duration (`n%`,
/// 0 to 100).
///
/// Encoded as its VAST text.
public enum VASTOffset: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A time from the creative's start.
    case time(MediaTime)
    /// A percentage of the creative's duration, 0 to 100.
    case percent(Double)

    /// Reads `HH:MM:SS(.mmm)` (within a day) or `n%` (0 to 100, decimals allowed); `nil` otherwise.
    public init?(_ text: String) {
        let trimmed = MarkupTree.trimmed(text)
        if trimmed.hasSuffix("%") {
            let number = trimmed.dropLast()
            guard number.utf8.count <= 12, number.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E }),
                let value = Double(number), value.isFinite, (0...100).contains(value)
            else { return nil }
            self = .percent(value)
        } else if let time = VASTDecoder.duration(trimmed) {
            self = .time(time)
        } else {
            return nil
        }
    }

    /// The moment in a creative of `duration`: a time as written (not past the end), a percentage
    /// of the duration.
    public func moment(in duration: MediaTime) -> MediaTime {
        switch self {
        case .time(let time): return MediaTime.min(time, duration)
        case .percent(let share):
            return MediaTime(nanoseconds: Int64((Double(duration.nanoseconds) * share / 100).rounded()))
        }
    }

    /// The VAST text: `HH:MM:SS.mmm` or `n%`.
    public var description: String {
        switch self {
        case .time(let time): return VASTMacros.playhead(time)
        case .percent(let share):
            return share == share.rounded() ? "\(Int(share))%" : "\(share)%"
        }
    }

    /// Decodes the VAST text.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = VASTOffset(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not a VAST offset: \(text)")
            )
        }
        self = value
    }

    /// Encodes the VAST text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.description)
    }
}

/// One `MediaFile`.
public struct VASTMediaFile: Sendable, Hashable {
    /// The URL.
    public var url: String
    /// `type`: a MIME type (`application/x-mpegURL`, `video/mp4`).
    public var type: String
    /// `delivery`: `progressive` or `streaming`.
    public var delivery: String?
    /// `bitrate` in kbit/s, or the middle of `minBitrate` … `maxBitrate`.
    public var bitrate: Int?
    /// `width`.
    public var width: Int?
    /// `height`.
    public var height: Int?
    /// `apiFramework` (`VPAID`, `SIMID`, …): the file is an interactive unit for that API, not plain
    /// media; `nil` for plain media.
    public var apiFramework: String?

    /// Creates a media file.
    public init(
        url: String,
        type: String,
        delivery: String? = nil,
        bitrate: Int? = nil,
        width: Int? = nil,
        height: Int? = nil,
        apiFramework: String? = nil
    ) {
        self.url = url
        self.type = type
        self.delivery = delivery
        self.bitrate = bitrate
        self.width = width
        self.height = height
        self.apiFramework = apiFramework
    }

    /// The MIME types of HLS playlists, lowercased.
    public static let hlsTypes: Set<String> = ["application/x-mpegurl", "application/vnd.apple.mpegurl"]

    /// Whether the file is an HLS playlist (an interstitial asset must be one).
    public var isHLS: Bool { Self.hlsTypes.contains(self.type.lowercased()) }
}

/// A VAST error code (VAST 4.x, section 2.3.6.3), sent in `[ERRORCODE]`.
public struct VASTErrorCode: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The number.
    public var rawValue: Int

    /// Creates a code.
    public init(_ rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The number as text.
    public var description: String { String(self.rawValue) }

    /// 100: XML parsing error.
    public static let xmlParsing = VASTErrorCode(100)
    /// 101: VAST schema validation error.
    public static let schemaValidation = VASTErrorCode(101)
    /// 102: VAST version of the response not supported.
    public static let unsupportedVersion = VASTErrorCode(102)
    /// 201: the player expected a different linearity (a non-linear ad where a linear one plays).
    public static let unexpectedLinearity = VASTErrorCode(201)
    /// 300: general wrapper error.
    public static let wrapper = VASTErrorCode(300)
    /// 301: timeout of the VAST URI of a wrapper (unavailable or too slow).
    public static let wrapperTimeout = VASTErrorCode(301)
    /// 302: wrapper limit reached.
    public static let wrapperLimit = VASTErrorCode(302)
    /// 303: no VAST response after one or more wrappers (or no ad at all).
    public static let noAdsAfterWrapper = VASTErrorCode(303)
    /// 403: no supported media file found for the linear ad.
    public static let noSupportedMediaFile = VASTErrorCode(403)
    /// 900: undefined error.
    public static let undefined = VASTErrorCode(900)
}

/// A VAST or VMAP document that cannot be used at all.
public struct VASTError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The VAST error code to report (`100` for XML errors).
    public var code: VASTErrorCode
    /// What is wrong.
    public var message: String
    /// The 1-based line.
    public var line: Int

    /// Creates an error.
    public init(code: VASTErrorCode, message: String, line: Int) {
        self.code = code
        self.message = message
        self.line = line
    }

    /// The message with its line and code.
    public var description: String { "line \(self.line): \(self.message) (VAST error \(self.code))" }
}

/// Something a VAST or VMAP document gets wrong that the decoder could step over.
public struct VASTDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The rule broken (`vast.duration`, `vast.url`, …).
    public var rule: String
    /// What is wrong.
    public var message: String
    /// The 1-based line.
    public var line: Int
    /// How to fix it.
    public var fix: String

    /// Creates a diagnostic.
    public init(rule: String, message: String, line: Int, fix: String) {
        self.rule = rule
        self.message = message
        self.line = line
        self.fix = fix
    }

    /// The diagnostic as one line.
    public var description: String { "line \(self.line): \(self.message) [\(self.rule)] (\(self.fix))" }
}
