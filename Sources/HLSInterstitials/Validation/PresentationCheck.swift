import HLSPlaylist

/// The checks across the media playlists of one presentation (§6.2.4).
struct PresentationCheck {
    struct Member {
        var uri: String
        var run: PlaylistRun
    }

    var members: [Member]
    var diagnostics: [PlaylistDiagnostic] = []

    init(presentation: [(uri: String, playlist: MediaPlaylist)]) {
        self.members = presentation.map { entry in
            var run = PlaylistRun(playlist: entry.playlist, file: entry.uri, includesNotes: false)
            run.merge()
            run.diagnostics.removeAll()
            return Member(uri: entry.uri, run: run)
        }
    }

    mutating func run() -> [PlaylistDiagnostic] {
        let withRanges = self.members.indices.filter { !self.members[$0].run.merged.isEmpty }
        guard let reference = withRanges.first else { return [] }
        for other in withRanges.dropFirst() {
            self.compare(reference, other)
        }
        self.checkAssetListResolution(withRanges)
        return InterstitialValidator.sorted(self.diagnostics)
    }

    func index(_ run: PlaylistRun) -> [String: Int] {
        var result: [String: Int] = [:]
        for (m, range) in run.merged.enumerated() where !range.id.isEmpty && result[range.id] == nil {
            result[range.id] = m
        }
        return result
    }

    mutating func compare(_ r: Int, _ o: Int) {
        let reference = self.members[r]
        var other = self.members[o].run
        let referenceIndex = self.index(reference.run)
        let otherIndex = self.index(other)
        let rule = InterstitialRule.presentationMismatch
        for range in reference.run.merged where !range.id.isEmpty && otherIndex[range.id] == nil {
            self.diagnostics.append(
                rule.diagnostic(
                    "this media playlist lacks date range \"\(range.id)\", which \(reference.uri) has",
                    hint: "add the same EXT-X-DATERANGE tag (same ID, attributes and values) to every media playlist",
                    at: SourceLocation(file: other.file, line: 1, column: 1)
                )
            )
        }
        for (m, range) in other.merged.enumerated() where !range.id.isEmpty {
            guard let rm = referenceIndex[range.id] else {
                other.report(
                    rule,
                    range: m,
                    "date range \"\(range.id)\" is not in \(reference.uri); every media playlist must carry the same date ranges",
                    hint: "add it to the other media playlists too, or remove it here"
                )
                continue
            }
            let mine = range.attributes
            let theirs = reference.run.merged[rm].attributes
            for name in theirs.names where !mine.contains(name) {
                other.report(
                    rule,
                    range: m,
                    "date range \"\(range.id)\" lacks \(name)=\(theirs[name]!.rawValue), which it has in \(reference.uri)",
                    hint: "give the range the same attributes in every media playlist"
                )
            }
            for attribute in mine.attributes {
                guard let value = theirs[attribute.name] else {
                    other.report(
                        rule,
                        range: m,
                        attribute: AttributeName(attribute.name),
                        "date range \"\(range.id)\" has \(attribute.name)=\(attribute.value.rawValue), which it lacks in \(reference.uri)",
                        hint: "give the range the same attributes in every media playlist"
                    )
                    continue
                }
                if !DateRangeMerge.sameValue(attribute.name, value, attribute.value) {
                    other.report(
                        rule,
                        range: m,
                        attribute: AttributeName(attribute.name),
                        "date range \"\(range.id)\" has \(attribute.name)=\(attribute.value.rawValue) here but \(attribute.name)=\(value.rawValue) in \(reference.uri)",
                        hint: "use the same value in every media playlist"
                    )
                }
            }
        }
        self.diagnostics += other.diagnostics
    }

    mutating func checkAssetListResolution(_ indices: [Int]) {
        var first: [String: (url: String, uri: String)] = [:]
        for i in indices {
            var run = self.members[i].run
            let base = self.members[i].uri
            for (m, range) in run.merged.enumerated()
            where range.class == DateRange.interstitialClass && !range.id.isEmpty {
                guard let list = range.attributes[.assetList]?.quotedString, !URIReference.isAbsolute(list) else {
                    continue
                }
                let url = URIReference.resolve(list, against: base)
                if let seen = first[range.id] {
                    if seen.url != url {
                        run.report(
                            .assetListResolution,
                            range: m,
                            attribute: .assetList,
                            "X-ASSET-LIST \"\(list)\" of interstitial \"\(range.id)\" resolves to \(url) from this playlist but to \(seen.url) from \(seen.uri)",
                            hint:
                                "write an absolute X-ASSET-LIST URI, or one that resolves to the same URL from every media playlist (e.g. a path starting with '/')"
                        )
                    }
                } else {
                    first[range.id] = (url, base)
                }
            }
            self.diagnostics += run.diagnostics
        }
    }
}
