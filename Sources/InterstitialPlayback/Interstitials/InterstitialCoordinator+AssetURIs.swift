import HLSInterstitials
import HLSPlaylist

extension InterstitialCoordinator {
    // MARK: Resolving asset URIs

    /// The longest asset URI requested (bytes of UTF-8): longer ones are refused.
    static let maximumAssetURILength = 65_536

    /// Why `uri` cannot be requested, or `nil` when it can: empty, longer than
    /// ``maximumAssetURILength``, a control character (NUL included), a `%` not followed by two hex
    /// digits, or an authority whose IP-literal bracket is not closed.
    ///
    /// Percent-encoded dots
    /// (`%2e%2e`) are not dot segments (RFC 3986 §5.2.4 removes only literal ones) and stay as they are.
    static func assetURIRefusal(_ uri: String) -> String? {
        let bytes = uri.utf8
        guard !bytes.isEmpty else { return "the asset URI is empty" }
        guard bytes.count <= Self.maximumAssetURILength else {
            return "the asset URI has \(bytes.count) bytes, more than \(Self.maximumAssetURILength)"
        }
        if let control = bytes.first(where: { $0 < 0x20 || $0 == 0x7F }) {
            return "the asset URI contains the control character 0x\(String(control, radix: 16, uppercase: true))"
        }
        guard URIReference.scheme(of: uri) != "data" else { return nil }
        var index = bytes.startIndex
        while let percent = bytes[index...].firstIndex(of: UInt8(ascii: "%")) {
            let digits = bytes[bytes.index(after: percent)...].prefix(2)
            guard digits.count == 2, digits.allSatisfy(Self.isHexDigit) else {
                return "the asset URI has a % not followed by two hex digits"
            }
            index = bytes.index(percent, offsetBy: 3)
        }
        if let authority = URIReference.Components(parsing: uri).authority,
            authority.contains("[") != authority.contains("]")
        {
            return "the asset URI's host [\(authority.prefix(64))] is not a closed IP literal"
        }
        return nil
    }

    private static func isHexDigit(_ c: UInt8) -> Bool {
        (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
    }

    /// The URL to request the asset `uri` from: resolved against `base` (its asset list's URL, or
    /// the primary's playlist), with `_HLS_primary_id`; a URI that cannot be requested
    /// (``assetURIRefusal(_:)``) is refused with why.
    func resolveAssetURI(_ uri: String, against base: String?, primaryID: String) -> Result<String, PlaybackError> {
        if let reason = Self.assetURIRefusal(uri) {
            return .failure(PlaybackError(code: .invalidURL, message: reason))
        }
        let resolved = base.map { URIReference.resolve(uri, against: $0) } ?? uri
        return .success(InterstitialRequestURL.asset(resolved, primaryID: primaryID))
    }

    /// The slot of an asset at `uri` (its duration, when known): failed when its URI is refused.
    func assetSlot(_ uri: String, duration: MediaTime?, base: String?, primaryID: String) -> AssetSlot {
        switch self.resolveAssetURI(uri, against: base, primaryID: primaryID) {
        case .success(let url): AssetSlot(url: url, duration: duration)
        case .failure(let error): AssetSlot(url: "", duration: duration, failed: true, refusal: error)
        }
    }

    /// The refusals among the slots of `assets`: each asset's index and why, as decided when its
    /// slot was made (``assetURIRefusal(_:)``, checked once per asset).
    func refusedAssets(_ assets: AssetListState?) -> [(index: Int, error: PlaybackError)] {
        guard case .loaded(let slots, _) = assets else { return [] }
        return slots.enumerated().compactMap { index, slot in slot.refusal.map { (index, $0) } }
    }

    /// An asset list decoded for `eventID` (`event`): its
    /// slots resolve against the URL it was requested from, its beacons are planned, the event
    /// playing takes what the schedule now knows of it, and each refused asset fails with why.
    ///
    /// - Returns: The actions, then the follow-up inputs (the join, the transitions it allows).
    mutating func assetListDecoded(
        _ list: AssetList,
        eventID: String,
        event: InterstitialEvent?,
        primaryID: String
    ) -> [Action] {
        let loaded = self.assetListDidLoad(list, for: event, primaryID: primaryID, base: self.listURLs[eventID])
        self.known.listLoaded(loaded, durations: list.assets.map(\.mediaDuration), for: eventID)
        var actions = self.planBeacons(eventID: eventID, list: list)
        actions += self.listArrived(
            list,
            eventID: eventID,
            event: event,
            scheduled: self.known.schedule?.event(eventID)
        )
        actions += self.assetsRefused(self.refusedAssets(loaded), eventID: eventID, event: event)
        return actions + [.applyJoin, .checkTransitions]
    }

    /// The assets of `event` are needed: an `X-ASSET-URI` event's are known at once (its URI
    /// resolved against the primary's playlist `base`); a refused URI fails its asset with why.
    ///
    /// - Returns: `nil` for an asset-list event; otherwise the actions of the refusals.
    mutating func assetURIsKnown(of event: InterstitialEvent, base: String, primaryID: String) -> [Action]? {
        guard let assets = self.assetURIList(of: event, base: base, primaryID: primaryID) else { return nil }
        self.known.assetsKnown(assets, for: event.identifier)
        return self.assetsRefused(self.refusedAssets(assets), eventID: event.identifier, event: event)
    }

    /// The assets of `eventID` whose URI was refused fail, as an asset that cannot load does
    /// (``assetDidFail(_:index:event:error:playing:)``).
    private mutating func assetsRefused(
        _ refused: [(index: Int, error: PlaybackError)],
        eventID: String,
        event: InterstitialEvent?
    ) -> [Action] {
        var actions: [Action] = []
        for refusal in refused where self.known.assetFailed(refusal.index, of: eventID) {
            let playing = self.current?.eventID == eventID
            actions += self.assetDidFail(
                eventID,
                index: refusal.index,
                event: event,
                error: refusal.error,
                playing: playing
            )
        }
        return actions
    }
}
