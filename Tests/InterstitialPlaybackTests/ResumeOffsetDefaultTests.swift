import HLSInterstitials
import HLSPlaylist
import InterstitialPlayback
import Testing

/// An absent X-RESUME-OFFSET is the interstitial's duration, even when only its assets tell it.
///
/// D.2: "If the X-RESUME-OFFSET is not present, its value is considered to be the duration of the
/// interstitial". When the playlist gives no DURATION either, that duration is only known from the
/// assets; the primary then resumes after what they played, not where it paused (found by the
/// hls.js cross-check, which resumes there too).
@Suite(.timeLimit(.minutes(1)))
struct ResumeOffsetDefaultTests {
    /// One run over a VOD primary of `seconds` with the date ranges `tags(base)`: the break steps
    /// (events, assets, resume points, end), whether the primary stalled after its first resume,
    /// the paths requested, and the clock time at the end.
    private struct Run {
        var steps: [String]
        var stalledAfterResume: Bool
        var paths: [String]
        var end: MediaTime
    }

    private func playVOD(seconds: Int, _ tags: @escaping @Sendable (String) -> [String]) async throws -> Run {
        try await withFixtureSite { base, site in
            site.serve("/vod/prog.m3u8", .text(Fixtures.vodPrimary(seconds: seconds, dateRanges: tags(base))))
            let player = try await play(base + "/vod/prog.m3u8")
            let log = await player.log
            let kept: Set<String> = [
                "currentEventDidChange", "interstitialAssetStarted", "eventDidFinish", "primaryResumed", "ended",
            ]
            let resumed = log.firstIndex { $0.event == "primaryResumed" } ?? log.endIndex
            return Run(
                steps: log.filter { kept.contains($0.event) }.map(\.summary),
                stalledAfterResume: log[resumed...].contains { $0.event == "stalled" },
                paths: site.requests.map(\.path),
                end: log.last?.time ?? .zero
            )
        }
    }

    @Test func preRollWithoutOffsetOrDurationReplacesItsLength() async throws {
        let run = try await playVOD(seconds: 20) { base in
            [Fixtures.interstitial("pre", at: 0, "CUE=\"PRE\",X-ASSET-URI=\"\(base)/media/ad-red/main.m3u8\"")]
        }
        #expect(run.steps == ["current:pre", "asset:pre#0", "finished:pre", "current:nil", "resumed@10.0", "ended"])
        // 10 s of ad, then the primary's last 10 s.
        #expect(run.end >= 20 && run.end < 21)
    }

    @Test func midRollWithoutOffsetOrDurationReplacesItsLength() async throws {
        let run = try await playVOD(seconds: 30) { base in
            [Fixtures.interstitial("ad", at: 6, "X-ASSET-URI=\"\(base)/media/ad-green/main.m3u8\"")]
        }
        #expect(run.steps == ["current:ad", "asset:ad#0", "finished:ad", "current:nil", "resumed@16.0", "ended"])
        // The primary was buffered from 16 s while the ad played, and the span the ad replaces
        // (6–16 s: seg-003…seg-007) was never downloaded.
        #expect(!run.stalledAfterResume)
        let replaced = (3...7).map { "/media/primary/seg-00\($0).ts" }
        #expect(!run.paths.contains { replaced.contains($0) })
        #expect(run.end >= 30 && run.end < 31)
    }

    /// With X-RESUME-OFFSET=0 nothing changes: the primary resumes where it paused.
    @Test func givenOffsetStillWins() async throws {
        let run = try await playVOD(seconds: 20) { base in
            [
                Fixtures.interstitial(
                    "pre",
                    at: 0,
                    "CUE=\"PRE\",X-ASSET-URI=\"\(base)/media/ad-red/main.m3u8\",X-RESUME-OFFSET=0"
                ),
                Fixtures.interstitial(
                    "ad",
                    at: 6,
                    "X-ASSET-URI=\"\(base)/media/ad-green/main.m3u8\",X-RESUME-OFFSET=0"
                ),
            ]
        }
        #expect(run.steps.filter { $0.hasPrefix("resumed") } == ["resumed@0.0", "resumed@6.0"])
    }
}
