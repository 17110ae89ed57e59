import HLSPlaylist

extension PlaylistRun {
    /// Reports each draft, legacy or non-spec name (``DraftName``) with its spec spelling as the fix
    /// hint, and a draft name whose spec name is given too (the spec name wins).
    ///
    /// Names of the interstitial class are reported on date ranges that are interstitials or carry
    /// `X-ASSET-URI`/`X-ASSET-LIST` (a date range without `CLASS` is `INT-CLASS-VALUE`'s); vendor
    /// prefetch attributes on any date range.
    mutating func checkDraftNames() {
        for k in self.placed.indices {
            let range = self.merged[self.owner[k]]
            let looksInterstitial =
                range.class == DateRange.interstitialClass || range.attributes.contains(.assetURI)
                || range.attributes.contains(.assetList)
            let id = range.id
            for attribute in self.placed[k].dateRange.attributes.attributes {
                if let draft = DraftName.attributes[attribute.name] {
                    if draft.needsInterstitial && !looksInterstitial { continue }
                    let spelled = draft.specName.map { "the spec name is \($0)" } ?? "it has no unambiguous spec name"
                    self.report(
                        draft.rule,
                        tag: k,
                        attribute: AttributeName(attribute.name),
                        "date range \"\(id)\" uses \(draft.name), from \(draft.origin); \(spelled)",
                        hint: draft.hint
                    )
                    if let spec = draft.specName, range.attributes.contains(spec) {
                        self.report(
                            .draftNameShadowed,
                            tag: k,
                            attribute: AttributeName(attribute.name),
                            "date range \"\(id)\" has both \(draft.name) and \(spec); \(spec) is read and \(draft.name) ignored",
                            hint: "remove \(draft.name)"
                        )
                    }
                } else if attribute.name == AttributeName.restrict.rawValue, looksInterstitial,
                    attribute.value.stringList?.contains(DraftName.restrictSeek.name) == true
                {
                    let seek = DraftName.restrictSeek
                    self.report(
                        seek.rule,
                        tag: k,
                        attribute: .restrict,
                        "date range \"\(id)\" has X-RESTRICT member SEEK, from \(seek.origin); it is read as \(seek.specName ?? "")",
                        hint: seek.hint
                    )
                }
            }
        }
    }
}

extension InterstitialValidator {
    /// The draft keys (``DraftName``) of an asset list's `SKIP-CONTROL` object, each a warning at
    /// the key's line and column with the spec key as the fix hint.
    ///
    /// - Parameters:
    ///   - bytes: The asset-list JSON.
    ///   - file: Its path or URL, for locations.
    /// - Returns: The diagnostics, in input order.
    public func draftNameDiagnostics(assetList bytes: [UInt8], file: String? = nil) -> [PlaylistDiagnostic] {
        let keys = DraftNameScan.jsonKeys(bytes)
        var diagnostics: [PlaylistDiagnostic] = []
        for key in keys where key.container == "SKIP-CONTROL" {
            guard let draft = DraftName.assetListKeys[key.name], let spec = draft.specName else { continue }
            let (line, column) = DraftNameScan.lineAndColumn(of: key.range.lowerBound - 1, in: bytes)
            let location = SourceLocation(file: file, line: line, column: column)
            diagnostics.append(
                draft.rule.diagnostic(
                    "SKIP-CONTROL key \(draft.name) is from \(draft.origin); the spec key is \(spec)",
                    hint: draft.hint,
                    at: location
                )
            )
            if keys.contains(where: { $0.object == key.object && $0.name == spec }) {
                diagnostics.append(
                    InterstitialRule.draftNameShadowed.diagnostic(
                        "SKIP-CONTROL has both \(draft.name) and \(spec); \(spec) is read and \(draft.name) ignored",
                        hint: "remove \(draft.name)",
                        at: location
                    )
                )
            }
        }
        return diagnostics
    }
}
