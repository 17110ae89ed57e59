import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntermissionTestSupport
import Testing

@testable import IntermissionServer

/// The key the suite's beacon URLs are signed with.
private let identityKey = Array("identity-test-key-0123456789abcdef".utf8)

/// The demo with beacons on, signed with `identityKey`.
private func identityConfiguration(clock: ManualWallClock = ManualWallClock(t0)) throws -> ServerConfiguration {
    var configuration = try demoConfiguration(clock: clock)
    configuration.tracking = TrackingConfiguration(key: identityKey)
    configuration.tracking.beacons = true
    return configuration
}

/// The demo's mid-roll asset list, for `viewer`.
private func midroll(_ viewer: String) -> String {
    "/v1/asset-lists/vod-demo/midroll-1.json?_HLS_interstitial_id=midroll-1&_HLS_primary_id=" + viewer
}

/// The `/v1/track/…` path of the first entry's `event` URL in an asset list.
private func firstBeacon(_ response: TestResponse, event: TrackingEvent) throws -> String {
    let list = try AssetList.decode(response.bytes)
    let signaling = try #require(try list.assets.first?.creativeSignaling())
    let url = try #require(signaling.payload.first?.tracking?.first { $0.type == event.rawValue }?.urls.first)
    let start = try #require(url.range(of: "/v1/track/"))
    return String(url[start.lowerBound...])
}

/// What a viewer's `_HLS_primary_id` lets a stranger do: nothing on the public page, nothing with
/// beacons (issue 27).
@Suite(.realTime) struct ViewerIdentityTests {
    @Test(.timeLimit(.minutes(1))) func thePublicPageShowsViewerTagsAndTheAdminSeesTheIDs() async throws {
        try await withServer(try identityConfiguration()) { client in
            let viewer = "viewer-7f3a9c0e5b214d68"
            #expect(try await client.get(midroll(viewer)).status == .ok)
            let page = try await client.get("/")
            #expect(page.status == .ok)
            #expect(!page.text.contains(viewer))
            let tag = TokenSigner(key: identityKey).viewerTag(viewer)
            #expect(tag.count == 8 && tag.allSatisfy(\.isHexDigit))
            #expect(page.text.contains("<span class=\"viewer\">\(tag)</span>"))
            // A wrong token is a stranger too.
            let wrong = try await client.get("/", headers: [.authorization: "Bearer not-the-token"])
            #expect(wrong.status == .ok && !wrong.text.contains(viewer))
            // The admin token, as the admin API takes it, shows the full IDs.
            let admin = try await client.get("/", headers: [.authorization: "Bearer secret"])
            #expect(admin.status == .ok)
            #expect(admin.text.contains("<span class=\"viewer\">\(viewer)</span>"))
        }
    }

    @Test(.timeLimit(.minutes(1))) func beaconURLsForgedFromAViewerIDAreRefused() async throws {
        try await withServer(try identityConfiguration()) { client in
            let victim = "victim-0c1d2e3f"
            let list = try await client.get(midroll(victim))
            #expect(list.status == .ok)
            let handedOut = try firstBeacon(list, event: .start)
            let signer = TokenSigner(key: identityKey)
            // Even with the signing key, a token made from the victim's ID (seen on a public page,
            // a log, a shared URL) lacks the decision's nonce; one for a viewer with no decision too.
            var forgeries: [String] = []
            for (viewer, nonce) in [(victim, ""), (victim, AdDecision.newNonce()), ("never-asked", "")] {
                let slot = TokenSigner.Slot(
                    viewer: viewer,
                    scope: "vod-demo",
                    breakID: "midroll-1",
                    slot: 0,
                    creativeID: "red",
                    plan: .a,
                    nonce: nonce
                )
                forgeries.append(signer.beaconToken(slot))
            }
            for token in forgeries {
                let answer = try await client.get("/v1/track/\(token)/impression")
                #expect(answer.status == .forbidden)
                #expect(answer.headers[.contentType]?.hasPrefix("application/json") == true)
                #expect(answer.json?["error"]?["code"]?.stringValue == "badBeaconToken")
            }
            // The URL the asset list handed out is accepted.
            #expect(try await client.get(handedOut).status == .noContent)
        }
    }
}
