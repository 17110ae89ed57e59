import HLSPlaylist

extension Schedule {
    /// A picture of the schedule as a standalone SVG document.
    ///
    /// Three lanes share one time scale: the **primary** timeline (primary content played as bars,
    /// point interstitials as markers, range interstitials as blocks, arrows from each
    /// interstitial's start to where the primary resumes, `SKIP` / `JUMP` badges), the **playout**
    /// (every item back to back) and the **integrated** timeline (what a progress bar shows).
    /// A time axis with labels runs along the bottom.
    ///
    /// - Parameters:
    ///   - width: The picture's width in pixels.
    ///   - marksLiveEdge: Draws the end of a live playlist (the live edge) as a labelled line on the
    ///     primary lane.
    ///   - standalone: Starts with the XML declaration (a file of its own); `false` leaves it out, for
    ///     an `<svg>` element placed inside an HTML page.
    /// - Returns: The SVG text (UTF-8, no external references).
    public func svg(width: Int = 960, marksLiveEdge: Bool = false, standalone: Bool = true) -> String {
        SVGTimeline(
            schedule: self,
            width: Double(min(max(width, 320), 10_000)),
            marksLiveEdge: marksLiveEdge && self.isLive,
            standalone: standalone
        ).render()
    }
}

/// Draws a schedule as SVG.
private struct SVGTimeline {
    let schedule: Schedule
    let width: Double
    let marksLiveEdge: Bool
    let standalone: Bool

    let left = 96.0
    let right = 24.0
    let laneHeight = 26.0
    let primaryLaneY = 92.0
    let playoutLaneY = 176.0
    let integratedLaneY = 236.0
    let axisY = 286.0
    let height = 330.0

    let primaryColor = "#3b7dd8"
    let interstitialColor = "#f29d38"
    let resumeColor = "#2e9e5b"
    let skipColor = "#8e44ad"
    let jumpColor = "#d0342c"

    /// The largest time drawn on any lane.
    var span: Double {
        var maximum = max(self.schedule.primaryDuration.seconds, self.schedule.playoutDuration.seconds)
        for item in self.schedule.items {
            maximum = max(maximum, item.primary.start.seconds, item.primary.end.seconds)
        }
        return max(maximum, 1)
    }

    var minimum: Double {
        var minimum = 0.0
        for item in self.schedule.items { minimum = min(minimum, item.primary.start.seconds, item.primary.end.seconds) }
        return minimum
    }

    func x(_ seconds: Double) -> Double {
        let plot = self.width - self.left - self.right
        return self.left + (seconds - self.minimum) / (self.span - self.minimum) * plot
    }

    func render() -> String {
        var out = ""
        if self.standalone { out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" }
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(self.width))\" height=\"\(n(self.height))\" "
        out += "viewBox=\"0 0 \(n(self.width)) \(n(self.height))\" font-family=\"Helvetica, Arial, sans-serif\">\n"
        out += "<title>\(escape(self.title))</title>\n"
        out +=
            "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
        out +=
            "orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"\(self.resumeColor)\"/></marker></defs>\n"
        out += "<rect x=\"0\" y=\"0\" width=\"\(n(self.width))\" height=\"\(n(self.height))\" fill=\"#ffffff\"/>\n"
        out += text(12, 22, self.title, size: 15, weight: "bold")
        out += self.legend()
        out += self.grid()
        out += self.laneLabel("primary", y: self.primaryLaneY)
        out += self.laneLabel("playout", y: self.playoutLaneY)
        out += self.laneLabel("integrated", y: self.integratedLaneY)
        out += self.primaryLane()
        if self.marksLiveEdge { out += self.liveEdge() }
        out += self.sequenceLane(y: self.playoutLaneY, span: \.playout)
        out += self.sequenceLane(y: self.integratedLaneY, span: \.integrated)
        out += self.axis()
        out += "</svg>\n"
        return out
    }

    var title: String {
        var title = self.schedule.isLive ? "Live" : "VOD"
        title += " · primary \(seconds(self.schedule.primaryDuration.seconds))"
        title += " · playout \(seconds(self.schedule.playoutDuration.seconds))"
        let count = self.schedule.items.filter(\.isInterstitial).count
        title += " · \(count) interstitial" + (count == 1 ? "" : "s")
        if let start = self.schedule.start {
            title += " · starts at \(seconds(start.primaryTime.seconds))"
            if let event = start.eventID, let offset = start.offsetIntoEvent {
                title += " in \(event) (+\(seconds(offset.seconds)))"
            }
        }
        return title
    }

    func legend() -> String {
        var out = ""
        var x = 12.0
        let y = 36.0
        for (label, color) in [("primary", self.primaryColor), ("interstitial", self.interstitialColor)] {
            out += "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"12\" height=\"12\" rx=\"2\" fill=\"\(color)\"/>\n"
            out += text(x + 16, y + 10, label, size: 11)
            x += 24 + Double(label.count) * 6.5
        }
        out +=
            "<line x1=\"\(n(x))\" y1=\"\(n(y + 6))\" x2=\"\(n(x + 22))\" y2=\"\(n(y + 6))\" stroke=\"\(self.resumeColor)\" "
        out += "stroke-width=\"2\" marker-end=\"url(#arrow)\"/>\n"
        out += text(x + 28, y + 10, "resume point", size: 11)
        x += 112
        out += self.badge("SKIP", x: x, y: y, color: self.skipColor)
        out += text(x + 34, y + 10, "no seek ahead / fast-forward", size: 11)
        x += 206
        out += self.badge("JUMP", x: x, y: y, color: self.jumpColor)
        out += text(x + 34, y + 10, "must play before seeking past", size: 11)
        return out
    }

    func badge(_ label: String, x: Double, y: Double, color: String) -> String {
        "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"30\" height=\"12\" rx=\"3\" fill=\"\(color)\"/>\n"
            + "<text x=\"\(n(x + 15))\" y=\"\(n(y + 9.5))\" font-size=\"8.5\" font-weight=\"bold\" fill=\"#ffffff\" "
            + "text-anchor=\"middle\">\(label)</text>\n"
    }

    func laneLabel(_ label: String, y: Double) -> String {
        var out =
            "<rect x=\"\(n(self.x(self.minimum)))\" y=\"\(n(y))\" width=\"\(n(self.x(self.span) - self.x(self.minimum)))\" "
        out += "height=\"\(n(self.laneHeight))\" fill=\"#f3f4f6\"/>\n"
        out += text(self.left - 10, y + self.laneHeight / 2 + 4, label, size: 12, anchor: "end", color: "#374151")
        return out
    }

    func grid() -> String {
        var out = ""
        for tick in self.ticks() {
            let x = self.x(tick)
            out += "<line x1=\"\(n(x))\" y1=\"\(n(self.primaryLaneY - 34))\" x2=\"\(n(x))\" y2=\"\(n(self.axisY))\" "
            out += "stroke=\"#e5e7eb\" stroke-width=\"1\"/>\n"
        }
        return out
    }

    func axis() -> String {
        var out = "<line x1=\"\(n(self.x(self.minimum)))\" y1=\"\(n(self.axisY))\" x2=\"\(n(self.x(self.span)))\" "
        out += "y2=\"\(n(self.axisY))\" stroke=\"#374151\" stroke-width=\"1\"/>\n"
        for tick in self.ticks() {
            let x = self.x(tick)
            out +=
                "<line x1=\"\(n(x))\" y1=\"\(n(self.axisY))\" x2=\"\(n(x))\" y2=\"\(n(self.axisY + 5))\" stroke=\"#374151\"/>\n"
            out += text(x, self.axisY + 18, seconds(tick), size: 11, anchor: "middle", color: "#374151")
        }
        return out
    }

    /// Round tick values (1, 2 or 5 × a power of ten) covering the span.
    func ticks() -> [Double] {
        let range = self.span - self.minimum
        let target = max(2.0, (self.width - self.left - self.right) / 90)
        let ideal = range / target
        var step = 1.0
        while step * 10 <= ideal { step *= 10 }
        while step > ideal { step /= 10 }
        for factor in [1.0, 2.0, 5.0, 10.0] where range / (step * factor) <= target {
            step *= factor
            break
        }
        var ticks: [Double] = []
        var t = (self.minimum / step).rounded(.up) * step
        while t <= self.span + step * 1e-9 {
            ticks.append(t)
            t += step
        }
        return ticks
    }

    /// The primary lane: primary content as bars, interstitials as markers or blocks, resume arrows.
    func primaryLane() -> String {
        var out = ""
        let y = self.primaryLaneY
        for item in self.schedule.items where !item.isInterstitial {
            out += self.bar(
                from: item.primary.start.seconds,
                to: item.primary.end.seconds,
                y: y,
                color: self.primaryColor,
                label: nil
            )
        }
        if let start = self.schedule.start {
            let x = self.x(start.primaryTime.seconds)
            out += "<line x1=\"\(n(x))\" y1=\"\(n(y - 4))\" x2=\"\(n(x))\" y2=\"\(n(y + self.laneHeight + 14))\" "
            out += "stroke=\"#111827\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n"
            out += text(
                x,
                y + self.laneHeight + 26,
                "start",
                size: 10.5,
                anchor: "middle",
                color: "#111827",
                weight: "bold"
            )
        }
        var labelSlots: [(x: Double, row: Int)] = []
        let interstitials = self.schedule.items.filter(\.isInterstitial)
        for (k, item) in interstitials.enumerated() {
            guard let eventID = item.eventID else { continue }
            let event = self.schedule.event(eventID)
            let start = item.primary.start.seconds
            let x = self.x(start)
            let isRange = event?.event.timelineOccupancy == .range
            if isRange {
                let end = start + (event?.playoutDuration.seconds ?? 0)
                out += "<rect x=\"\(n(x))\" y=\"\(n(y + 3))\" width=\"\(n(max(2, self.x(end) - x)))\" "
                out += "height=\"\(n(self.laneHeight - 6))\" fill=\"\(self.interstitialColor)\" fill-opacity=\"0.55\" "
                out +=
                    "stroke=\"\(self.interstitialColor)\" stroke-width=\"1.5\"><title>\(escape(eventID)) (RANGE)</title></rect>\n"
            }
            // One marker, label and set of badges per start (a pod shares them).
            let isFirstOfPod = k == 0 || interstitials[k - 1].primary.start != item.primary.start
            if isFirstOfPod {
                let pod = interstitials[k...].prefix { $0.primary.start == item.primary.start }
                let label = pod.compactMap { member in
                    member.eventID.map { id in
                        // A scheduled date range's event names its schedule (Appendix H).
                        self.schedule.event(id)?.event.scheduleIdentifier.map { "\($0)/\(id)" } ?? id
                    }
                }.joined(separator: " + ")
                var restrictions = Restrictions()
                for member in pod { restrictions.formUnion(member.restrictions) }
                out += "<line x1=\"\(n(x))\" y1=\"\(n(y - 6))\" x2=\"\(n(x))\" y2=\"\(n(y + self.laneHeight))\" "
                out += "stroke=\"\(self.interstitialColor)\" stroke-width=\"2.5\"/>\n"
                out += "<path d=\"M\(n(x)),\(n(y - 13)) l6,7 l-6,7 l-6,-7 z\" fill=\"\(self.interstitialColor)\" "
                out +=
                    "stroke=\"#ffffff\" stroke-width=\"1\"><title>\(escape(label)) at \(seconds(start))</title></path>\n"
                var row = 0
                let halfWidth = Double(label.count) * 3.2 + 6
                while row < 2, labelSlots.contains(where: { $0.row == row && abs($0.x - x) < halfWidth * 2 }) {
                    row += 1
                }
                labelSlots.append((x, row))
                out += text(x, y - 18 - Double(row) * 12, label, size: 10.5, anchor: "middle", color: "#92400e")
                var badgeX = x - (restrictions == [.skip, .jump] ? 31.5 : 15)
                if restrictions.contains(.skip) {
                    out += self.badge("SKIP", x: badgeX, y: y + self.laneHeight + 4, color: self.skipColor)
                    badgeX += 33
                }
                if restrictions.contains(.jump) {
                    out += self.badge("JUMP", x: badgeX, y: y + self.laneHeight + 4, color: self.jumpColor)
                }
            }
            // Resume arrow: from the scheduled start to the resume point.
            let resume = item.resumeTime.seconds
            if abs(self.x(resume) - x) >= 3 {
                let rx = self.x(resume)
                let mid = (x + rx) / 2
                out += "<path d=\"M\(n(x)),\(n(y + self.laneHeight / 2)) Q\(n(mid)),\(n(y + self.laneHeight + 22)) "
                out += "\(n(rx)),\(n(y + self.laneHeight / 2))\" fill=\"none\" stroke=\"\(self.resumeColor)\" "
                out += "stroke-width=\"2\" marker-end=\"url(#arrow)\"><title>\(escape(eventID)) resumes at "
                out += "\(seconds(resume))</title></path>\n"
            } else {
                out +=
                    "<circle cx=\"\(n(x))\" cy=\"\(n(y + self.laneHeight / 2))\" r=\"3.5\" fill=\"\(self.resumeColor)\">"
                out += "<title>\(escape(eventID)) resumes where it started</title></circle>\n"
            }
        }
        return out
    }

    /// The live edge: the end of the primary timeline of a live playlist.
    func liveEdge() -> String {
        let x = self.x(self.schedule.primaryDuration.seconds)
        let y = self.primaryLaneY
        var out = "<line x1=\"\(n(x))\" y1=\"\(n(y - 26))\" x2=\"\(n(x))\" y2=\"\(n(y + self.laneHeight + 4))\" "
        out += "stroke=\"\(self.jumpColor)\" stroke-width=\"2\"><title>live edge</title></line>\n"
        out += text(x - 4, y - 28, "live edge", size: 10.5, anchor: "end", color: self.jumpColor, weight: "bold")
        return out
    }

    /// A lane where items are laid end to end on one axis (playout or integrated).
    func sequenceLane(y: Double, span: KeyPath<ScheduleItem, ScheduleItem.Span>) -> String {
        var out = ""
        for item in self.schedule.items {
            let s = item[keyPath: span]
            if item.isInterstitial {
                if s.duration == .zero {
                    let x = self.x(s.start.seconds)
                    out +=
                        "<line x1=\"\(n(x))\" y1=\"\(n(y - 4))\" x2=\"\(n(x))\" y2=\"\(n(y + self.laneHeight + 4))\" "
                    out +=
                        "stroke=\"\(self.interstitialColor)\" stroke-width=\"3\"><title>\(escape(item.eventID ?? ""))"
                    out += "</title></line>\n"
                } else {
                    out += self.bar(
                        from: s.start.seconds,
                        to: s.end.seconds,
                        y: y,
                        color: self.interstitialColor,
                        label: item.eventID
                    )
                }
            } else {
                out += self.bar(from: s.start.seconds, to: s.end.seconds, y: y, color: self.primaryColor, label: nil)
            }
        }
        return out
    }

    func bar(from start: Double, to end: Double, y: Double, color: String, label: String?) -> String {
        let x0 = self.x(start)
        let w = max(1, self.x(end) - x0)
        var out =
            "<rect x=\"\(n(x0))\" y=\"\(n(y + 2))\" width=\"\(n(w))\" height=\"\(n(self.laneHeight - 4))\" rx=\"3\" "
        out += "fill=\"\(color)\" stroke=\"#ffffff\" stroke-width=\"1\"><title>\(escape(label ?? "primary")) "
        out += "\(seconds(start))–\(seconds(end))</title></rect>\n"
        if let label, w > Double(label.count) * 6.2 + 6 {
            out += text(
                x0 + w / 2,
                y + self.laneHeight / 2 + 4,
                label,
                size: 10.5,
                anchor: "middle",
                color: "#ffffff",
                weight: "bold"
            )
        }
        return out
    }
}

/// A coordinate with at most two decimals.
private func n(_ value: Double) -> String {
    let scaled = (value * 100).rounded()
    guard scaled.isFinite, abs(scaled) < 1e15 else { return "0" }
    let hundredths = Int64(scaled)
    let sign = hundredths < 0 ? "-" : ""
    let magnitude = hundredths.magnitude
    let whole = magnitude / 100
    let fraction = magnitude % 100
    if fraction == 0 { return sign + String(whole) }
    if fraction % 10 == 0 { return sign + String(whole) + "." + String(fraction / 10) }
    return sign + String(whole) + "." + (fraction < 10 ? "0" : "") + String(fraction)
}

/// A time label: `42 s`, `12.5 s`, `3:20`, `1:02:05`.
private func seconds(_ value: Double) -> String {
    let sign = value < 0 ? "-" : ""
    let v = abs(value)
    if v < 600 {
        let tenths = (v * 10).rounded()
        let text = tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : n(tenths / 10)
        return sign + text + " s"
    }
    let total = Int(v.rounded())
    let h = total / 3600
    let m = (total % 3600) / 60
    let s = total % 60
    let mm = m < 10 && h > 0 ? "0\(m)" : "\(m)"
    let ss = s < 10 ? "0\(s)" : "\(s)"
    return sign + (h > 0 ? "\(h):\(mm):\(ss)" : "\(mm):\(ss)")
}

private func escape(_ text: String) -> String {
    var out = ""
    for c in text {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        default: out.append(c)
        }
    }
    return out
}

private func text(
    _ x: Double,
    _ y: Double,
    _ content: String,
    size: Double,
    anchor: String = "start",
    color: String = "#111827",
    weight: String = "normal"
) -> String {
    "<text x=\"\(n(x))\" y=\"\(n(y))\" font-size=\"\(n(size))\" text-anchor=\"\(anchor)\" fill=\"\(color)\" "
        + "font-weight=\"\(weight)\">\(escape(content))</text>\n"
}
