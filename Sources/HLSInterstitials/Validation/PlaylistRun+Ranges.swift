import HLSPlaylist

/// The checks of whole merged ranges: per class, and END-ON-NEXT overlaps.
extension PlaylistRun {
    // MARK: Whole ranges

    mutating func checkRange(_ m: Int) {
        let range = self.merged[m]
        let attributes = range.attributes
        let id = range.id
        if range.first >= 0, !attributes.contains(.startDate) {
            self.report(
                .startDateMissing,
                range: m,
                "date range \"\(id)\" has no START-DATE in its first tag",
                hint: "add START-DATE=\"…\" to the first EXT-X-DATERANGE with ID=\"\(id)\""
            )
        }
        if let start = range.startDate, let end = range.endDate {
            if end < start {
                self.report(
                    .endDateBeforeStart,
                    range: m,
                    attribute: .endDate,
                    "END-DATE \(end.iso8601) of date range \"\(id)\" is before its START-DATE \(start.iso8601)",
                    hint: "set END-DATE at or after START-DATE, or use DURATION"
                )
            } else if let duration = range.duration, start + duration != end {
                self.report(
                    .endDateMismatch,
                    range: m,
                    attribute: .endDate,
                    "END-DATE \(end.iso8601) of date range \"\(id)\" is not START-DATE + DURATION (\((start + duration).iso8601))",
                    hint:
                        "make END-DATE \((start + duration).iso8601) or DURATION \((end - start).description), or drop one of them"
                )
            }
        }
        if let cue = (attributes[.cue] ?? (range.class == DateRange.interstitialClass ? attributes[.legacyCue] : nil))?
            .stringList,
            cue.contains(AttributeName.Value.pre), cue.contains(AttributeName.Value.post)
        {
            let name: AttributeName = attributes.contains(.cue) ? .cue : .legacyCue
            self.report(
                .cuePreAndPost,
                range: m,
                attribute: name,
                "\(name) of date range \"\(id)\" contains both PRE and POST",
                hint: "keep PRE (play before the primary) or POST (play after it); use two date ranges for both"
            )
        }
        if range.endOnNext {
            if range.class == nil {
                self.report(
                    .endOnNextWithoutClass,
                    range: m,
                    attribute: .endOnNext,
                    "date range \"\(id)\" has END-ON-NEXT but no CLASS",
                    hint: "add CLASS=\"…\": END-ON-NEXT ends the range at the next range of the same class"
                )
            }
            for name in [AttributeName.duration, .endDate] where attributes.contains(name) {
                self.report(
                    .endOnNextWithEnd,
                    range: m,
                    attribute: name,
                    "date range \"\(id)\" has END-ON-NEXT and \(name)",
                    hint: "remove \(name): an END-ON-NEXT range ends where the next range of its class starts"
                )
            }
        }
        switch range.class {
        case DateRange.interstitialClass?:
            self.checkInterstitial(m)
        case DateRange.preloadClass?:
            self.checkPreload(m)
        default:
            self.checkLookalike(m)
        }
    }

    mutating func checkInterstitial(_ m: Int) {
        let range = self.merged[m]
        let attributes = range.attributes
        let id = range.id
        let uri = attributes[.assetURI]
        let list = attributes[.assetList]
        switch (uri, list) {
        case (nil, nil):
            self.report(
                .assetMissing,
                range: m,
                "interstitial \"\(id)\" has neither X-ASSET-URI nor X-ASSET-LIST",
                hint: "add X-ASSET-URI=\"https://…/asset.m3u8\" for one asset, or X-ASSET-LIST=\"…json\" for a list"
            )
        case (_?, _?):
            self.report(
                .assetBoth,
                range: m,
                attribute: .assetList,
                "interstitial \"\(id)\" has both X-ASSET-URI and X-ASSET-LIST",
                hint: "keep one: X-ASSET-URI for a single asset or X-ASSET-LIST for a list of assets"
            )
        default:
            break
        }
        if let text = uri?.quotedString, !URIReference.isAbsolute(text),
            !self.isUnresolved(tag: range.source[AttributeName.assetURI.rawValue] ?? range.first, .assetURI)
        {
            self.report(
                .assetURIRelative,
                range: m,
                attribute: .assetURI,
                "X-ASSET-URI \"\(text)\" of interstitial \"\(id)\" is relative",
                hint: "write the absolute URI (https://…); only X-ASSET-LIST may be relative"
            )
        }
        let cue = (attributes[.cue] ?? attributes[.legacyCue])?.stringList ?? []
        let isPreOrPost = cue.contains(AttributeName.Value.pre) || cue.contains(AttributeName.Value.post)
        if !attributes.contains(.duration), !attributes.contains(.endDate), !range.endOnNext {
            let planned =
                attributes[.plannedDuration].map { " (PLANNED-DURATION=\($0.rawValue) is only an estimate)" } ?? ""
            self.report(
                .durationUnknown,
                range: m,
                "interstitial \"\(id)\" has no DURATION, so its duration is unknown until its assets load\(planned)",
                hint: "add DURATION=<seconds of the assets> so players can lay out the timeline early"
            )
        }
        if !self.playlist.isLive {
            if !attributes.contains(.resumeOffset), !cue.contains(AttributeName.Value.post) {
                self.report(
                    .resumeOffsetDefault,
                    range: m,
                    "interstitial \"\(id)\" has no X-RESUME-OFFSET, so it replaces as much primary content as it plays",
                    hint: "add X-RESUME-OFFSET=0 to resume the primary where it paused (usual for VOD ad insertion)"
                )
            }
            if !isPreOrPost, let start = range.startDate, let time = self.playlist.time(at: start),
                time > self.playlist.duration
            {
                self.report(
                    .afterEnd,
                    range: m,
                    attribute: .startDate,
                    "interstitial \"\(id)\" starts at \(time.description) s, after the end of the VOD primary (\(self.playlist.duration.description) s), so it never plays",
                    hint: "move START-DATE inside the primary, or add CUE=\"POST\" to play it after the primary ends"
                )
            }
        }
    }

    mutating func checkPreload(_ m: Int) {
        let range = self.merged[m]
        let attributes = range.attributes
        let id = range.id
        let missing = [AttributeName.preloadURI, .preloadTargetID, .preloadTargetClass].filter {
            !attributes.contains($0)
        }
        if !missing.isEmpty {
            self.report(
                .preloadAttributeMissing,
                range: m,
                "preload range \"\(id)\" lacks \(missing.map(\.rawValue).joined(separator: ", "))",
                hint:
                    "add \(missing.map { "\($0)=\"…\"" }.joined(separator: ",")): the URI to preload and the ID and CLASS of the range it is for"
            )
        }
        if !attributes.contains(.duration), !attributes.contains(.endDate) {
            self.report(
                .preloadDurationMissing,
                range: m,
                "preload range \"\(id)\" has neither DURATION nor END-DATE",
                hint: "add DURATION=<seconds> ending at or just before the target's scheduled start"
            )
        }
        for name in [AttributeName.cue, .endOnNext] where attributes.contains(name) {
            self.report(
                .preloadCue,
                range: m,
                attribute: name,
                "preload range \"\(id)\" has \(name)",
                hint: "remove \(name) from the preload range"
            )
        }
        self.checkPreloadTarget(m)
    }

    /// The Appendix F checks that relate a preload range to its target.
    mutating func checkPreloadTarget(_ m: Int) {
        let range = self.merged[m]
        let attributes = range.attributes
        let id = range.id
        guard let targetID = attributes[.preloadTargetID]?.quotedString,
            !self.isUnresolved(
                tag: range.source[AttributeName.preloadTargetID.rawValue] ?? range.first,
                .preloadTargetID
            )
        else { return }
        guard let target = self.merged.first(where: { $0.id == targetID && $0.class != DateRange.preloadClass }) else {
            // Live: the target may come in a later reload, as the appendix lets clients assume.
            if !self.playlist.isLive {
                self.report(
                    .preloadTargetMissing,
                    range: m,
                    attribute: .preloadTargetID,
                    "X-TARGET-ID \"\(targetID)\" of preload range \"\(id)\" names no date range of this playlist",
                    hint: "set X-TARGET-ID to the ID of the interstitial the URI is for, or remove the preload range"
                )
            }
            return
        }
        if let expected = attributes[.preloadTargetClass]?.quotedString, expected != target.class {
            self.report(
                .preloadTargetClass,
                range: m,
                attribute: .preloadTargetClass,
                "X-TARGET-CLASS \"\(expected)\" of preload range \"\(id)\" is not the CLASS \"\(target.class ?? "")\" of \"\(targetID)\", so clients discard what they preload",
                hint: "write X-TARGET-CLASS=\"\(target.class ?? "")\""
            )
        }
        if let uri = attributes[.preloadURI]?.quotedString,
            let targetURI = (target.attributes[.assetList] ?? target.attributes[.assetURI])?.quotedString,
            !PreloadRange.carriesQuery(of: targetURI, in: uri)
        {
            self.report(
                .preloadURIQuery,
                range: m,
                attribute: .preloadURI,
                "X-URI \"\(uri)\" of preload range \"\(id)\" lacks query parameters of \"\(targetID)\"'s URI \"\(targetURI)\", so clients discard what they preload",
                hint: "give X-URI every query parameter of the target's X-ASSET-LIST or X-ASSET-URI"
            )
        }
        if let end = range.end, let targetStart = target.startDate, end > targetStart {
            self.report(
                .preloadWindowAfterTarget,
                range: m,
                attribute: attributes.contains(.endDate) ? .endDate : .duration,
                "preload range \"\(id)\" ends at \(end.iso8601), after \"\(targetID)\" starts (\(targetStart.iso8601))",
                hint: "end the preload range at or just before \(targetStart.iso8601)"
            )
        }
    }

    mutating func checkLookalike(_ m: Int) {
        let range = self.merged[m]
        let attributes = range.attributes
        let id = range.id
        let hasAsset = attributes.contains(.assetURI) || attributes.contains(.assetList)
        let raw = attributes[.`class`]?.text
        let normalised = raw.map { String($0.unicodeScalars.filter { $0 != " " && $0 != "\t" }).lowercased() }
        if let raw, normalised == DateRange.interstitialClass {
            self.report(
                .classValue,
                range: m,
                attribute: .`class`,
                "date range \"\(id)\" has CLASS=\"\(raw)\", which is not exactly \"\(DateRange.interstitialClass)\", so it is not an interstitial",
                hint: "write CLASS=\"\(DateRange.interstitialClass)\" (the value is case-sensitive)"
            )
        } else if hasAsset, raw == nil {
            self.report(
                .classValue,
                range: m,
                "date range \"\(id)\" has interstitial attributes (X-ASSET-…) but no CLASS, so it is not an interstitial",
                hint: "add CLASS=\"\(DateRange.interstitialClass)\""
            )
        }
    }

    // MARK: END-ON-NEXT overlaps

    mutating func checkEndOnNextOverlaps() {
        var classes: [String] = []
        for range in self.merged where range.endOnNext {
            if let c = range.class, !classes.contains(c) { classes.append(c) }
        }
        for c in classes {
            let members = self.merged.indices.filter { self.merged[$0].class == c && self.merged[$0].startDate != nil }
                .sorted { self.merged[$0].startDate! < self.merged[$1].startDate! }
            for (a, b) in zip(members, members.dropFirst()) {
                let x = self.merged[a]
                let y = self.merged[b]
                let nextStart = y.startDate!
                let overlaps: Bool
                if nextStart == x.startDate! {
                    overlaps = true
                } else if let end = x.end, !x.endOnNext {
                    overlaps = end > nextStart
                } else {
                    overlaps = false
                }
                if overlaps {
                    self.report(
                        .endOnNextOverlap,
                        range: b,
                        attribute: .startDate,
                        "date range \"\(y.id)\" starts at \(nextStart.iso8601), inside date range \"\(x.id)\" of the same CLASS \"\(c)\", which uses END-ON-NEXT",
                        hint:
                            "ranges of a class with END-ON-NEXT must not overlap: start \"\(y.id)\" after \"\(x.id)\" ends, or shorten \"\(x.id)\""
                    )
                }
            }
        }
    }
}
