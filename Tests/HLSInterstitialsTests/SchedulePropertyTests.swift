import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import Testing

/// Random playlists and events, checked against the schedule's invariants.
@Suite struct SchedulePropertyTests {
    static let seeds: [UInt64] = Array(1...200)

    /// A random primary: 5–40 segments of 1–8 s (millisecond precision), PDT on the first one,
    /// sometimes a discontinuity with a date jump; VOD or live.
    static func playlist(_ g: inout SeededGenerator, live: Bool) -> MediaPlaylist {
        var text = "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:8\n"
        if !live { text += "#EXT-X-PLAYLIST-TYPE:VOD\n" }
        var date = ScheduleFixture.date(0)
        let count = Int.random(in: 5...40, using: &g)
        for k in 0..<count {
            if k > 0, Int.random(in: 0..<12, using: &g) == 0 {
                date = date + MediaTime(milliseconds: Int64.random(in: 0...3000, using: &g))
                text += "#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:\(date.iso8601)\n"
            } else if k == 0 {
                text += "#EXT-X-PROGRAM-DATE-TIME:\(date.iso8601)\n"
            }
            let duration = MediaTime(milliseconds: Int64.random(in: 1000...8000, using: &g))
            text += "#EXTINF:\(duration),\ns\(k).ts\n"
            date = date + duration
        }
        if !live { text += "#EXT-X-ENDLIST\n" }
        return try! MediaPlaylist(parsing: text)
    }

    /// Random events: distinct starts (some shared by pods), by time or date, random cue, offsets,
    /// limits, occupancy and (optionally) snapping.
    static func events(_ g: inout SeededGenerator, span: MediaTime, snap: Bool) -> [InterstitialEvent] {
        var events: [InterstitialEvent] = []
        var starts: [MediaTime] = []
        let count = Int.random(in: 0...12, using: &g)
        for k in 0..<count {
            var start: MediaTime
            if let previous = starts.last, Bool.random(using: &g), Int.random(in: 0..<3, using: &g) == 0 {
                start = previous
            } else {
                repeat {
                    start = MediaTime(milliseconds: Int64.random(in: 0...(span.milliseconds + 5000), using: &g))
                } while starts.contains(start)
            }
            starts.append(start)
            var event: InterstitialEvent
            if Bool.random(using: &g) {
                event = InterstitialEvent(identifier: "e\(k)", time: start)
            } else {
                event = InterstitialEvent(identifier: "e\(k)", date: ScheduleFixture.date(start.seconds))
            }
            switch Int.random(in: 0..<10, using: &g) {
            case 0: event.cue = .join
            case 1: event.cue = .leave
            default: break
            }
            event.willPlayOnce = Int.random(in: 0..<4, using: &g) == 0
            if Int.random(in: 0..<5, using: &g) > 0 {
                event.duration = MediaTime(milliseconds: Int64.random(in: 0...30_000, using: &g))
            }
            switch Int.random(in: 0..<4, using: &g) {
            case 0: event.resumptionOffset = nil
            case 1: event.resumptionOffset = .zero
            case 2: event.resumptionOffset = MediaTime(milliseconds: Int64.random(in: -10_000...20_000, using: &g))
            default: event.resumptionOffset = event.duration
            }
            if Int.random(in: 0..<4, using: &g) == 0 {
                event.playoutLimit = MediaTime(milliseconds: Int64.random(in: 1...20_000, using: &g))
            }
            if Bool.random(using: &g) { event.timelineOccupancy = .range }
            if Int.random(in: 0..<3, using: &g) == 0 { event.restrictions = [.jump] }
            if snap {
                event.alignsStartWithPrimarySegmentBoundary = Bool.random(using: &g)
                event.alignsResumptionWithPrimarySegmentBoundary = Bool.random(using: &g)
            }
            events.append(event)
        }
        return events
    }

    static func configuration(
        _ g: inout SeededGenerator,
        span: MediaTime,
        events: [InterstitialEvent]
    ) -> Schedule.Configuration {
        var configuration = Schedule.Configuration()
        switch Int.random(in: 0..<4, using: &g) {
        case 0: configuration.start = .beginning
        case 1: configuration.start = .liveJoin
        case 2: configuration.start = .time(MediaTime(milliseconds: Int64.random(in: 0...span.milliseconds, using: &g)))
        default: configuration.start = nil
        }
        for event in events where Int.random(in: 0..<4, using: &g) == 0 {
            configuration.playedEventIDs.insert(event.identifier)
        }
        for event in events where Int.random(in: 0..<4, using: &g) == 0 {
            configuration.assetDurations[event.identifier] = [
                MediaTime(milliseconds: Int64.random(in: 0...20_000, using: &g))
            ]
        }
        return configuration
    }

    @Test(arguments: seeds)
    func playoutNeverRunsBackwardsAndIntegratedNeverExceedsPlayout(seed: UInt64) {
        var g = SeededGenerator(seed: seed)
        let live = Bool.random(using: &g)
        let playlist = Self.playlist(&g, live: live)
        let events = Self.events(&g, span: playlist.duration, snap: true)
        let configuration = Self.configuration(&g, span: playlist.duration, events: events)
        let schedule = Schedule(primary: playlist, events: events, configuration: configuration)
        var playout = MediaTime.zero
        var integrated = MediaTime.zero
        var ids = Set<ScheduleItem.ID>()
        for item in schedule.items {
            #expect(item.playout.start == playout, "seed \(seed): playout is contiguous")
            #expect(item.playout.end >= item.playout.start, "seed \(seed): playout never runs backwards")
            #expect(item.integrated.start == integrated, "seed \(seed): integrated is contiguous")
            #expect(item.integrated.end >= item.integrated.start, "seed \(seed)")
            #expect(
                item.integrated.end - item.integrated.start <= item.playout.end - item.playout.start,
                "seed \(seed)"
            )
            #expect(item.integrated.end <= item.playout.end, "seed \(seed): integrated never exceeds playout")
            #expect(ids.insert(item.id).inserted, "seed \(seed): identities are unique")
            if !item.isInterstitial { #expect(item.primary.end > item.primary.start, "seed \(seed)") }
            playout = item.playout.end
            integrated = item.integrated.end
        }
        // Every scheduled event has exactly one item, and only scheduled ones do.
        let scheduled = schedule.events.filter(\.isScheduled).map(\.identifier)
        #expect(scheduled == schedule.items.compactMap(\.eventID), "seed \(seed)")
        #expect(schedule.events.count == events.count)
    }

    @Test(arguments: seeds)
    func theOrderOfInputsDoesNotMatter(seed: UInt64) {
        var g = SeededGenerator(seed: seed)
        let playlist = Self.playlist(&g, live: Bool.random(using: &g))
        let events = Self.events(&g, span: playlist.duration, snap: false)
        let configuration = Self.configuration(&g, span: playlist.duration, events: events)
        let reference = Schedule(primary: playlist, events: events, configuration: configuration)
        // Shuffle, then put events sharing a start back in playlist order in the slots they hold.
        var shuffled = events.shuffled(using: &g)
        func key(_ e: InterstitialEvent) -> String {
            e.cue == .none
                ? "\(playlist.time(at: e.date ?? ScheduleFixture.date(0)).map { e.date == nil ? e.time! : $0 }!)"
                : "\(e.cue)"
        }
        var groups: [String: [InterstitialEvent]] = [:]
        for event in events { groups[key(event), default: []].append(event) }
        var taken: [String: Int] = [:]
        for k in shuffled.indices {
            let group = key(shuffled[k])
            shuffled[k] = groups[group]![taken[group, default: 0]]
            taken[group, default: 0] += 1
        }
        let other = Schedule(primary: playlist, events: shuffled, configuration: configuration)
        #expect(other == reference, "seed \(seed)")
    }

    @Test(arguments: seeds)
    func anIncrementalUpdateEqualsAFreshBuild(seed: UInt64) {
        var g = SeededGenerator(seed: seed)
        // A live playlist that grows by a few segments and gains and changes events.
        let full = Self.playlist(&g, live: true)
        let text = full.text
        let segmentLines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let uriCount = full.timings.count
        let keep = Int.random(in: max(1, uriCount / 2)...uriCount, using: &g)
        var prefix = ""
        var seen = 0
        for line in segmentLines {
            if seen == keep { break }
            prefix += line + "\n"
            if line.hasSuffix(".ts") { seen += 1 }
        }
        let before = try! MediaPlaylist(parsing: prefix)
        let allEvents = Self.events(&g, span: full.duration, snap: true)
        let initial = Array(allEvents.prefix(Int.random(in: 0...allEvents.count, using: &g)))
        var configuration = Self.configuration(&g, span: before.duration, events: allEvents)
        var schedule = Schedule(primary: before, events: initial, configuration: configuration)
        var later = allEvents
        if !later.isEmpty, Bool.random(using: &g) {
            let k = Int.random(in: 0..<later.count, using: &g)
            later[k].playoutLimit = MediaTime(milliseconds: Int64.random(in: 1...9000, using: &g))
        }
        schedule.update(primary: full, events: later)
        let played = allEvents.first?.identifier ?? "none"
        schedule.markPlayed(played)
        schedule.setAssetDurations([7, 8], forEvent: allEvents.last?.identifier ?? "none")
        // The fresh build starts where the first one did.
        if let start = schedule.start { configuration.start = .time(start.requestedTime) }
        configuration.playedEventIDs.insert(played)
        if let last = allEvents.last { configuration.assetDurations[last.identifier] = [7, 8] }
        let fresh = Schedule(primary: full, events: later, configuration: configuration)
        #expect(schedule.items == fresh.items, "seed \(seed)")
        #expect(schedule.events == fresh.events, "seed \(seed)")
        #expect(schedule.start == fresh.start, "seed \(seed)")
    }
}
