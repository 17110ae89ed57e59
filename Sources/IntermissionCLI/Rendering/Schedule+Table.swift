import HLSInterstitials
import HLSPlaylist

extension Schedule {
    /// The schedule as a text table: one row per item with its kind, event, primary range, playout
    /// range, integrated range, resume time and restrictions, under a one-line summary.
    ///
    /// ```text
    /// VOD, primary 30 s, playout 60 s, integrated 30 s
    /// #  kind          event  primary  playout  integrated  resume  restrictions
    /// 0  primary       -      0–5      0–5      0–5         -       -
    /// 1  interstitial  ad1    5        5–20     5–5         5       SKIP
    /// ```
    var table: String {
        // A `schedule` column (the `scheduleIdentifier`) when a scheduled date range produced events.
        let scheduled = self.events.contains { $0.event.scheduleIdentifier != nil }
        var header = ["#", "kind", "event", "primary", "playout", "integrated", "resume", "restrictions"]
        if scheduled { header.insert("schedule", at: 3) }
        var rows: [[String]] = [header]
        for (k, item) in self.items.enumerated() {
            var row = [String(k), item.kind.description, item.eventID ?? "-"]
            if scheduled {
                row.append(item.eventID.flatMap { self.event($0)?.event.scheduleIdentifier } ?? "-")
            }
            if item.isInterstitial {
                row.append(
                    item.startOffset == .zero ? "\(item.primary.start)" : "\(item.primary.start) +\(item.startOffset)"
                )
            } else {
                row.append(item.primary.description)
            }
            row.append(item.playout.description)
            row.append(item.integrated.description)
            row.append(item.isInterstitial ? "\(item.resumeTime)" : "-")
            row.append(item.restrictions.isEmpty ? "-" : item.restrictions.members.joined(separator: ","))
            rows.append(row)
        }
        var widths = [Int](repeating: 0, count: rows[0].count)
        for row in rows {
            for (c, cell) in row.enumerated() { widths[c] = max(widths[c], cell.count) }
        }
        var out = (self.isLive ? "live" : "VOD")
        out +=
            ", primary \(self.primaryDuration) s, playout \(self.playoutDuration) s, integrated \(self.integratedDuration) s"
        if let start = self.start {
            out += ", starts at \(start.primaryTime)"
            if let event = start.eventID, let offset = start.offsetIntoEvent {
                out += " inside \(event) (+\(offset) s)"
            }
        }
        out += "\n"
        for row in rows {
            var line = ""
            for (c, cell) in row.enumerated() {
                line += cell
                if c < row.count - 1 { line += String(repeating: " ", count: widths[c] - cell.count + 2) }
            }
            out += line + "\n"
        }
        let left = self.events.filter { !$0.isScheduled }
        if !left.isEmpty {
            out += "not scheduled: " + left.map { "\($0.identifier) (\($0.status))" }.joined(separator: ", ") + "\n"
        }
        return out
    }
}
