import HLSInterstitials
import HLSPlaylist
import IntermissionTestSupport
import Testing

/// Random live channels reloaded many times in a row, each reload checked against a fresh build.
///
/// Segments are appended and removed from the front, interstitial date ranges added, changed and
/// removed, `EXT-X-ENDLIST` appears. After every reload, the schedule brought up to date with
/// `update(primary:events:)` equals one built from scratch on the same playlist.
@Suite struct ScheduleLiveReloadTests {
    static let seeds: [UInt64] = Array(1...60)

    /// One interstitial date range of the channel, as its server writes it.
    struct Range {
        var id: String
        /// `START-DATE`, in milliseconds from the channel's first date.
        var start: Int64
        var duration: Int64?
        var resumeOffset: Int64?
        var playoutLimit: Int64?
        var cue: String?
        var snap: String?
        var occupiesRange: Bool
        var uri: String
        var beacon: String

        var tag: String {
            func seconds(_ milliseconds: Int64) -> String { MediaTime(milliseconds: milliseconds).description }
            var text = "#EXT-X-DATERANGE:ID=\"\(self.id)\",CLASS=\"com.apple.hls.interstitial\","
            text += "START-DATE=\"\(ScheduleLiveReloadTests.date(self.start).iso8601)\","
            if let duration = self.duration { text += "DURATION=\(seconds(duration))," }
            text += "X-ASSET-URI=\"\(self.uri)\""
            if let offset = self.resumeOffset { text += ",X-RESUME-OFFSET=\(seconds(offset))" }
            if let limit = self.playoutLimit { text += ",X-PLAYOUT-LIMIT=\(seconds(limit))" }
            if let cue = self.cue { text += ",CUE=\"\(cue)\"" }
            if let snap = self.snap { text += ",X-SNAP=\"\(snap)\"" }
            if self.occupiesRange { text += ",X-TIMELINE-OCCUPIES=\"RANGE\"" }
            return text + ",X-COM-EXAMPLE-BEACON=\"\(self.beacon)\"\n"
        }
    }

    /// The channel: every segment produced so far, the window the playlist shows, the date ranges.
    struct Channel {
        /// Each segment's duration and date, in milliseconds.
        var durations: [Int64] = []
        var dates: [Int64] = []
        var discontinuities: Set<Int> = []
        var first = 0
        var ranges: [Range] = []
        var ended = false
        var rangeCount = 0

        var endDate: Int64 { (self.dates.last ?? 0) + (self.durations.last ?? 0) }

        mutating func appendSegment(_ g: inout SeededGenerator) {
            var date = self.endDate
            if !self.dates.isEmpty, Int.random(in: 0..<10, using: &g) == 0 {
                date += Int64.random(in: 0...3000, using: &g)
                self.discontinuities.insert(self.dates.count)
            }
            self.dates.append(date)
            self.durations.append(Int64.random(in: 1000...6000, using: &g))
        }

        mutating func addRange(_ g: inout SeededGenerator) {
            self.rangeCount += 1
            let id = "break-\(self.rangeCount)"
            var range = Range(
                id: id,
                start: max(0, self.endDate + Int64.random(in: -20_000...40_000, using: &g)),
                occupiesRange: Bool.random(using: &g),
                uri: "https://ads.example.com/creatives/\(id)/main.m3u8?_HLS_interstitial_id=\(id)",
                beacon: "https://track.example.com/v1/imp/ch1/\(id)"
            )
            if Int.random(in: 0..<5, using: &g) > 0 { range.duration = Int64.random(in: 0...30_000, using: &g) }
            switch Int.random(in: 0..<4, using: &g) {
            case 0: range.resumeOffset = 0
            case 1: range.resumeOffset = Int64.random(in: -5000...20_000, using: &g)
            default: break
            }
            if Int.random(in: 0..<4, using: &g) == 0 { range.playoutLimit = Int64.random(in: 1...20_000, using: &g) }
            switch Int.random(in: 0..<12, using: &g) {
            case 0: range.cue = "PRE"
            case 1: range.cue = "POST"
            case 2, 3: range.cue = "ONCE"
            default: break
            }
            range.snap = ["OUT", "IN", "OUT,IN", nil, nil].randomElement(using: &g)!
            self.ranges.append(range)
        }

        mutating func changeRange(_ g: inout SeededGenerator) {
            guard !self.ranges.isEmpty else { return }
            let k = Int.random(in: 0..<self.ranges.count, using: &g)
            switch Int.random(in: 0..<7, using: &g) {
            case 0: self.ranges[k].duration = Int64.random(in: 0...30_000, using: &g)
            case 1: self.ranges[k].resumeOffset = Int64.random(in: 0...15_000, using: &g)
            case 2: self.ranges[k].playoutLimit = Int64.random(in: 1...9000, using: &g)  // an early return
            case 3: self.ranges[k].uri = String(self.ranges[k].uri.map { $0 == "8" ? "9" : $0 == "9" ? "8" : $0 })
            case 4: self.ranges[k].beacon += "?v=2"
            case 5: self.ranges[k].snap = self.ranges[k].snap == nil ? "OUT,IN" : nil
            default: self.ranges[k].start += Int64.random(in: -4000...4000, using: &g)
            }
        }

        var text: String {
            var text = "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:\(self.first)\n"
            for range in self.ranges { text += range.tag }
            for k in self.first..<self.dates.count {
                if k > self.first, self.discontinuities.contains(k) { text += "#EXT-X-DISCONTINUITY\n" }
                text += "#EXT-X-PROGRAM-DATE-TIME:\(ScheduleLiveReloadTests.date(self.dates[k]).iso8601)\n"
                text += "#EXTINF:\(MediaTime(milliseconds: self.durations[k])),\ns\(k).ts\n"
            }
            if self.ended { text += "#EXT-X-ENDLIST\n" }
            return text
        }
    }

    static func date(_ milliseconds: Int64) -> DateTime {
        DateTime(iso8601: "2024-01-01T00:00:00.000Z")! + MediaTime(milliseconds: milliseconds)
    }

    /// The schedule built from scratch on `playlist` with the updated schedule's configuration,
    /// starting where the updated one does.
    static func fresh(like schedule: Schedule, primary playlist: MediaPlaylist, events: [InterstitialEvent]) -> Schedule
    {
        var configuration = schedule.configuration
        if let start = schedule.start { configuration.start = .time(start.requestedTime) }
        return Schedule(primary: playlist, events: events, configuration: configuration)
    }

    @Test(arguments: seeds)
    func everyReloadEqualsAFreshBuild(seed: UInt64) throws {
        var g = SeededGenerator(seed: seed &* 7919 &+ 11)
        var channel = Channel()
        for _ in 0..<Int.random(in: 4...30, using: &g) { channel.appendSegment(&g) }
        for _ in 0..<Int.random(in: 0...6, using: &g) { channel.addRange(&g) }
        let starts: [Schedule.StartRequest] = [.beginning, .liveJoin, .time(MediaTime(milliseconds: 9000))]
        var configuration = Schedule.Configuration(start: starts.randomElement(using: &g)!)
        if Int.random(in: 0..<10, using: &g) == 0 { configuration.handlesInterstitialEvents = false }
        var playlist = try MediaPlaylist(parsing: channel.text)
        var schedule = Schedule(
            primary: playlist,
            events: InterstitialEvent.events(in: playlist),
            configuration: configuration
        )
        for step in 0..<40 {
            for _ in 0..<Int.random(in: 0...3, using: &g) { channel.appendSegment(&g) }
            if Int.random(in: 0..<4, using: &g) == 0, channel.dates.count - channel.first > 4 {
                channel.first += Int.random(in: 1...2, using: &g)
            }
            for _ in 0..<Int.random(in: 0...2, using: &g) { channel.addRange(&g) }
            for _ in 0..<Int.random(in: 0...2, using: &g) { channel.changeRange(&g) }
            if Int.random(in: 0..<8, using: &g) == 0, !channel.ranges.isEmpty {
                channel.ranges.remove(at: Int.random(in: 0..<channel.ranges.count, using: &g))
            }
            if step > 3, Int.random(in: 0..<25, using: &g) == 0 { channel.ended = true }
            playlist = try MediaPlaylist(parsing: channel.text)
            let events = InterstitialEvent.events(in: playlist)
            schedule.update(primary: playlist, events: events)
            #expect(events.count == channel.ranges.count)
            if let id = channel.ranges.randomElement(using: &g)?.id, Int.random(in: 0..<6, using: &g) == 0 {
                if Bool.random(using: &g) {
                    schedule.markPlayed(id)
                } else {
                    schedule.setAssetDurations(
                        [MediaTime(milliseconds: Int64.random(in: 0...20_000, using: &g))],
                        forEvent: id
                    )
                }
            }
            let fresh = Self.fresh(like: schedule, primary: playlist, events: events)
            #expect(schedule.items == fresh.items, "seed \(seed), reload \(step)")
            #expect(schedule.events == fresh.events, "seed \(seed), reload \(step)")
            #expect(schedule.start == fresh.start, "seed \(seed), reload \(step)")
            #expect(schedule.isLive == fresh.isLive && schedule.primaryDuration == fresh.primaryDuration)
            guard schedule == fresh else { return }
            if channel.ended { break }
        }
    }

    /// The benchmark's shape, small: one new segment with a new tag, or with a changed range, at
    /// the live edge of a long window is applied in place and changes only the tail.
    @Test func oneSegmentAndOneRangeAtTheLiveEdgeChangeOnlyTheTail() throws {
        var g = SeededGenerator(seed: 16)
        var channel = Channel()
        for _ in 0..<400 { channel.appendSegment(&g) }
        for k in 0..<40 {
            channel.rangeCount += 1
            channel.ranges.append(
                Range(
                    id: "break-\(k)",
                    start: channel.dates[10 * k + 5],
                    duration: 15_000,
                    resumeOffset: 0,
                    occupiesRange: false,
                    uri: "https://ads.example.com/creatives/break-\(k)/main.m3u8",
                    beacon: "https://track.example.com/v1/imp/ch1/break-\(k)"
                )
            )
        }
        let base = try MediaPlaylist(parsing: channel.text)
        let baseEvents = InterstitialEvent.events(in: base)
        #expect(baseEvents.count == 40)
        let built = Schedule(primary: base, events: baseEvents, configuration: .init(start: .beginning))
        var next = channel
        next.appendSegment(&g)
        var added = next
        added.addRange(&g)
        added.ranges[40].cue = nil
        added.ranges[40].start = added.endDate + 10_000
        var changed = next
        changed.ranges[39].duration = 9000
        for reload in [added, changed] {
            let playlist = try MediaPlaylist(parsing: reload.text)
            let events = InterstitialEvent.events(in: playlist)
            var schedule = built
            let update = schedule.update(primary: playlist, events: events)
            #expect(update.isRebuilt == false)
            // The 40 breaks make about 80 items; only those of the last break or later change.
            #expect(try #require(update.firstChangedItem) >= 70, "\(update)")
            #expect(schedule == Self.fresh(like: schedule, primary: playlist, events: events))
        }
    }
}
