import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import Testing

@Suite struct NavigationPolicyTests {
    /// WWDC21 demo: two ads, the first unrestricted, the second JUMP-restricted.
    ///
    /// Jumping past both
    /// snaps to the restricted ad, plays it, then resumes at the seek location.
    @Test func jumpAcrossTwoAdsPlaysTheRestrictedOneThenLands() throws {
        let schedule = Schedule(primary: try ScheduleFixture.playlist("seed-wwdc21-restrict-jump"))
        let policy = NavigationPolicy(schedule: schedule)
        let plan = policy.resolveSeek(to: .primary(50), from: .primary(10))
        #expect(plan.isAllowed)
        #expect(plan.interstitials == ["ad-jump-restricted"])
        #expect(plan.primaryTime == 50)
        #expect(plan.reason.contains("JUMP"))
    }

    struct SeekCase: CustomStringConvertible, Sendable {
        let name: String
        let fixture: String
        let played: Set<String>
        let from: Playhead
        let to: SeekTarget
        let allowed: Bool
        let interstitials: [String]
        let primaryTime: MediaTime?
        var description: String { self.name }
    }

    static let seekCases: [SeekCase] = [
        SeekCase(
            name: "forward before the restricted ad is free",
            fixture: "seed-wwdc21-restrict-jump",
            played: [],
            from: .primary(10),
            to: .primary(30),
            allowed: true,
            interstitials: [],
            primaryTime: 30
        ),
        SeekCase(
            name: "back across both ads is free",
            fixture: "seed-wwdc21-restrict-jump",
            played: [],
            from: .primary(55),
            to: .primary(5),
            allowed: true,
            interstitials: [],
            primaryTime: 5
        ),
        SeekCase(
            name: "JUMP applies even after the ad played",
            fixture: "seed-wwdc21-restrict-jump",
            played: ["ad-jump-restricted"],
            from: .primary(30),
            to: .primary(55),
            allowed: true,
            interstitials: ["ad-jump-restricted"],
            primaryTime: 55
        ),
        SeekCase(
            name: "landing on the ad's start plays it in turn",
            fixture: "seed-wwdc21-restrict-jump",
            played: [],
            from: .primary(10),
            to: .primary(40),
            allowed: true,
            interstitials: [],
            primaryTime: 40
        ),
        SeekCase(
            name: "landing in a replaced span plays the interstitial from its beginning",
            fixture: "seed-wwdc21-replace-stitched-ad",
            played: [],
            from: .primary(1),
            to: .primary(10),
            allowed: true,
            interstitials: ["replace-instream-ad"],
            primaryTime: 15
        ),
        SeekCase(
            name: "seeking back into a replaced span plays it too",
            fixture: "seed-wwdc21-replace-stitched-ad",
            played: [],
            from: .primary(25),
            to: .primary(6),
            allowed: true,
            interstitials: ["replace-instream-ad"],
            primaryTime: 15
        ),
        SeekCase(
            name: "SKIP refuses a forward seek inside the ad (plan A)",
            fixture: "seed-wwdc23-plans-abc",
            played: [],
            from: .interstitial("ad1", at: 2, primaryTime: 5),
            to: .withinInterstitial(8),
            allowed: false,
            interstitials: [],
            primaryTime: nil
        ),
        SeekCase(
            name: "SKIP refuses seeking forward out of the ad",
            fixture: "seed-wwdc23-plans-abc",
            played: [],
            from: .interstitial("ad1", at: 2, primaryTime: 5),
            to: .primary(9),
            allowed: false,
            interstitials: [],
            primaryTime: nil
        ),
        SeekCase(
            name: "SKIP allows seeking back inside the ad",
            fixture: "seed-wwdc23-plans-abc",
            played: [],
            from: .interstitial("ad2", at: 6, primaryTime: 5),
            to: .withinInterstitial(1),
            allowed: true,
            interstitials: [],
            primaryTime: nil
        ),
        SeekCase(
            name: "SKIP allows seeking back out of the ad",
            fixture: "seed-wwdc23-plans-abc",
            played: [],
            from: .interstitial("ad2", at: 6, primaryTime: 5),
            to: .primary(2),
            allowed: true,
            interstitials: [],
            primaryTime: 2
        ),
    ]

    @Test(arguments: seekCases)
    func seek(_ c: SeekCase) throws {
        let schedule = Schedule(primary: try ScheduleFixture.playlist(c.fixture))
        let plan = NavigationPolicy(schedule: schedule, playedEventIDs: c.played).resolveSeek(to: c.to, from: c.from)
        #expect(plan.isAllowed == c.allowed, "\(plan)")
        #expect(plan.interstitials == c.interstitials, "\(plan)")
        #expect(plan.primaryTime == c.primaryTime, "\(plan)")
        #expect(!plan.reason.isEmpty)
    }

    @Test func onceEventAlreadyPlayedIsNotReplayedByJump() throws {
        let playlist = try ScheduleFixture.playlist("seed-wwdc21-restrict-jump")
        var events = Schedule(primary: playlist).events.map(\.event)
        events[1].willPlayOnce = true
        let schedule = Schedule(primary: playlist, events: events)
        let plan = NavigationPolicy(schedule: schedule, playedEventIDs: ["ad-jump-restricted"])
            .resolveSeek(to: .primary(55), from: .primary(30))
        #expect(plan.interstitials.isEmpty)
        #expect(plan.primaryTime == 55)
    }

    @Test func jumpAcrossSeveralPlaysTheOneNearestTheTarget() throws {
        let playlist = ScheduleFixture.uniform(count: 10, duration: 10)
        var events: [InterstitialEvent] = []
        for (id, time) in [("a", 20), ("b", 40), ("c", 60)] {
            var event = InterstitialEvent(identifier: id, time: MediaTime(seconds: time))
            event.duration = 10
            event.resumptionOffset = .zero
            event.restrictions = [.jump]
            events.append(event)
        }
        let schedule = Schedule(primary: playlist, events: events)
        let plan = NavigationPolicy(schedule: schedule).resolveSeek(to: .primary(50), from: .primary(0))
        #expect(plan.interstitials == ["b"])
        #expect(plan.primaryTime == 50)
        #expect(plan.reason.contains("1 more"))
    }

    /// WWDC23 plan A: both ads SKIP-restricted: play and pause only.
    ///
    /// Plan C: the app clears ad2's
    /// restriction, so only ad1 refuses fast-forward.
    @Test(arguments: [
        (false, 2.0, false), (false, 1.0, true), (false, 0.0, true), (false, 0.5, true), (true, 2.0, true),
    ])
    func rateInsideAds(planC: Bool, rate: Double, allowedInAd2: Bool) throws {
        let playlist = try ScheduleFixture.playlist("seed-wwdc23-plans-abc")
        var events = Schedule(primary: playlist).events.map(\.event)
        if planC { events[1].restrictions = [] }
        let policy = NavigationPolicy(schedule: Schedule(primary: playlist, events: events))
        let inAd1 = policy.resolveRate(rate, at: .interstitial("ad1", at: 3, primaryTime: 5))
        let inAd2 = policy.resolveRate(rate, at: .interstitial("ad2", at: 3, primaryTime: 5))
        #expect(inAd1.isAllowed == (rate <= 1))
        #expect(inAd2.isAllowed == allowedInAd2)
        #expect(policy.resolveRate(rate, at: .primary(8)).isAllowed)
        if !inAd1.isAllowed { #expect(inAd1.reason.contains("SKIP")) }
    }

    /// Appendix D.7: two 15 s assets, X-SKIP-CONTROL-OFFSET=5, DURATION=20: the button shows from
    /// 5 s into the first asset until 10 s into the second.
    @Test(arguments: [
        (0, 0.0, SkippableEventState.notYetEligible), (0, 4.9, .notYetEligible), (0, 5.0, .eligible),
        (1, 0.0, .eligible), (1, 9.9, .eligible), (1, 10.0, .noLongerEligible), (1, 14.0, .noLongerEligible),
    ])
    func skipControlAcrossAssets(asset: Int, time: Double, expected: SkippableEventState) throws {
        let playlist = ScheduleFixture.uniform(count: 10, duration: 6)
        var event = InterstitialEvent(identifier: "pod", time: 12)
        event.assetListURI = "https://example.com/list.json"
        event.skipControl = SkipControl(offset: 5, duration: 20, labelID: "Exit-Label")
        let schedule = Schedule(
            primary: playlist,
            events: [event],
            configuration: .init(assetDurations: ["pod": [15, 15]])
        )
        #expect(schedule.event("pod")?.duration == 30)
        let t = Playhead.eventTime(asset: asset, at: .s(time), assetDurations: [15, 15])
        let report = NavigationPolicy(schedule: schedule).skipState(at: .interstitial("pod", at: t, primaryTime: 12))
        #expect(report.state == expected, "\(report)")
        #expect(report.eligibleFrom == 5)
        #expect(report.eligibleUntil == 25)
    }

    @Test func notSkippableWithoutSkipControl() throws {
        let schedule = Schedule(primary: try ScheduleFixture.playlist("seed-wwdc23-plans-abc"))
        let policy = NavigationPolicy(schedule: schedule)
        let inAd = policy.skipState(at: .interstitial("ad1", at: 3, primaryTime: 5))
        #expect(inAd.state == .notSkippable)
        #expect(inAd.reason.contains("X-SKIP-CONTROL-OFFSET"))
        #expect(policy.skipState(at: .primary(1)).state == .notSkippable)
        // The asset list's SKIP-CONTROL overrides.
        let overridden = policy.skipState(
            at: .interstitial("ad1", at: 3, primaryTime: 5),
            skipControl: SkipControl(offset: 0)
        )
        #expect(overridden.state == .eligible)
        #expect(SkippableEventState.eligible.rawValue == 2)
    }
}
