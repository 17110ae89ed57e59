/// What `/` shows: the channels and VOD assets with their timelines, breaks and latest decisions.
///
/// A value made by ``WebController`` from the server's state and rendered to HTML by ``html(nonce:)``:
/// every text from outside (IDs, URLs, messages) is escaped with ``HTMLText/escape(_:)``; the SVG
/// timelines come from `Schedule.svg(width:marksLiveEdge:standalone:)`, which escapes its own text.
struct DashboardPage: Sendable {
    /// One decision as the page lists it.
    struct Decision: Sendable {
        /// The viewer's keyed tag, or its ID when the admin asks (see `WebController.page(showingViewers:)`).
        var viewer: String
        var decidedAt: String
        var creatives: [String]
    }

    /// One break of a channel or asset.
    struct Break: Sendable {
        var id: String
        /// Where it starts: an ISO 8601 date (live) or a position (`pre-roll`, `at 20 s`, `post-roll`).
        var start: String
        var duration: Double
        /// `upcoming`, `on air`, `over`, `cancelled`, or `planned` (VOD).
        var state: String
        /// `scheduled`, `admin`, `scte35`, `vod`.
        var origin: String
        /// The latest decisions for the break, newest first.
        var decisions: [Decision]
    }

    /// A live channel or a VOD asset.
    struct Presentation: Sendable {
        var id: String
        /// The playlist URL (path-absolute).
        var playlistURL: String
        /// What it plays: `loop of …` or `upstream …` (redacted).
        var source: String
        /// The timeline as an `<svg>` element, or `nil` when it could not be drawn.
        var svg: String?
        /// Why the timeline is missing.
        var problem: String?
        /// The live edge (the end of the live playlist) as an ISO 8601 date.
        var liveEdge: String?
        var breaks: [Break]
    }

    /// Beacons received for a listed break and event, as the tracking store counts them (made by
    /// ``WebController/beacons(channels:assets:)``).
    struct BeaconRow: Sendable {
        var scope: String
        var breakID: String
        var event: String
        var count: Int
    }

    /// Creative conditioning (see `CreativeConditioner`), when it is configured.
    struct Conditioning: Sendable {
        /// Creatives by state (`pending`, `conditioning`, `ready`, `failed`), in that order.
        var states: [(state: String, count: Int)]
        /// Creatives waiting for a job on this instance.
        var queued: Int
        /// Jobs running on this instance.
        var running: Int
        /// Why nothing can be conditioned (a missing tool), if so.
        var problem: String?
        /// The latest failures: creative, attempts, error.
        var failures: [(creative: String, attempts: Int, error: String)]
    }

    var now: String
    var channels: [Presentation]
    var assets: [Presentation]
    /// Decisions stored in all (from the store), when it can count them.
    var decisionCount: Int?
    /// `nil` when the tracking store did not answer.
    var beacons: [BeaconRow]?
    /// Seconds between reloads of the page.
    var refreshSeconds: Int = 5
    /// Creative conditioning, `nil` when it is not configured.
    var conditioning: Conditioning? = nil

    /// The `Content-Security-Policy` of the page: nothing from outside; scripts and styles only
    /// inline with the response's nonce; `fetch` to this server only.
    static func contentSecurityPolicy(nonce: String) -> String {
        "default-src 'none'; script-src 'nonce-\(nonce)'; style-src 'nonce-\(nonce)'; img-src 'self' data:; "
            + "connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"
    }

    /// The whole page.
    ///
    /// - Parameter nonce: The nonce of this response's inline script and style (base64 or hex).
    func html(nonce: String) -> String {
        let e = HTMLText.escape
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        out += "<title>Intermission</title>\n"
        out += "<noscript><meta http-equiv=\"refresh\" content=\"\(self.refreshSeconds)\"></noscript>\n"
        out += "<style nonce=\"\(e(nonce))\">\(Self.style)</style>\n</head>\n<body>\n"
        out += "<header><h1>Intermission</h1><p class=\"meta\">Server time <time id=\"now\">\(e(self.now))</time>"
        if let count = self.decisionCount {
            out += " · <span id=\"decision-count\">\(count)</span> decision\(count == 1 ? "" : "s") stored"
        }
        out += " · refreshes every \(self.refreshSeconds) s · <a href=\"/openapi.yaml\">API (OpenAPI)</a>"
        out += " · <a href=\"/health\">health</a> · <a href=\"/metrics\">metrics</a></p>\n"
        out += "<p class=\"admin\"><label for=\"token\">Admin token</label> "
        out += "<input type=\"password\" id=\"token\" autocomplete=\"off\" placeholder=\"needed to start a break\"> "
        out += "<span id=\"status\" role=\"status\"></span></p>\n</header>\n<main>\n"
        out += "<h2>Live channels</h2>\n"
        if self.channels.isEmpty { out += "<p class=\"empty\">No live channels are configured.</p>\n" }
        for channel in self.channels { out += self.section(channel, live: true) }
        out += "<h2>VOD assets</h2>\n"
        if self.assets.isEmpty { out += "<p class=\"empty\">No VOD assets are configured.</p>\n" }
        for asset in self.assets { out += self.section(asset, live: false) }
        out += "<h2>Beacons received</h2>\n" + self.beaconTable()
        if let conditioning = self.conditioning { out += Self.conditioningSection(conditioning) }
        out += "</main>\n<script nonce=\"\(e(nonce))\">\(Self.script(refreshSeconds: self.refreshSeconds))</script>\n"
        out += "</body>\n</html>\n"
        return out
    }

    /// The conditioning section: counts by state, this instance's queue, the latest failures.
    static func conditioningSection(_ c: Conditioning) -> String {
        let e = HTMLText.escape
        var out = "<h2>Creative conditioning</h2>\n<p class=\"meta\" id=\"conditioning\">"
        out += c.states.map { "<span data-state=\"\(e($0.state))\">\($0.count) \(e($0.state))</span>" }
            .joined(separator: " · ")
        out += " · \(c.queued) queued · \(c.running) running here</p>\n"
        if let problem = c.problem { out += "<p class=\"problem\">\(e(problem))</p>\n" }
        if !c.failures.isEmpty {
            out += "<table class=\"failures\"><thead><tr><th>Creative</th><th>Attempts</th><th>Last error</th></tr>"
            out += "</thead><tbody>\n"
            for failure in c.failures {
                out +=
                    "<tr><td>\(e(failure.creative))</td><td>\(failure.attempts)</td><td>\(e(failure.error))</td></tr>\n"
            }
            out += "</tbody></table>\n"
        }
        return out
    }

    private func section(_ p: Presentation, live: Bool) -> String {
        let e = HTMLText.escape
        let kind = live ? "channel" : "asset"
        var out = "<section class=\"\(kind)\" data-\(kind)=\"\(e(p.id))\">\n"
        out += "<h3><span class=\"id\">\(e(p.id))</span> <a href=\"\(e(p.playlistURL))\">\(e(p.playlistURL))</a></h3>\n"
        out += "<p class=\"meta\">\(e(p.source))"
        if let edge = p.liveEdge { out += " · live edge <time class=\"live-edge\">\(e(edge))</time>" }
        out += "</p>\n"
        if live {
            out += "<p class=\"actions\"><label>Duration (s) <input type=\"number\" class=\"duration\" min=\"1\" "
            out += "max=\"3600\" step=\"1\" value=\"20\"></label> <button type=\"button\" class=\"start-break\" "
            out += "data-channel=\"\(e(p.id))\">Start a break now</button></p>\n"
        }
        if let svg = p.svg {
            out += "<figure class=\"timeline\">\(svg)</figure>\n"
        } else {
            out += "<p class=\"problem\">No timeline: \(e(p.problem ?? "the playlist could not be read"))</p>\n"
        }
        out += self.breakTable(p.breaks)
        out += "</section>\n"
        return out
    }

    private func breakTable(_ breaks: [Break]) -> String {
        let e = HTMLText.escape
        guard !breaks.isEmpty else { return "<p class=\"empty\">No breaks.</p>\n" }
        var out = "<table class=\"breaks\">\n<thead><tr><th>Break</th><th>Start</th><th>Duration</th><th>State</th>"
        out += "<th>Origin</th><th>Latest decisions</th></tr></thead>\n<tbody>\n"
        for b in breaks {
            out += "<tr class=\"\(b.state == "on air" ? "on-air" : e(b.state))\"><td class=\"break-id\">\(e(b.id))</td>"
            out += "<td>\(e(b.start))</td><td>\(Self.seconds(b.duration))</td><td>\(e(b.state))</td>"
            out += "<td>\(e(b.origin))</td><td>"
            if b.decisions.isEmpty {
                out += "<span class=\"empty\">none yet</span>"
            } else {
                out += "<ul class=\"decisions\">"
                for d in b.decisions {
                    let creatives = d.creatives.isEmpty ? "(empty pod)" : d.creatives.joined(separator: ", ")
                    out += "<li><span class=\"viewer\">\(e(d.viewer))</span>: \(e(creatives)) "
                    out += "<time>\(e(d.decidedAt))</time></li>"
                }
                out += "</ul>"
            }
            out += "</td></tr>\n"
        }
        out += "</tbody>\n</table>\n"
        return out
    }

    private func beaconTable() -> String {
        let e = HTMLText.escape
        guard let beacons = self.beacons else {
            return "<p class=\"empty\" id=\"beacons\">The beacon store did not answer.</p>\n"
        }
        guard !beacons.isEmpty else { return "<p class=\"empty\" id=\"beacons\">No beacons received yet.</p>\n" }
        var out = "<table class=\"beacons\" id=\"beacons\">\n<thead><tr><th>Scope</th><th>Break</th><th>Event</th>"
        out += "<th>Count</th></tr></thead>\n<tbody>\n"
        for row in beacons {
            out += "<tr><td>\(e(row.scope))</td><td>\(e(row.breakID))</td><td>\(e(row.event))</td>"
            out += "<td>\(row.count)</td></tr>\n"
        }
        out += "</tbody>\n</table>\n"
        return out
    }

    /// `12 s`, `12.5 s`.
    static func seconds(_ value: Double) -> String {
        guard value.isFinite else { return "–" }
        let tenths = (value * 10).rounded()
        guard abs(tenths) < 1e15 else { return "–" }
        let whole = Int64(tenths) / 10
        let fraction = abs(Int64(tenths) % 10)
        return fraction == 0 ? "\(whole) s" : "\(whole).\(fraction) s"
    }

    static let style = """
        body{font-family:system-ui,Helvetica,Arial,sans-serif;margin:0 1.5rem 2rem;color:#111827;background:#fafafa}\
        header{border-bottom:1px solid #e5e7eb;margin-bottom:1rem}h1{margin:.8rem 0 .2rem;font-size:1.6rem}\
        h2{margin-top:1.6rem;font-size:1.25rem}h3{margin:.2rem 0;font-size:1.05rem}h3 a{font-weight:normal;\
        font-size:.85rem;margin-left:.6rem}.meta{color:#4b5563;font-size:.85rem;margin:.2rem 0}\
        section{background:#fff;border:1px solid #e5e7eb;border-radius:6px;padding:.8rem 1rem;margin:.8rem 0}\
        figure.timeline{margin:.5rem 0;overflow-x:auto}figure.timeline svg{max-width:100%;height:auto}\
        table{border-collapse:collapse;font-size:.85rem;width:100%}th,td{border-bottom:1px solid #eef0f3;\
        padding:.25rem .5rem;text-align:left;vertical-align:top}tr.on-air td{background:#fff7ed}\
        tr.cancelled td,tr.over td{color:#6b7280}ul.decisions{margin:0;padding-left:1rem}.empty{color:#6b7280}\
        .problem{color:#b91c1c}#status{font-size:.85rem;margin-left:.5rem}button{cursor:pointer}\
        input.duration{width:4.5rem}
        """

    /// The page's one script: keeps the token for the session, starts breaks through the admin API,
    /// and reloads the page (not while the token is being typed or a request is on its way).
    static func script(refreshSeconds: Int) -> String {
        """
        "use strict";
        const token = document.getElementById("token");
        const status = document.getElementById("status");
        token.value = sessionStorage.getItem("intermission-token") || "";
        token.addEventListener("input", () => sessionStorage.setItem("intermission-token", token.value));
        let busy = false;
        function say(text, ok) { status.textContent = text; status.className = ok ? "ok" : "problem"; }
        const said = sessionStorage.getItem("intermission-status");
        if (said) { say(said, true); sessionStorage.removeItem("intermission-status"); }
        for (const button of document.querySelectorAll("button.start-break")) {
          button.addEventListener("click", async () => {
            const channel = button.dataset.channel;
            const field = button.parentElement.querySelector("input.duration");
            const duration = Number(field && field.value) || 20;
            if (!token.value) { say("Enter the admin token first.", false); token.focus(); return; }
            busy = true;
            let reloading = false;
            try {
              const answer = await fetch("/v1/admin/channels/" + encodeURIComponent(channel) + "/breaks", {
                method: "POST",
                headers: {"Authorization": "Bearer " + token.value, "Content-Type": "application/json"},
                body: JSON.stringify({start: "now", duration: duration})
              });
              const body = await answer.json().catch(() => ({}));
              if (answer.ok) {
                sessionStorage.setItem("intermission-status", "Break " + body.id + " started on " + channel + ".");
                // Busy until the page goes: a periodic reload on top would show the next load
                // without the status.
                reloading = true;
                location.reload();
              } else {
                say("Refused (" + answer.status + "): " + ((body.error && body.error.message) || ""), false);
              }
            } catch (error) {
              say("Failed: " + error, false);
            } finally {
              if (!reloading) { busy = false; }
            }
          });
        }
        setInterval(() => {
          if (!busy && document.activeElement !== token) { location.reload(); }
        }, \(max(1, refreshSeconds) * 1000));
        """
    }
}
