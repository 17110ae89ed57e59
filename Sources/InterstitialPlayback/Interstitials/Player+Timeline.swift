import HLSInterstitials
import HLSPlaylist

extension Player {
    // MARK: Integrated timeline

    /// The playhead on the integrated timeline.
    func integratedPosition() -> MediaTime {
        guard let schedule = self.interstitials.schedule else { return self.primaryPosition }
        let offset = self.interstitials.offset
        if let run = self.interstitials.current, let index = schedule.index(of: .interstitial(run.eventID)) {
            let item = schedule.items[index]
            return item.integrated.start + MediaTime.min(run.eventTime, item.integrated.duration)
        }
        let p = self.primaryPosition - offset
        for item in schedule.items where item.kind == .primary && item.primary.start <= p && p <= item.primary.end {
            return item.integrated.start + (p - item.primary.start)
        }
        return p
    }

    /// A snapshot of the integrated timeline for user interfaces: primary stretches and
    /// interstitials in play order with their ranges, the current segment and position.
    public func integratedTimelineSnapshot() -> IntegratedTimelineSnapshot {
        let offset = self.interstitials.offset
        guard let schedule = self.interstitials.schedule else {
            return IntegratedTimelineSnapshot(
                segments: [],
                currentSegmentIndex: nil,
                currentTime: self.primaryPosition,
                duration: self.primary?.duration,
                isLive: self.primary?.isLive ?? false
            )
        }
        let segments = schedule.items.map { item in
            IntegratedTimelineSnapshot.Segment(
                kind: item.kind,
                event: item.eventID.flatMap { id in self.interstitials.events.first { $0.identifier == id } },
                primary: ScheduleItem.Span(start: item.primary.start + offset, end: item.primary.end + offset),
                playout: item.playout,
                integrated: item.integrated
            )
        }
        let time = self.integratedPosition()
        var current: Int?
        if let run = self.interstitials.current {
            current = schedule.index(of: .interstitial(run.eventID))
        } else {
            current = segments.firstIndex {
                $0.kind == .primary && $0.primary.start <= self.primaryPosition
                    && self.primaryPosition <= $0.primary.end
            }
        }
        return IntegratedTimelineSnapshot(
            segments: segments,
            currentSegmentIndex: current,
            currentTime: time,
            duration: schedule.isLive ? nil : schedule.integratedDuration,
            isLive: schedule.isLive
        )
    }
}

/// The integrated timeline at one moment (AVFoundation `AVPlayerItemIntegratedTimelineSnapshot`).
public struct IntegratedTimelineSnapshot: Sendable, Hashable {
    /// One stretch of the timeline (AVFoundation `AVPlayerItemSegment`).
    public struct Segment: Sendable, Hashable {
        /// Primary content or an interstitial.
        public var kind: ScheduleItem.Kind
        /// The interstitial's event (`nil` for primary content).
        public var event: InterstitialEvent?
        /// The range on the primary timeline (for an interstitial: its start to the resume point).
        public var primary: ScheduleItem.Span
        /// The range on the playout axis.
        public var playout: ScheduleItem.Span
        /// The range on the integrated axis (point events have zero width).
        public var integrated: ScheduleItem.Span
    }
    /// The segments in play order.
    public var segments: [Segment]
    /// The segment playing.
    public var currentSegmentIndex: Int?
    /// The playhead on the integrated axis.
    public var currentTime: MediaTime
    /// The integrated duration; `nil` for live or before loading.
    public var duration: MediaTime?
    /// Whether the primary is live.
    public var isLive: Bool
}
