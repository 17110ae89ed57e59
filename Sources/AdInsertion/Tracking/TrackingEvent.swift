/// A tracking event of an ad, with VAST's name as its raw value (the names SVTA2053-2 uses too).
public enum TrackingEvent: String, Sendable, Hashable, Codable, CaseIterable {
    /// `impression`: the ad began to play (the first frame was shown).
    case impression
    /// `start`: playback of the ad began.
    case start
    /// `firstQuartile`: a quarter of the ad has played.
    case firstQuartile
    /// `midpoint`: half of the ad has played.
    case midpoint
    /// `thirdQuartile`: three quarters of the ad have played.
    case thirdQuartile
    /// `complete`: the ad played to its end.
    case complete
    /// `clickTracking`: the viewer followed the ad's click-through.
    case clickTracking
    /// `creativeView`: the creative was shown (with the impression).
    case creativeView
    /// `progress`: playback reached one of the ad's `offset`s (the URL's `offset` query value).
    case progress
    /// `skip`: the viewer skipped the ad.
    case skip
    /// `pause`: the viewer paused within the ad.
    case pause
    /// `resume`: the viewer resumed playback within the ad.
    case resume
    /// `mute`: the viewer muted the ad.
    case mute
    /// `unmute`: the viewer unmuted the ad.
    case unmute
    /// `error`: the ad could not be played (the URL's `errorcode` query value is the VAST error
    /// code, 100 to 999).
    case error

    /// Where in the ad the event fires, as a fraction of its duration (`nil` for the events that
    /// follow the viewer, a failure, or an offset of their own).
    public var fraction: Double? {
        switch self {
        case .impression, .start, .creativeView: 0
        case .firstQuartile: 0.25
        case .midpoint: 0.5
        case .thirdQuartile: 0.75
        case .complete: 1
        case .clickTracking, .progress, .skip, .pause, .resume, .mute, .unmute, .error: nil
        }
    }
}

/// A viewer's plan (the AirPlay talk's example, WWDC23 10275): what a break does for them.
public enum ViewerPlan: String, Sendable, Hashable, Codable, CaseIterable {
    /// `A`: ads, with the restrictions the playlist gives.
    case a = "A"
    /// `B`: no ads; asset lists come back empty.
    case b = "B"
    /// `C`: ads, skippable once the first ad of the pod has played.
    case c = "C"
}

extension TrackingEvent: CodingKeyRepresentable {
    /// The event's name as a key, so a map by event encodes as a JSON object.
    public var codingKey: any CodingKey { EventKey(stringValue: self.rawValue) }

    /// The event a key names, or `nil`.
    public init?<T: CodingKey>(codingKey: T) {
        self.init(rawValue: codingKey.stringValue)
    }

    private struct EventKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
