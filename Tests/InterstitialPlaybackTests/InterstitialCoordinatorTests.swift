import HLSInterstitials
import HLSPlaylist
import Testing

@testable import InterstitialPlayback

/// The coordinator's decisions as tables: no player, no network, no clock.
@Suite struct InterstitialCoordinatorTests {
    static func event(
        _ id: String,
        resume: MediaTime? = nil,
        limit: MediaTime? = nil,
        restrict: Restrictions = [],
        skip: SkipControl? = nil
    ) -> InterstitialEvent {
        var event = InterstitialEvent(identifier: id, time: 10)
        event.assetListURI = "/lists/\(id).json"
        event.resumptionOffset = resume
        event.playoutLimit = limit
        event.restrictions = restrict
        event.skipControl = skip
        return event
    }

    static func finished(
        _ event: InterstitialEvent,
        scheduled: MediaTime? = nil,
        source: ScheduledEvent.ResumeOffsetSource? = nil,
        duration: MediaTime? = nil,
        playout: MediaTime,
        elapsed: MediaTime,
        played: Bool = true,
        cancelled: Bool = false
    ) -> FinishedEvent {
        FinishedEvent(
            event: event,
            scheduledOffset: scheduled,
            offsetSource: source,
            duration: duration,
            playout: playout,
            elapsed: elapsed,
            playedSomething: played,
            cancelled: cancelled
        )
    }

    // MARK: Resumption

    struct ResumeRow: Sendable, CustomTestStringConvertible {
        var name: String
        var start: MediaTime
        var finished: [FinishedEvent]
        var isLive: Bool
        var joinOffset: MediaTime = .zero
        var skippedSpan: MediaTime = .zero
        var wallClock = false
        var edges: [[MediaTime]] = []
        var expected: MediaTime
        var testDescription: String { self.name }
    }

    static let resumeRows: [ResumeRow] = [
        // A 20 s pod with X-RESUME-OFFSET=0 at 8 s resumes at 8, whatever the events are now:
        // the record is the copy taken when it played (setEvents during the break).
        ResumeRow(
            name: "break: X-RESUME-OFFSET=0 keeps the primary where it paused",
            start: 8,
            finished: [
                finished(event("pod", resume: 0), scheduled: 0, source: .given, duration: 20, playout: 20, elapsed: 20)
            ],
            isLive: false,
            expected: 8
        ),
        ResumeRow(
            name: "VOD break without an offset: the schedule's duration",
            start: 10,
            finished: [finished(event("ad"), scheduled: 15, source: .duration, duration: 15, playout: 15, elapsed: 18)],
            isLive: false,
            expected: 25
        ),
        ResumeRow(
            name: "VOD, no offset, no duration in the playlist: what the assets played",
            start: 10,
            finished: [finished(event("ad"), scheduled: 0, source: .unknown, playout: 12, elapsed: 12)],
            isLive: false,
            expected: 22
        ),
        ResumeRow(
            name: "pod: the offsets add up in order",
            start: 30,
            finished: [
                finished(event("a", resume: 5), scheduled: 5, source: .given, playout: 10, elapsed: 10),
                finished(event("b", resume: 7), scheduled: 7, source: .given, playout: 10, elapsed: 10),
            ],
            isLive: false,
            expected: 42
        ),
        // D.2: live, no X-RESUME-OFFSET: the interstitial's duration from its start, not the time
        // the ad server and the loads took (elapsed 21.5 s).
        ResumeRow(
            name: "live without an offset: start + duration (D.2)",
            start: 22,
            finished: [
                finished(event("ad"), source: .elapsed, duration: 20, playout: 20, elapsed: MediaTime(seconds: 21.5))
            ],
            isLive: true,
            expected: 42
        ),
        ResumeRow(
            name: "live join 6 s into a 20 s break: start + 20 whatever the latency",
            start: 40,
            finished: [
                finished(event("ad"), source: .elapsed, duration: 20, playout: 20, elapsed: MediaTime(seconds: 15.5))
            ],
            isLive: true,
            joinOffset: 6,
            expected: 60
        ),
        ResumeRow(
            name: "live, playout limit shorter than the duration: start + limit",
            start: 22,
            finished: [finished(event("ad", limit: 2), source: .elapsed, duration: 15, playout: 5, elapsed: 5)],
            isLive: true,
            expected: 24
        ),
        ResumeRow(
            name: "live, following the wall clock (explicit option): join + time spent",
            start: 40,
            finished: [
                finished(event("ad"), source: .elapsed, duration: 20, playout: 20, elapsed: MediaTime(seconds: 15.5))
            ],
            isLive: true,
            joinOffset: 6,
            wallClock: true,
            expected: MediaTime(seconds: 61.5)
        ),
        ResumeRow(
            name: "live join into a pod's second event: the first one's offset still counts",
            start: 4,
            finished: [finished(event("ad2"), source: .elapsed, duration: 20, playout: 20, elapsed: 13)],
            isLive: true,
            joinOffset: 7,
            skippedSpan: 10,
            expected: 34
        ),
        // D.5: an event cancelled before it played resumes with offset 0 (or its given offset).
        ResumeRow(
            name: "failed asset list: resume offset 0",
            start: 10,
            finished: [
                finished(
                    event("bad"),
                    scheduled: 10,
                    source: .duration,
                    duration: 10,
                    playout: 0,
                    elapsed: MediaTime(seconds: 0.5),
                    played: false,
                    cancelled: true
                )
            ],
            isLive: false,
            expected: 10
        ),
        ResumeRow(
            name: "X-SNAP=IN: the nearest primary segment boundary",
            start: 10,
            finished: [
                finished(
                    {
                        var e = event("ad", resume: MediaTime(seconds: 3.2))
                        e.alignsResumptionWithPrimarySegmentBoundary = true
                        return e
                    }(),
                    scheduled: MediaTime(seconds: 3.2),
                    source: .given,
                    playout: 10,
                    elapsed: 10
                )
            ],
            isLive: false,
            edges: [[10, 12, 14, 16]],
            expected: 14
        ),
        ResumeRow(
            name: "X-SNAP=IN across video (2 s) and audio (3 s) playlists: the latest of the nearest",
            start: 10,
            finished: [
                finished(
                    {
                        var e = event("ad", resume: MediaTime(seconds: 4.6))
                        e.alignsResumptionWithPrimarySegmentBoundary = true
                        return e
                    }(),
                    scheduled: MediaTime(seconds: 4.6),
                    source: .given,
                    playout: 10,
                    elapsed: 10
                )
            ],
            isLive: false,
            edges: [[10, 12, 14, 16], [9, 12, 15, 18]],
            expected: 15
        ),
    ]

    @Test(arguments: resumeRows)
    func resumption(_ row: ResumeRow) {
        var coordinator = InterstitialCoordinator()
        if row.wallClock { coordinator.liveResumption = .followsWallClock }
        let resume = coordinator.resumption(
            start: row.start,
            finished: row.finished,
            skippedSpan: row.skippedSpan,
            joinOffset: row.joinOffset,
            isLive: row.isLive,
            segmentEdges: row.edges
        )
        #expect(resume == row.expected)
    }

    // MARK: Resume points inside another interstitial

    struct SpanRow: Sendable, CustomTestStringConvertible {
        var name: String
        var time: MediaTime
        var candidates: [InterstitialCoordinator.SpanCandidate]
        var expected: String?
        var offset: MediaTime?
        var skipped: MediaTime?
        var testDescription: String { self.name }
    }

    static let spanRows: [SpanRow] = [
        SpanRow(
            name: "live pre-roll resuming at 19 inside a mid-roll 17…27: enter it 2 s in",
            time: 19,
            candidates: [.init(id: "mid", start: 17, span: 10)],
            expected: "mid",
            offset: 2
        ),
        SpanRow(
            name: "resume point before the event: the primary plays up to it",
            time: 15,
            candidates: [.init(id: "mid", start: 17, span: 10)]
        ),
        SpanRow(
            name: "resume point at the event's start: it starts normally",
            time: 17,
            candidates: [.init(id: "mid", start: 17, span: 10)]
        ),
        SpanRow(
            name: "resume point at the event's end: past it",
            time: 27,
            candidates: [.init(id: "mid", start: 17, span: 10)]
        ),
        SpanRow(name: "a point event has no span", time: 18, candidates: [.init(id: "point", start: 17, span: 0)]),
        SpanRow(
            name: "two spans: the earlier one",
            time: 21,
            candidates: [.init(id: "late", start: 20, span: 10), .init(id: "early", start: 18, span: 10)],
            expected: "early",
            offset: 3
        ),
        SpanRow(
            name: "pod 20: a point in the first event's share enters the first",
            time: 23,
            candidates: [.init(id: "a", start: 20, span: 10), .init(id: "b", start: 20, span: 10)],
            expected: "a",
            offset: 3,
            skipped: 0
        ),
        SpanRow(
            name: "pod 20: a point in the second event's share (30…40) enters the second",
            time: 35,
            candidates: [.init(id: "a", start: 20, span: 10), .init(id: "b", start: 20, span: 10)],
            expected: "b",
            offset: 5,
            skipped: 10
        ),
        SpanRow(
            name: "pod 20, a 10 s then b 20 s: 35 is 5 s into b, not 15",
            time: 35,
            candidates: [.init(id: "a", start: 20, span: 10), .init(id: "b", start: 20, span: 20)],
            expected: "b",
            offset: 5,
            skipped: 10
        ),
        SpanRow(
            name: "pod 20, a 20 s then b 10 s: 25 is in a's share",
            time: 25,
            candidates: [.init(id: "a", start: 20, span: 20), .init(id: "b", start: 20, span: 10)],
            expected: "a",
            offset: 5,
            skipped: 0
        ),
        SpanRow(
            name: "pod 20: the boundary between the shares starts the second event",
            time: 30,
            candidates: [.init(id: "a", start: 20, span: 10), .init(id: "b", start: 20, span: 10)],
            expected: "b",
            offset: 0,
            skipped: 10
        ),
        SpanRow(
            name: "pod 17, a before the start (4 s) then b: 23 is 2 s into b",
            time: 23,
            candidates: [
                .init(id: "a", start: 17, span: 4, enterable: false), .init(id: "b", start: 17, span: 10),
            ],
            expected: "b",
            offset: 2,
            skipped: 4
        ),
        SpanRow(
            name: "pod 17: a point in a share that may not be entered enters nothing",
            time: 19,
            candidates: [
                .init(id: "a", start: 17, span: 4, enterable: false), .init(id: "b", start: 17, span: 10),
            ]
        ),
        SpanRow(
            name: "pod 20: the pod's end is past it",
            time: 40,
            candidates: [.init(id: "a", start: 20, span: 10), .init(id: "b", start: 20, span: 10)]
        ),
    ]

    @Test(arguments: spanRows)
    func resumePointInsideAnInterstitial(_ row: SpanRow) {
        let entry = InterstitialCoordinator().interstitial(containing: row.time, among: row.candidates)
        #expect(entry?.id == row.expected)
        #expect(entry?.offset == row.offset)
        if let skipped = row.skipped { #expect(entry?.skippedSpan == skipped) }
    }

    // MARK: Skipping

    struct SkipRow: Sendable, CustomTestStringConvertible {
        var name: String
        var event: InterstitialEvent?
        var state: SkippableEventState
        var overrides = false
        var granted: Bool
        var reasonContains: String = ""
        var testDescription: String { self.name }
    }

    static let windowed = SkipControl(offset: 5, duration: 10, labelID: nil)

    static let skipRows: [SkipRow] = [
        SkipRow(
            name: "inside the window: skipped",
            event: event("ad", skip: windowed),
            state: .eligible,
            granted: true
        ),
        SkipRow(
            name: "before X-SKIP-CONTROL-OFFSET: refused",
            event: event("ad", skip: windowed),
            state: .notYetEligible,
            granted: false,
            reasonContains: "opens"
        ),
        SkipRow(
            name: "after the window: refused",
            event: event("ad", skip: windowed),
            state: .noLongerEligible,
            granted: false,
            reasonContains: "closed"
        ),
        SkipRow(
            name: "X-RESTRICT=SKIP, no skip control: refused",
            event: event("ad", restrict: .skip),
            state: .notSkippable,
            granted: false,
            reasonContains: "X-RESTRICT=SKIP"
        ),
        SkipRow(name: "no control, no restriction: skipped", event: event("ad"), state: .notSkippable, granted: true),
        SkipRow(
            name: "app's policy over X-RESTRICT=SKIP (plan C)",
            event: event("ad", restrict: .skip),
            state: .notSkippable,
            overrides: true,
            granted: true
        ),
        SkipRow(
            name: "app's policy before the window",
            event: event("ad", skip: windowed),
            state: .notYetEligible,
            overrides: true,
            granted: true
        ),
        SkipRow(
            name: "nothing plays: refused even with the override",
            event: nil,
            state: .notSkippable,
            overrides: true,
            granted: false,
            reasonContains: "no interstitial"
        ),
    ]

    @Test(arguments: skipRows)
    func skip(_ row: SkipRow) {
        let coordinator = InterstitialCoordinator()
        let report = SkipStateReport(state: row.state, eligibleFrom: 5, eligibleUntil: 15, reason: "")
        let actions = coordinator.skip(.init(event: row.event, report: report, overridesPolicy: row.overrides))
        if row.granted, let event = row.event {
            #expect(actions == [.emit(.currentEventSkipped(event)), .finishCurrentEvent])
        } else {
            #expect(!actions.contains(.finishCurrentEvent))
            let reasons = actions.compactMap { if case .refuse(let reason) = $0 { reason } else { nil } }
            #expect(reasons.count == 1)
            #expect(reasons.first?.contains(row.reasonContains) == true, "\(reasons)")
            #expect(
                actions.contains { if case .emit(.skipRefused(row.event?.identifier, _)) = $0 { true } else { false } }
            )
        }
    }

    /// The asset list's SKIP-CONTROL label (the effective control) is the one reported and kept.
    @Test func skipLabelIsTheEffectiveOne() {
        var coordinator = InterstitialCoordinator()
        let tag = SkipControl(offset: 0, duration: nil, labelID: "Tag-Label")
        let listed = SkipControl(offset: 2, duration: nil, labelID: "List-Label")
        let ad = Self.event("ad", skip: tag)
        let opened = coordinator.skipStateChanged(from: .notSkippable, to: .eligible, event: ad, control: listed)
        #expect(opened == [.emit(.skippableStateDidChange(ad, .eligible, labelID: "List-Label"))])
        #expect(coordinator.skipLabelID == "List-Label")
        let same = coordinator.skipStateChanged(from: .eligible, to: .eligible, event: ad, control: listed)
        #expect(same == [])
        let closed = coordinator.skipStateChanged(from: .eligible, to: .notSkippable, event: ad, control: listed)
        #expect(closed == [.emit(.skippableStateDidChange(ad, .notSkippable, labelID: nil))])
        #expect(coordinator.skipLabelID == nil)
    }

    // MARK: Rate

    struct RateRow: Sendable, CustomTestStringConvertible {
        var name: String
        var events: [InterstitialEvent]
        var rate: Double
        /// The rate the app sets during the break, if any.
        var changedTo: Double?
        var ratesSet: [Double]
        var testDescription: String { self.name }
    }

    static let rateRows: [RateRow] = [
        RateRow(
            name: "X-RESTRICT=SKIP at rate 2: 1 from the first frame, 2 after",
            events: [event("ad", restrict: .skip)],
            rate: 2,
            ratesSet: [1, 2]
        ),
        RateRow(name: "unrestricted event at rate 2: untouched", events: [event("ad")], rate: 2, ratesSet: []),
        RateRow(name: "restricted at rate 1: untouched", events: [event("ad", restrict: .skip)], rate: 1, ratesSet: []),
        RateRow(name: "slow motion is not restricted", events: [event("ad", restrict: .skip)], rate: 0.5, ratesSet: []),
        RateRow(
            name: "pod: unrestricted then restricted, the first rate returns",
            events: [event("a"), event("b", restrict: .skip)],
            rate: 3,
            ratesSet: [1, 3]
        ),
        RateRow(
            name: "app paused during the break: stays paused",
            events: [event("ad", restrict: .skip)],
            rate: 2,
            changedTo: 0,
            ratesSet: [1]
        ),
    ]

    @Test(arguments: rateRows)
    func rate(_ row: RateRow) {
        var coordinator = InterstitialCoordinator()
        var rate = row.rate
        var set: [Double] = []
        func apply(_ actions: [InterstitialCoordinator.Action]) {
            for case .setRate(let r) in actions {
                set.append(r)
                rate = r
            }
        }
        for event in row.events { apply(coordinator.eventWillStart(event, rate: rate)) }
        if let changed = row.changedTo { rate = changed }
        apply(coordinator.breakDidEnd(rate: rate))
        #expect(set == row.ratesSet)
        #expect(coordinator.rateBeforeRestriction == nil)
    }

    // MARK: Events

    /// The log line and the notification come from one value and agree.
    @Test func logAndNotificationDeriveFromOneEvent() throws {
        let ad = Self.event("ad")
        let event = PlayerEvent.eventDidFinish(ad, playoutTime: MediaTime(seconds: 7.5), didPlayEntireEvent: false)
        let entry = try #require(event.logEntry(at: 3))
        #expect(
            entry.description
                == #"{"t":3,"event":"eventDidFinish","eventID":"ad","playoutTime":7.5,"didPlayEntireEvent":false}"#
        )
        guard case .eventDidFinish(let noted, let playout, let entire)? = event.notification else {
            Issue.record("no notification")
            return
        }
        #expect(noted.identifier == "ad" && playout == MediaTime(seconds: 7.5) && !entire)
        // Log-only and notification-only events.
        #expect(PlayerEvent.bufferedTo(presentation: "primary", time: 4).notification == nil)
        #expect(PlayerEvent.timeControlStatusDidChange(.playing, nil).logEntry(at: 0) == nil)
        #expect(PlayerEvent.assetListCleared(ad).logEntry(at: 0) == nil)
        // One key casing: no snake_case key in any line.
        let lines: [PlayerEvent] = [
            .currentEventDidChange(ad, primaryTime: 8, joinedAt: 2),
            .eventIgnored(eventID: "x", rule: "R", message: "m"),
            .skipRefused(eventID: "ad", reason: "r"), .skippableStateDidChange(ad, .eligible, labelID: "L"),
        ]
        for line in lines {
            let text = try #require(line.logEntry(at: 0)).description
            #expect(!text.contains("_"), "\(text)")
        }
    }
}

/// Conversions between `MediaTime` and `Duration` at their edges.
@Suite struct MediaTimeDurationTests {
    @Test func durationToMediaTime() {
        #expect(MediaTime(Duration.milliseconds(1500)) == MediaTime(milliseconds: 1500))
        #expect(MediaTime(Duration.nanoseconds(1)) == MediaTime(nanoseconds: 1))
        #expect(MediaTime(Duration.nanoseconds(-1)) == MediaTime(nanoseconds: -1))
        #expect(MediaTime(Duration.zero) == .zero)
        // Below a nanosecond: truncated.
        #expect(MediaTime(Duration(secondsComponent: 0, attosecondsComponent: 999_999_999)) == .zero)
        // Beyond Int64 nanoseconds: saturated, never trapping.
        #expect(MediaTime(Duration.seconds(Int64.max)) == .maximum)
        #expect(MediaTime(Duration.seconds(-Int64.max)) == .minimum)
        #expect(MediaTime(Duration.seconds(9_223_372_036)) == .maximum)
        #expect(MediaTime(Duration.seconds(9_223_372_035)) == MediaTime(nanoseconds: 9_223_372_035_000_000_000))
    }

    @Test func mediaTimeToDuration() {
        #expect(MediaTime(milliseconds: 1500).duration == .milliseconds(1500))
        #expect(MediaTime(nanoseconds: -7).duration == .nanoseconds(-7))
        #expect(MediaTime.maximum.duration == .nanoseconds(MediaTime.maximum.nanoseconds))
        #expect(MediaTime(MediaTime.maximum.duration) == .maximum)
        #expect(MediaTime(MediaTime.minimum.duration) == .minimum)
    }
}
