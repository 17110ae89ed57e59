import HLSInterstitials
import HLSPlaylist

extension InterstitialCoordinator {
    // MARK: Asset lists

    /// The assets of `event` are needed and it names an `X-ASSET-LIST`: the request to make.
    ///
    /// The URI resolves against `base` (the primary's playlist) and carries `_HLS_primary_id`;
    /// on live, the first event of a break joined partway also carries `_HLS_start_offset`.
    ///
    /// - Parameters:
    ///   - event: The event whose list is wanted.
    ///   - startOffset: The join offset to send (``assetListStartOffset(for:playing:in:isLive:)``).
    ///   - base: What the list's URI resolves against.
    ///   - primaryID: The playback session's identifier.
    /// - Returns: `.loadAssetList`, or nothing when the event has no list, or is cancelled.
    func assetListLoad(
        of event: InterstitialEvent,
        startOffset: MediaTime?,
        base: String,
        primaryID: String
    ) -> [Action] {
        guard let listURI = event.assetListURI, !self.cancelled.contains(event.identifier) else { return [] }
        let url = InterstitialRequestURL.assetList(
            URIReference.resolve(listURI, against: base),
            primaryID: primaryID,
            liveStartOffset: startOffset
        )
        return [.loadAssetList(eventID: event.identifier, url: url)]
    }
}
