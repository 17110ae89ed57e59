import AdInsertion
import Foundation
import HLSInterstitials
import HLSPlaylist
import IntermissionStore

extension ServerConfiguration {
    /// The folder of the bundled demo media (a 60 s primary and three 10 s ads, red, green and blue).
    public static var demoMediaFolder: String? {
        Bundle.module.url(forResource: "Demo", withExtension: nil)?.path
    }

    /// The `--demo` configuration: works offline with the bundled media.
    ///
    /// - `/vod/demo/main.m3u8`: the primary with a 10 s pre-roll (`CUE="PRE,ONCE"`), mid-rolls at 20 s
    ///   (20 s) and 40 s (10 s), and a 10 s post-roll.
    /// - `/live/demo/main.m3u8`: the primary looped with a 6-segment window and a 20 s break every two
    ///   minutes.
    /// - `/live/demo-schedule/main.m3u8`: the same with `breakFormat: schedule`: each break is a
    ///   scheduled date range (Appendix H) with one interstitial per ad.
    /// - `/vod/podcast/main.m3u8`: an audio-only podcast episode (60 s of AAC) whose tags follow
    ///   Apple's podcast rules (`VODAsset.profile`): a 12 s pre-roll, a 24 s mid-roll at 24 s and
    ///   a 12 s post-roll, filled with the two audio-only ads only.
    /// - Inventory: the three coloured ads (red is worth most, blue least) and two audio-only ads
    ///   that play in the podcast only (`Creative.scopes`; the podcast takes only them,
    ///   `VODAsset.inventory`); repeat window 30 s.
    ///
    /// - Throws: ``ConfigurationError`` when the media is not in the bundle.
    public static func demo(base: ServerConfiguration = ServerConfiguration()) throws -> ServerConfiguration {
        guard let folder = Self.demoMediaFolder else {
            throw ConfigurationError(message: "the demo media is missing from the IntermissionServer bundle")
        }
        var configuration = base
        configuration.mounts["demo"] = folder
        if configuration.adminToken == nil { configuration.adminToken = "demo" }
        var ad = configuration.adInsertion
        ad.inventory += [
            Creative(id: "red", uri: "/media/demo/ad-red/main.m3u8", duration: 10, value: 3),
            Creative(id: "green", uri: "/media/demo/ad-green/main.m3u8", duration: 10, value: 2),
            Creative(id: "blue", uri: "/media/demo/ad-blue/main.m3u8", duration: 10, value: 1),
            Creative(
                id: "audio-one",
                uri: "/media/demo/ad-audio-one/main.m3u8",
                duration: 12,
                value: 2,
                scopes: ["vod-podcast"]
            ),
            Creative(
                id: "audio-two",
                uri: "/media/demo/ad-audio-two/main.m3u8",
                duration: 12,
                value: 1,
                scopes: ["vod-podcast"]
            ),
        ]
        ad.policy.repeatWindow = 30
        ad.assets.append(
            VODAsset(
                id: "demo",
                origin: "/media/demo/primary/",
                playlist: "main.m3u8",
                breaks: [
                    VODBreak(id: "preroll", position: .preRoll, duration: 10, once: true),
                    VODBreak(id: "midroll-1", position: .midRoll(20), duration: 20),
                    VODBreak(id: "midroll-2", position: .midRoll(40), duration: 10),
                    VODBreak(id: "postroll", position: .postRoll, duration: 10),
                ]
            )
        )
        var podcast = VODAsset(
            id: "podcast",
            origin: "/media/demo/podcast/",
            playlist: "main.m3u8",
            breaks: [
                VODBreak(id: "preroll", position: .preRoll, duration: 12),
                VODBreak(id: "midroll", position: .midRoll(24), duration: 24),
                VODBreak(id: "postroll", position: .postRoll, duration: 12),
            ]
        )
        podcast.profile = .podcast
        podcast.inventory = ["audio-one", "audio-two"]
        ad.assets.append(podcast)
        ad.channels.append(
            LiveChannel(
                id: "demo",
                source: .loop(origin: "/media/demo/primary/", playlist: "main.m3u8"),
                windowSegments: 6,
                breakPlan: LiveBreakPlan(interval: 120, duration: 20)
            )
        )
        var scheduled = LiveChannel(
            id: "demo-schedule",
            source: .loop(origin: "/media/demo/primary/", playlist: "main.m3u8"),
            windowSegments: 6,
            breakPlan: LiveBreakPlan(interval: 120, duration: 20)
        )
        scheduled.breakFormat = .schedule
        ad.channels.append(scheduled)
        configuration.adInsertion = ad
        return configuration
    }
}
