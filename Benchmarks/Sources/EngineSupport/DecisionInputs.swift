import AdInsertion
import HLSInterstitials
import HLSPlaylist

/// The inputs of the asset-list decision benchmark: an inventory of 20 creatives and a one-hour
/// repeat window, as a configured server has.
public enum DecisionInputs {
    /// The server's own URL, which the creatives' paths resolve against.
    public static let base = "https://ads.example.com"

    /// The decision service over an (empty) in-memory store.
    public static func service() -> AdDecisionService {
        // Durations of 10, 15 and 20 s in turn; values falling from 100.
        let inventory = (0..<20).map { (k: Int) -> Creative in
            let seconds: Int = 10 + 5 * (k % 3)
            return Creative(
                id: "creative-\(k)",
                uri: "/media/ads/creative-\(k)/main.m3u8",
                duration: MediaTime(seconds: Double(seconds)),
                value: Double(100 - k)
            )
        }
        return AdDecisionService(
            decider: AdDecider(inventory: inventory),
            policy: DecisionPolicy(repeatWindow: MediaTime(seconds: 3600)),
            store: InMemoryAdStore()
        )
    }

    /// A new viewer's decision for a 60 s mid-roll of a VOD asset, stored, and its asset list as
    /// JSON bytes.
    ///
    /// Inlinable: compiled into the benchmark as when it lived there, so that the call across this
    /// module's boundary adds no allocation to the count the gate holds at 0 tolerance.
    @inlinable
    public static func answer(_ service: AdDecisionService) async throws -> [UInt8] {
        let made = try await service.decision(
            viewer: "viewer-1",
            scope: AdScope(kind: .vod, name: "movie"),
            breakID: "midroll-1",
            breakDuration: MediaTime(seconds: 60),
            startOffset: nil,
            now: DateTime(millisecondsSince1970: 1_735_689_600_000)
        )
        return made.decision.assetList(resolvingAgainst: self.base).encode()
    }
}
