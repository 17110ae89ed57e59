import GroupPlayback
import HummingbirdTesting
import Testing

extension ReceiverHandoffTests {
    /// Runs `body` with a fresh receiver on a scratch folder of a 6 s ad and a primary with a pod.
    ///
    /// As ``withReceiver(profile:scratch:_:)`` does, on a scratch folder (removed afterwards)
    /// holding `ad.m3u8` (6 one-second segments) and `primary`: `seconds` one-second segments with
    /// an interstitial playing `ad.m3u8` (6 s, `X-RESTRICT="SKIP,JUMP"`) for each of `pod`'s IDs at
    /// its second. The setup most handoff tests share.
    static func withAdPod(
        _ primary: String = "primary.m3u8",
        seconds: Int,
        pod: [(id: String, at: Int)],
        _ body:
            @escaping @Sendable (_ media: String, _ sender: ReceiverClient, _ client: any TestClientProtocol)
            async throws ->
            Void
    ) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.media("ad.m3u8", seconds: 6)
        try scratch.media(primary, seconds: seconds, pod: pod.map { ($0.id, $0.at, "ad.m3u8", 6) })
        try await Self.withReceiver(scratch: scratch, body)
    }
}
