import HLSPlaylist

extension Schedule {
    /// The schedule as the JSON object of `intermission schedule --json` (DESIGN.md).
    ///
    /// The field names of DESIGN.md are a contract: `live`, `primaryDuration`, `events[]` (`id`,
    /// `startTime`, `startDate`, `cue`, `duration`, `resumeOffset`, `resumeTime`, `playoutLimit`,
    /// `restrictions`, `snap`, `assetURI`, `assetList`, `timelineOccupies`, `timelineStyle`,
    /// `contentMayVary`, `skipControl`, `userAttributes`), `timeline[]` (`kind`, `event`,
    /// `primaryStart`, `primaryEnd` or `resumeTime`, `playoutStart`, `playoutEnd`,
    /// `integratedStart`, `integratedEnd`) and, when a start was requested or the primary is
    /// live, `start` (`primaryTime`, `event`, `startOffset`). More fields are added (`status`,
    /// `playoutDuration`, item `id`, …); times are seconds, exact, and `null` when unknown.
    public var jsonDescription: String {
        self.jsonValue.rendered()
    }

    var jsonValue: JSONText {
        var members: [(String, JSONText)] = [
            ("live", .bool(self.isLive)),
            ("primaryDuration", .seconds(self.primaryDuration)),
            ("playoutDuration", .seconds(self.playoutDuration)),
            ("integratedDuration", .seconds(self.integratedDuration)),
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
    var jsonValue: JSONText {
        .object([
            ("primaryTime", .seconds(self.primaryTime)),
            ("event", .string(self.eventID)),
            ("startOffset", .seconds(self.startOffset)),
            ("requestedTime", .seconds(self.requestedTime)),
            ("offsetIntoEvent", .seconds(self.offsetIntoEvent)),
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

    var jsonValue: JSONText {
        let event = self.event
        var skip = JSONText.null
        if let control = event.skipControl {
            skip = .object([
                ("offset", .seconds(control.offset)),
                ("duration", .seconds(control.duration)),
                ("labelId", .string(control.labelID)),
            ])
        }
        return .object([
            ("id", .string(event.identifier)),
            ("startTime", .seconds(self.startTime)),
            ("startDate", .string(self.startDate?.iso8601)),
            ("cue", .strings(self.cueMembers)),
            ("duration", .seconds(self.duration)),
            ("resumeOffset", .seconds(self.resumeOffset)),
            ("resumeTime", .seconds(self.resumeTime)),
            ("playoutLimit", .seconds(event.playoutLimit)),
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
            ("scheduledTime", .seconds(self.scheduledTime)),
            ("durationSource", .string(self.durationSource.description)),
            ("playoutDuration", .seconds(self.playoutDuration)),
            ("resumeOffsetSource", .string(self.resumeOffsetSource.description)),
            ("cumulativeResumeOffset", .seconds(self.cumulativeResumeOffset)),
            ("podPosition", .number(String(self.podPosition))),
            ("podSize", .number(String(self.podSize))),
        ])
    }
}

extension ScheduleItem {
    var jsonValue: JSONText {
        var members: [(String, JSONText)] = [("kind", .string(self.kind.description))]
        if let eventID = self.eventID {
            members.append(("event", .string(eventID)))
            members.append(("primaryStart", .seconds(self.primary.start)))
            members.append(("resumeTime", .seconds(self.primary.end)))
        } else {
            members.append(("primaryStart", .seconds(self.primary.start)))
            members.append(("primaryEnd", .seconds(self.primary.end)))
        }
        members += [
            ("playoutStart", .seconds(self.playout.start)),
            ("playoutEnd", .seconds(self.playout.end)),
            ("integratedStart", .seconds(self.integrated.start)),
            ("integratedEnd", .seconds(self.integrated.end)),
            ("id", .string(self.id.description)),
        ]
        if self.isInterstitial {
            members.append(("startOffset", .seconds(self.startOffset)))
            members.append(("restrictions", .strings(self.restrictions.members)))
        }
        return .object(members)
    }
}
