extension MediaPlaylist {
    /// The index of the segment that plays at media time `time` (the last segment whose start is at
    /// or before it), or `nil` before the first segment or after the last.
    public func segmentIndex(containing time: MediaTime) -> Int? {
        let segments = self.index.segments
        guard let last = segments.last, time.nanoseconds >= 0,
            time.nanoseconds < last.start.saturatingPlus(last.duration)
        else {
            return nil
        }
        var low = 0
        var high = segments.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if segments[mid].start <= time.nanoseconds { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// The date at media time `time` through PROGRAM-DATE-TIME, extrapolated before the first and
    /// after the last segment; `nil` without any PROGRAM-DATE-TIME or segments.
    public func date(at time: MediaTime) -> DateTime? {
        let segments = self.index.segments
        guard self.index.hasProgramDateTime, let first = segments.first, let last = segments.last else { return nil }
        let k: Int
        if time.nanoseconds < first.start {
            k = 0
        } else if time.nanoseconds >= last.start.saturatingPlus(last.duration) {
            k = segments.count - 1
        } else {
            k = self.segmentIndex(containing: time) ?? 0
        }
        let segment = segments[k]
        return DateTime(
            nanosecondsSince1970: segment.date.saturatingPlus(time.nanoseconds.saturatingMinus(segment.start))
        )
    }

    /// Where a date falls on the media timeline, through PROGRAM-DATE-TIME (§6.3.3).
    ///
    /// - Inside a segment's date span: that segment's start plus the offset. Where spans overlap
    ///   (clock corrections at a discontinuity), the later segment wins, as the spec requires.
    /// - In a gap between spans (dates jump forward at a discontinuity): the start of the next segment.
    /// - Before the first segment or after the last: extrapolated from the nearest one, so a live
    ///   event announced ahead of the segments maps to its future media time.
    ///
    /// Returns `nil` when the playlist has no PROGRAM-DATE-TIME or no segments.
    public func time(at date: DateTime) -> MediaTime? {
        self.timeMapping(at: date)?.time
    }

    /// Like ``time(at:)``, with the index of the segment used (`segments.count` past the end).
    public func timeMapping(at date: DateTime) -> (time: MediaTime, segment: Int)? {
        let segments = self.index.segments
        guard self.index.hasProgramDateTime, let first = segments.first, let last = segments.last else { return nil }
        let d = date.nanosecondsSince1970
        if d < first.date {
            return (MediaTime(nanoseconds: first.start.saturatingPlus(d.saturatingMinus(first.date))), 0)
        }
        if d >= last.date.saturatingPlus(last.duration) {
            return (MediaTime(nanoseconds: last.start.saturatingPlus(d.saturatingMinus(last.date))), segments.count)
        }
        // Dates are mostly monotonic; binary search for the last segment starting at or before d,
        // then walk back over overlaps (prefer the later segment) and forward over gaps.
        var low = 0
        var high = segments.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if segments[mid].date <= d { low = mid } else { high = mid - 1 }
        }
        var k = low
        // Non-monotonic dates (a discontinuity jumped back): scan for the latest containing segment.
        if !(segments[k].date <= d && d < segments[k].date.saturatingPlus(segments[k].duration)) {
            var found = -1
            for j in stride(from: segments.count - 1, through: 0, by: -1)
            where segments[j].date <= d && d < segments[j].date.saturatingPlus(segments[j].duration) {
                found = j
                break
            }
            if found >= 0 {
                k = found
            } else {
                // In a gap: the next segment whose date is after d.
                var next = segments.count
                for j in 0..<segments.count where segments[j].date > d {
                    next = j
                    break
                }
                if next < segments.count {
                    return (MediaTime(nanoseconds: segments[next].start), next)
                }
                return (MediaTime(nanoseconds: last.start.saturatingPlus(d.saturatingMinus(last.date))), segments.count)
            }
        } else {
            // Later segments that also contain d (overlap) win.
            var j = k + 1
            while j < segments.count, segments[j].date <= d {
                if d < segments[j].date.saturatingPlus(segments[j].duration) { k = j }
                j += 1
            }
        }
        let segment = segments[k]
        return (MediaTime(nanoseconds: segment.start.saturatingPlus(d.saturatingMinus(segment.date))), k)
    }

    /// The segment boundary nearest to `time` (segment starts and the end of the last segment).
    public func nearestSegmentBoundary(to time: MediaTime) -> MediaTime? {
        let segments = self.index.segments
        guard let last = segments.last else { return nil }
        let end = last.start.saturatingPlus(last.duration)
        if time.nanoseconds <= 0 { return MediaTime(nanoseconds: segments[0].start) }
        if time.nanoseconds >= end { return MediaTime(nanoseconds: end) }
        let k = self.segmentIndex(containing: time) ?? 0
        let before = segments[k].start
        let after = segments[k].start.saturatingPlus(segments[k].duration)
        return MediaTime(
            nanoseconds: time.nanoseconds.saturatingMinus(before) <= after.saturatingMinus(time.nanoseconds)
                ? before : after
        )
    }
}
