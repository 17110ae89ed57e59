import HLSPlaylist

/// What one playlist reload changed in a ``DateRangeTracker``.
public struct DateRangeUpdate: Sendable, Hashable {
    /// IDs seen for the first time, in playlist order.
    public var added: [String]
    /// Known IDs to which a tag added attributes (such as `DURATION`, `END-DATE` or an early-return
    /// `X-PLAYOUT-LIMIT`), in playlist order.
    public var updated: [String]
    /// IDs no longer tracked, in the order they were first seen.
    public var removed: [String]
    /// Problems found while merging: a later tag changing a value (`INT-DATERANGE-CHANGED`), reported
    /// once per ID, attribute and value.
    public var diagnostics: [PlaylistDiagnostic]

    /// Creates an update.
    public init(
        added: [String] = [],
        updated: [String] = [],
        removed: [String] = [],
        diagnostics: [PlaylistDiagnostic] = []
    ) {
        self.added = added
        self.updated = updated
        self.removed = removed
        self.diagnostics = diagnostics
    }

    /// Whether the reload changed no date range.
    public var isEmpty: Bool { self.added.isEmpty && self.updated.isEmpty && self.removed.isEmpty }
}

/// The date ranges of a live playlist across reloads, merged by ID (§4.4.5.1, §6.3.7).
///
/// Feed it each reload with ``update(with:file:)``. Tags with an ID it has seen add the attributes
/// the merged range lacks; an attribute given a different value is reported and the first value is
/// kept. Ranges that disappear from a reload are removed, except in a delta update whose
/// `EXT-X-SKIP` has `RECENTLY-REMOVED-DATERANGES` (the server skipped older date ranges): then only
/// the IDs listed there are removed. Several tags with one ID in a single playlist merge the same way.
///
/// ```swift
/// var tracker = DateRangeTracker()
/// tracker.update(with: firstReload)
/// let change = tracker.update(with: secondReload)
/// if change.updated.contains("break-9") { … }   // e.g. an early return via X-PLAYOUT-LIMIT
/// tracker.interstitialEvents                        // the merged interstitials, first-seen order
/// ```
public struct DateRangeTracker: Sendable, Hashable {
    /// The merged date ranges in the order their IDs were first seen.
    public private(set) var dateRanges: [DateRange]
    /// The event of each range in ``dateRanges`` (`nil` for a range that is not a playable
    /// interstitial), made when the range is added or gains attributes.
    ///
    /// An unchanged range gives the same event value reload after reload, its text sharing storage
    /// with the one before, so the schedule's update (which compares each reloaded event with the
    /// previous one) finds it equal at the cost of a pointer comparison per text field.
    private var events: [InterstitialEvent?]
    /// The index in ``dateRanges`` of each ID, kept across updates (rebuilt when ranges go).
    private var positions: [String: Int]
    private var reported: Set<String>
    /// How events are read from draft and legacy attribute names (``DraftNamePolicy``); set it
    /// before the first update.
    ///
    /// Accepts them by default.
    public var draftNames: DraftNamePolicy

    /// Creates an empty tracker.
    ///
    /// - Parameter draftNames: How draft and legacy attribute names are read; accepted by default.
    public init(draftNames: DraftNamePolicy = .accept) {
        self.dateRanges = []
        self.events = []
        self.positions = [:]
        self.reported = []
        self.draftNames = draftNames
    }

    /// Creates a tracker holding the merged date ranges of one playlist.
    ///
    /// - Parameters:
    ///   - playlist: The media playlist.
    ///   - draftNames: How draft and legacy attribute names are read; accepted by default.
    public init(playlist: MediaPlaylist, draftNames: DraftNamePolicy = .accept) {
        self.init(draftNames: draftNames)
        self.update(with: playlist)
    }

    /// The IDs in first-seen order.
    public var ids: [String] { self.dateRanges.map(\.id) }

    /// The merged range with this ID.
    public subscript(id: String) -> DateRange? {
        self.dateRanges.first { $0.id == id }
    }

    /// The merged interstitial ranges as events, in first-seen order (ranges without `START-DATE`
    /// are left out).
    public var interstitialEvents: [InterstitialEvent] {
        self.events.compactMap { $0 }
    }

    /// Merges a playlist (a full reload or a delta update) and reports what changed.
    ///
    /// - Parameters:
    ///   - playlist: The reloaded media playlist.
    ///   - file: The playlist's file or URL, for diagnostic locations.
    /// - Returns: The IDs added, updated and removed, and the merge diagnostics.
    @discardableResult
    public mutating func update(with playlist: MediaPlaylist, file: String? = nil) -> DateRangeUpdate {
        var change = DateRangeUpdate()
        // Which ranges this playlist names, by their index in `dateRanges`.
        var present = [Bool](repeating: false, count: self.dateRanges.count)
        var updated: Set<String> = []
        for placed in playlist.dateRanges {
            guard let id = placed.dateRange.attributes[.id]?.text, !id.isEmpty else { continue }
            guard let k = self.positions[id] else {
                var range = placed.dateRange
                // Keep the first of repeated attribute names only.
                var seen: Set<String> = []
                range.attributes.attributes.removeAll { !seen.insert($0.name).inserted }
                self.positions[id] = self.dateRanges.count
                present.append(true)
                self.dateRanges.append(range)
                self.events.append(InterstitialEvent(dateRange: range, draftNames: self.draftNames))
                change.added.append(id)
                continue
            }
            present[k] = true
            // Fast path: a live reload repeats most tags unchanged (compared by their bytes).
            if TextEquality.same(placed.dateRange.attributes.attributes, self.dateRanges[k].attributes.attributes) {
                continue
            }
            let (added, conflicts) = DateRangeMerge.merge(
                placed.dateRange.attributes,
                into: &self.dateRanges[k].attributes
            )
            if !added.isEmpty {
                self.events[k] = InterstitialEvent(dateRange: self.dateRanges[k], draftNames: self.draftNames)
                if !change.added.contains(id), updated.insert(id).inserted { change.updated.append(id) }
            }
            for conflict in conflicts {
                let key = id + "\u{0}" + conflict.name + "\u{0}" + conflict.rejected.rawValue
                guard self.reported.insert(key).inserted else { continue }
                change.diagnostics.append(
                    DateRangeMerge.diagnostic(
                        conflict,
                        id: id,
                        location: playlist.location(of: placed, attribute: conflict.name, file: file)
                    )
                )
            }
        }
        var removable: Set<String> = []
        if let skip = playlist.skip, skip[.recentlyRemovedDateRanges] != nil {
            for id in playlist.recentlyRemovedDateRangeIDs where !(self.positions[id].map { present[$0] } ?? false) {
                removable.insert(id)
            }
        } else {
            for k in present.indices where !present[k] { removable.insert(self.dateRanges[k].id) }
        }
        if !removable.isEmpty {
            change.removed = self.dateRanges.map(\.id).filter { removable.contains($0) }
            var kept = 0
            for k in self.dateRanges.indices where !removable.contains(self.dateRanges[k].id) {
                self.dateRanges.swapAt(kept, k)
                self.events.swapAt(kept, k)
                kept += 1
            }
            self.dateRanges.removeLast(self.dateRanges.count - kept)
            self.events.removeLast(self.events.count - kept)
            self.positions.removeAll(keepingCapacity: true)
            for (k, range) in self.dateRanges.enumerated() { self.positions[range.id] = k }
            self.reported = self.reported.filter { key in
                !removable.contains(String(key.prefix { $0 != "\u{0}" }))
            }
        }
        return change
    }
}

extension InterstitialEvent {
    /// The interstitials of a playlist, with same-ID tags merged, in the order their IDs first
    /// appear.
    ///
    /// - Parameters:
    ///   - playlist: The media playlist.
    ///   - draftNames: How draft and legacy attribute names are read; accepted by default.
    public static func events(
        in playlist: MediaPlaylist,
        draftNames: DraftNamePolicy = .accept
    ) -> [InterstitialEvent] {
        DateRangeTracker(playlist: playlist, draftNames: draftNames).interstitialEvents
    }
}
