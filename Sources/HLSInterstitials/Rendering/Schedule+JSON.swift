import HLSPlaylist

extension Schedule {
    /// The schedule as the JSON object of `intermission schedule --json` (ARCHITECTURE.md).
    ///
    /// The field names of ARCHITECTURE.md are a contract: `live`, `primaryDuration`, `events[]` (`id`,
    /// `startTime`, `startDate`, `cue`, `duration`, `resumeOffset`, `resumeTime`, `playoutLimit`,
    /// `restrictions`, `snap`, `assetURI`, `assetList`, `timelineOccupies`, `timelineStyle`,
    /// `contentMayVary`, `skipControl`, `userAttributes`), `timeline[]` (`kind`, `event`,
    /// `primaryStart`, `primaryEnd` or `resumeTime`, `playoutStart`, `playoutEnd`,
    /// `integratedStart`, `integratedEnd`) and, when a start was requested or the primary is
    /// live, `start` (`primaryTime`, `event`, `startOffset`). More fields are added (`status`,
    /// `playoutDuration`, item `id`, `scheduleIdentifier` of an event a scheduled date range
    /// produced, …); times are seconds, exact, and `null` when unknown.
    public var jsonDescription: String {
        self.jsonValue.text(options: JSONWritingOptions(indent: 2, keepsScalarArraysOnOneLine: true))
    }

    /// The version of the `schedule --json` document (its `schemaVersion` member): raised when a
    /// member is renamed, removed or changes meaning, not when one is added (the changelog is the
    /// IntermissionServer article "JSON contracts").
    public static let jsonSchemaVersion = 1

    var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [
            ("schemaVersion", .number(Double(Self.jsonSchemaVersion))),
            ("live", .bool(self.isLive)),
            ("primaryDuration", .exactSeconds(self.primaryDuration)),
            ("playoutDuration", .exactSeconds(self.playoutDuration)),
            ("integratedDuration", .exactSeconds(self.integratedDuration)),
            ("events", .array(self.events.map(\.jsonValue))),
            ("timeline", .array(self.items.map(\.jsonValue))),
        ]
        if let start = self.start {
            members.append(("start", start.jsonValue))
        }
        return .object(members)
    }
}

extension Schedule.StartPosition {
    var jsonValue: JSONValue {
        .object([
            ("primaryTime", .exactSeconds(self.primaryTime)),
            ("event", .string(self.eventID)),
            ("startOffset", .exactSeconds(self.startOffset)),
            ("requestedTime", .exactSeconds(self.requestedTime)),
            ("offsetIntoEvent", .exactSeconds(self.offsetIntoEvent)),
            ("prerolls", .strings(self.prerollEventIDs)),
        ])
    }
}

extension ScheduledEvent {
    /// The `CUE` members of the event (`PRE`/`POST`, then `ONCE`).
    var cueMembers: [String] {
        var cue: [String] = []
        if let member = self.event.cue.member { cue.append(member) }
        if self.event.willPlayOnce { cue.append("ONCE") }
        return cue
    }

    /// The `X-SNAP` members of the event.
    var snapMembers: [String] {
        var snap: [String] = []
        if self.event.alignsStartWithPrimarySegmentBoundary { snap.append("OUT") }
        if self.event.alignsResumptionWithPrimarySegmentBoundary { snap.append("IN") }
        return snap
    }

    var jsonValue: JSONValue {
        let event = self.event
        var skip = JSONValue.null
        if let control = event.skipControl {
            skip = .object([
                ("offset", .exactSeconds(control.offset)),
                ("duration", .exactSeconds(control.duration)),
                ("labelId", .string(control.labelID)),
            ])
        }
        return .object([
            ("id", .string(event.identifier)),
            ("startTime", .exactSeconds(self.startTime)),
            ("startDate", .string(self.startDate?.iso8601)),
            ("cue", .strings(self.cueMembers)),
            ("duration", .exactSeconds(self.duration)),
            ("resumeOffset", .exactSeconds(self.resumeOffset)),
            ("resumeTime", .exactSeconds(self.resumeTime)),
            ("playoutLimit", .exactSeconds(event.playoutLimit)),
            ("restrictions", .strings(event.restrictions.members)),
            ("snap", .strings(self.snapMembers)),
            ("assetURI", .string(event.assetURIs.first)),
            ("assetList", .string(event.assetListURI)),
            ("timelineOccupies", .string(event.timelineOccupancy.rawValue)),
            ("timelineStyle", .string(event.supplementsPrimaryContent ? "PRIMARY" : "HIGHLIGHT")),
            ("contentMayVary", .bool(event.contentMayVary)),
            ("skipControl", skip),
            ("userAttributes", .object(event.userDefinedAttributes.map { ($0.name, .string($0.value.text)) })),
            ("status", .string(self.status.description)),
            ("scheduledTime", .exactSeconds(self.scheduledTime)),
            ("durationSource", .string(self.durationSource.description)),
            ("playoutDuration", .exactSeconds(self.playoutDuration)),
            ("resumeOffsetSource", .string(self.resumeOffsetSource.description)),
            ("cumulativeResumeOffset", .exactSeconds(self.cumulativeResumeOffset)),
            ("podPosition", .number(self.podPosition)),
            ("podSize", .number(self.podSize)),
            ("scheduleIdentifier", .string(event.scheduleIdentifier)),
        ])
    }
}

extension ScheduleItem {
    var jsonValue: JSONValue {
        var members: [(String, JSONValue)] = [("kind", .string(self.kind.description))]
        if let eventID = self.eventID {
            members.append(("event", .string(eventID)))
            members.append(("primaryStart", .exactSeconds(self.primary.start)))
            members.append(("resumeTime", .exactSeconds(self.primary.end)))
        } else {
            members.append(("primaryStart", .exactSeconds(self.primary.start)))
            members.append(("primaryEnd", .exactSeconds(self.primary.end)))
        }
        members += [
            ("playoutStart", .exactSeconds(self.playout.start)),
            ("playoutEnd", .exactSeconds(self.playout.end)),
            ("integratedStart", .exactSeconds(self.integrated.start)),
            ("integratedEnd", .exactSeconds(self.integrated.end)),
            ("id", .string(self.id.description)),
        ]
        if self.isInterstitial {
            members.append(("startOffset", .exactSeconds(self.startOffset)))
            members.append(("restrictions", .strings(self.restrictions.members)))
        }
        return .object(members)
    }
}

extension JSONValue {
    /// Seconds, exact, with at least one fraction digit (`30.0`, `2.002`), or `null`.
    static func exactSeconds(_ time: MediaTime?) -> JSONValue {
        guard let time else { return .null }
        var text = time.description
        if !text.contains(".") { text += ".0" }
        return .number(JSONNumber(validatedText: text))
    }

    /// A string, or `null`.
    static func string(_ text: String?) -> JSONValue {
        text.map { JSONValue.string($0) } ?? .null
    }

    /// An array of strings.
    static func strings(_ texts: [String]) -> JSONValue {
        .array(texts.map { .string($0) })
    }
}
