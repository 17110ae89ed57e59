import HLSPlaylist

/// One ad of the inventory: an HLS asset, its duration and what it is worth.
public struct Creative: Sendable, Hashable, Codable {
    /// A stable identifier, used to avoid repeats to the same viewer.
    public var id: String
    /// The asset's playlist (usually multivariant): an absolute URI, or a path on this server
    /// (`/media/...`) that the server makes absolute when it answers.
    public var uri: String
    /// The asset's duration.
    public var duration: MediaTime
    /// How much the ad is worth; higher values are placed first.
    public var value: Double
    /// The ad server's beacon URLs per tracking event, called when a viewer's beacon for the event
    /// arrives (`nil` or empty: beacons are recorded, not forwarded).
    public var tracking: [TrackingEvent: [String]]?
    /// The presentations whose pods this creative may fill, as scopes (`vod-{asset}`,
    /// `live-{channel}`; configuration and admin key `scopes`); `nil` (the default): any.
    ///
    /// The creative's side of targeting, as ``VODAsset/inventory`` is the presentation's: an
    /// audio-only ad made for one podcast names that podcast, and video presentations, which take
    /// the whole inventory by default, never get it.
    public var scopes: Set<String>?

    /// Creates a creative.
    public init(
        id: String,
        uri: String,
        duration: MediaTime,
        value: Double,
        tracking: [TrackingEvent: [String]]? = nil,
        scopes: Set<String>? = nil
    ) {
        self.id = id
        self.uri = uri
        self.duration = duration
        self.value = value
        self.tracking = tracking
        self.scopes = scopes
    }

    /// Whether the creative may fill a pod of `scope` (`vod-{asset}` or `live-{channel}`).
    public func mayPlay(in scope: String) -> Bool {
        self.scopes?.contains(scope) ?? true
    }
}
