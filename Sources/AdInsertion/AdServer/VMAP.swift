import HLSPlaylist

/// A VMAP 1.0 playlist: where a VOD presentation's breaks go and where their ads come from.
public struct VMAPDocument: Sendable, Hashable {
    /// The `AdBreak` elements, in document order.
    public var breaks: [VMAPBreak]

    /// Creates a document.
    public init(breaks: [VMAPBreak] = []) {
        self.breaks = breaks
    }

    /// The breaks placed on a presentation of `duration`: `start` is a pre-roll, `end` (and 100%)
    /// a post-roll, a time or a percentage a mid-roll, and a `repeatAfter` places the break again
    /// every so often until the end; ordinal positions (`#n`), times past the end and breaks that
    /// are not linear (`breakType` `nonlinear` or `display` alone: overlays and companions, which an
    /// interstitial cannot play) are left out.
    ///
    /// Breaks that fall at the same place keep the first. A `breakId` used at several places (VMAP
    /// allows it) names the first, then `{breakId}-2`, `{breakId}-3`, … in the order placed.
    public func vodPositions(presentationDuration duration: MediaTime) -> [(id: String, position: VODBreakPosition)] {
        var result: [(id: String, position: VODBreakPosition)] = []
        var seen: Set<VODBreakPosition> = []
        var uses: [String: Int] = [:]
        for (k, item) in self.breaks.enumerated() where item.isLinear {
            var positions: [VODBreakPosition] = []
            switch item.timeOffset {
            case .start:
                positions = [.preRoll]
            case .end:
                positions = [.postRoll]
            case .time(let time):
                guard time <= duration else { continue }
                positions = [time == .zero ? .preRoll : .midRoll(time)]
            case .percentage(let percent):
                if percent >= 100 {
                    positions = [.postRoll]
                } else if percent <= 0 {
                    positions = [.preRoll]
                } else {
                    positions = [.midRoll(MediaTime(nanoseconds: Int64(Double(duration.nanoseconds) * percent / 100)))]
                }
            case .ordinal:
                continue
            }
            if let every = item.repeatAfter, every > .zero, case let first? = positions.first {
                let start: MediaTime
                switch first {
                case .preRoll: start = .zero
                case .midRoll(let time): start = time
                default: start = duration
                }
                var next = start + every
                while next < duration, positions.count < Self.maximumRepeats {
                    positions.append(.midRoll(next))
                    next = next + every
                }
            }
            for position in positions {
                guard seen.insert(position).inserted else { continue }
                let base = item.id ?? "vmap-\(k)"
                let use = uses[base, default: 0] + 1
                uses[base] = use
                result.append((use == 1 ? base : "\(base)-\(use)", position))
            }
        }
        return result
    }

    /// The most places one `AdBreak` with `repeatAfter` is put at.
    public static let maximumRepeats = 1000
}

/// One `AdBreak` of a VMAP playlist.
public struct VMAPBreak: Sendable, Hashable {
    /// Where the break goes (`timeOffset`).
    public enum TimeOffset: Sendable, Hashable {
        /// `start`: before the content.
        case start
        /// `end`: after the content.
        case end
        /// `HH:MM:SS(.mmm)`: a media time.
        case time(MediaTime)
        /// `n%`: a share of the content's duration.
        case percentage(Double)
        /// `#n`: the n-th opportunity the content defines.
        case ordinal(Int)
    }

    /// `breakId`.
    public var id: String?
    /// `timeOffset`.
    public var timeOffset: TimeOffset
    /// `breakType` (`linear`, `nonlinear`, `display`).
    public var breakType: String
    /// `repeatAfter`: the break plays again this long after each time it played.
    public var repeatAfter: MediaTime?
    /// Whether `breakType` names `linear` (it may list several types, comma-separated).
    public var isLinear: Bool {
        self.breakType.split(separator: ",").contains { $0.filter { $0 != " " }.lowercased() == "linear" }
    }
    /// `AdSource/AdTagURI`: where the break's VAST response comes from.
    public var adTagURI: String?
    /// `AdSource/VASTAdData`: a VAST response given inline.
    public var vast: VASTDocument?
    /// The line of the element.
    public var line: Int

    /// Creates a break.
    public init(
        id: String? = nil,
        timeOffset: TimeOffset,
        breakType: String = "linear",
        repeatAfter: MediaTime? = nil,
        adTagURI: String? = nil,
        vast: VASTDocument? = nil,
        line: Int = 1
    ) {
        self.id = id
        self.timeOffset = timeOffset
        self.breakType = breakType
        self.repeatAfter = repeatAfter
        self.adTagURI = adTagURI
        self.vast = vast
        self.line = line
    }
}

/// Reads VMAP 1.0 documents.
public enum VMAPDecoder {
    /// Decodes a VMAP document.
    ///
    /// - Throws: ``VASTError`` (100 when not XML, 101 when the root is not `VMAP`).
    public static func decode(_ bytes: [UInt8]) throws(VASTError) -> (VMAPDocument, [VASTDiagnostic]) {
        let root: MarkupElement
        do {
            root = try MarkupTree.parse(bytes)
        } catch {
            throw VASTError(code: .xmlParsing, message: error.message, line: error.line)
        }
        guard root.name == "VMAP" else {
            throw VASTError(
                code: .schemaValidation,
                message: "the root element is <\(root.name)>, not <VMAP>",
                line: root.line
            )
        }
        var diagnostics: [VASTDiagnostic] = []
        var document = VMAPDocument()
        for element in root.children("AdBreak").prefix(256) {
            guard let offset = Self.timeOffset(element.attributes["timeOffset"] ?? "") else {
                diagnostics.append(
                    VASTDiagnostic(
                        rule: "vmap.timeOffset",
                        message:
                            "timeOffset \(VASTDecoder.shown(element.attributes["timeOffset"] ?? "")) is not start, end, HH:MM:SS.mmm, n% or #n; the break is dropped",
                        line: element.line,
                        fix: "write timeOffset as start, end, a time within a day, or a percentage from 0 to 100"
                    )
                )
                continue
            }
            var item = VMAPBreak(
                id: element.attributes["breakId"].flatMap { $0.isEmpty || $0.utf8.count > 200 ? nil : $0 },
                timeOffset: offset,
                breakType: element.attributes["breakType"] ?? "linear",
                line: element.line
            )
            if let repeating = element.attributes["repeatAfter"] {
                if case .time(let every) = Self.timeOffset(repeating), every > .zero {
                    item.repeatAfter = every
                } else {
                    diagnostics.append(
                        VASTDiagnostic(
                            rule: "vmap.repeatAfter",
                            message:
                                "repeatAfter \(VASTDecoder.shown(repeating)) is not a time above zero; the break is placed once",
                            line: element.line,
                            fix: "write repeatAfter as HH:MM:SS.mmm"
                        )
                    )
                }
            }
            if !item.isLinear {
                diagnostics.append(
                    VASTDiagnostic(
                        rule: "vmap.breakType",
                        message:
                            "breakType \(VASTDecoder.shown(item.breakType)) is not linear: the break is not placed (an interstitial plays linear ads only)",
                        line: element.line,
                        fix: "give interstitial breaks breakType=\"linear\""
                    )
                )
            }
            if let source = element.child("AdSource") {
                if let tag = source.child("AdTagURI") {
                    item.adTagURI = VASTDecoder.url(tag, &diagnostics)
                }
                if let data = source.child("VASTAdData"), let vast = data.child("VAST") {
                    do {
                        let (decoded, found) = try VASTDecoder.decode(vast)
                        item.vast = decoded
                        diagnostics += found
                    } catch {
                        diagnostics.append(
                            VASTDiagnostic(
                                rule: "vmap.vast",
                                message: error.message,
                                line: error.line,
                                fix: "fix the inline VAST"
                            )
                        )
                    }
                }
            }
            document.breaks.append(item)
        }
        return (document, diagnostics)
    }

    /// A `timeOffset` value, or `nil`.
    public static func timeOffset(_ text: String) -> VMAPBreak.TimeOffset? {
        switch text {
        case "start": return .start
        case "end": return .end
        default: break
        }
        guard text.utf8.count <= 20 else { return nil }
        if text.hasSuffix("%") {
            guard let value = Double(text.dropLast()), value.isFinite, (0...100).contains(value) else { return nil }
            return .percentage(value)
        }
        if text.hasPrefix("#") {
            guard let value = Int(text.dropFirst()), (1...10_000).contains(value) else { return nil }
            return .ordinal(value)
        }
        return VASTDecoder.duration(text).map { .time($0) }
    }
}
