import HLSPlaylist

/// Reads VAST 4.x documents (VAST 2 and 3 documents of the same shape read alike).
///
/// Hostile input is bounded: the XML reader limits depth and size, URLs longer than
/// ``maximumURLBytes`` or not `http(s)` are dropped with a diagnostic, durations must be
/// `HH:MM:SS(.mmm)` within a day, and at most ``maximumAds`` ads are read.
public enum VASTDecoder {
    /// The longest URL kept.
    public static let maximumURLBytes = 8192
    /// The most ads read from one response.
    public static let maximumAds = 64

    /// Decodes a VAST document.
    ///
    /// - Returns: The document and what it gets wrong that could be stepped over.
    /// - Throws: ``VASTError`` with code 100 when the bytes are not XML, 101 when the root is not
    ///   `VAST`.
    public static func decode(_ bytes: [UInt8]) throws(VASTError) -> (VASTDocument, [VASTDiagnostic]) {
        let root: MarkupElement
        do {
            root = try MarkupTree.parse(bytes)
        } catch {
            throw VASTError(code: .xmlParsing, message: error.message, line: error.line)
        }
        return try Self.decode(root)
    }

    /// Decodes a parsed `VAST` element (also the one inside a VMAP `VASTAdData`).
    public static func decode(_ root: MarkupElement) throws(VASTError) -> (VASTDocument, [VASTDiagnostic]) {
        // VAST 1.0 wrote its answer as <VideoAdServingTemplate>; some servers still mark 1.x on <VAST>.
        if root.name == "VideoAdServingTemplate" || root.attributes["version"]?.hasPrefix("1.") == true {
            throw VASTError(
                code: .unsupportedVersion,
                message: "a VAST 1.x answer (<\(root.name)>); VAST 2.0 to 4.3 are read",
                line: root.line
            )
        }
        guard root.name == "VAST" else {
            throw VASTError(
                code: .schemaValidation,
                message: "the root element is <\(root.name)>, not <VAST>",
                line: root.line
            )
        }
        var diagnostics: [VASTDiagnostic] = []
        var document = VASTDocument(version: root.attributes["version"])
        document.errorURLs = Self.urls(root.children("Error"), &diagnostics)
        let ads = root.children("Ad")
        if ads.count > Self.maximumAds {
            diagnostics.append(
                VASTDiagnostic(
                    rule: "vast.ads",
                    message: "\(ads.count) ads; the first \(Self.maximumAds) are read",
                    line: ads[Self.maximumAds].line,
                    fix: "answer a shorter pod"
                )
            )
        }
        for ad in ads.prefix(Self.maximumAds) {
            if let decoded = Self.ad(ad, &diagnostics) { document.ads.append(decoded) }
        }
        return (document, diagnostics)
    }

    static func ad(_ element: MarkupElement, _ diagnostics: inout [VASTDiagnostic]) -> VASTAd? {
        var sequence: Int?
        if let text = element.attributes["sequence"] {
            if let value = Int(text), (1...10_000).contains(value) {
                sequence = value
            } else {
                diagnostics.append(
                    VASTDiagnostic(
                        rule: "vast.sequence",
                        message:
                            "sequence \(Self.shown(text)) is not a number from 1 to 10000; the ad is read as stand-alone",
                        line: element.line,
                        fix: "write sequence as a positive integer"
                    )
                )
            }
        }
        let body: MarkupElement
        let kind: VASTAd.Kind
        if let inLine = element.child("InLine") {
            body = inLine
            kind = .inLine
        } else if let wrapper = element.child("Wrapper") {
            body = wrapper
            let tags = Self.urls(wrapper.children("VASTAdTagURI"), &diagnostics)
            guard let tag = tags.first else {
                diagnostics.append(
                    VASTDiagnostic(
                        rule: "vast.wrapper",
                        message: "a Wrapper without a usable VASTAdTagURI; the ad is dropped",
                        line: wrapper.line,
                        fix: "give the wrapper an http(s) VASTAdTagURI"
                    )
                )
                return nil
            }
            kind = .wrapper(
                VASTWrapper(
                    adTagURI: tag,
                    followsAdditionalWrappers: Self.flag(wrapper.attributes["followAdditionalWrappers"], default: true),
                    allowsMultipleAds: Self.flag(wrapper.attributes["allowMultipleAds"], default: false)
                )
            )
        } else {
            diagnostics.append(
                VASTDiagnostic(
                    rule: "vast.ad",
                    message: "an Ad with neither InLine nor Wrapper; it is dropped",
                    line: element.line,
                    fix: "put an InLine or a Wrapper element in the Ad"
                )
            )
            return nil
        }
        var ad = VASTAd(id: element.attributes["id"], sequence: sequence, kind: kind, line: element.line)
        ad.adSystem = body.child("AdSystem")?.trimmedText
        ad.impressionURLs = Self.urls(body.children("Impression"), &diagnostics)
        ad.errorURLs = Self.urls(body.children("Error"), &diagnostics)
        for creative in (body.child("Creatives")?.children("Creative") ?? []).prefix(32) {
            ad.creatives.append(Self.creative(creative, &diagnostics))
        }
        return ad
    }

    static func creative(_ element: MarkupElement, _ diagnostics: inout [VASTDiagnostic]) -> VASTCreative {
        var creative = VASTCreative(id: element.attributes["id"], adID: element.attributes["adId"])
        if let universal = element.child("UniversalAdId") {
            let text = universal.trimmedText
            if !text.isEmpty && text.lowercased() != "unknown" && text.utf8.count <= 256 {
                creative.universalAdID = text
                if let registry = universal.attributes["idRegistry"].map(MarkupTree.trimmed), !registry.isEmpty,
                    registry.lowercased() != "unknown", registry.utf8.count <= 256
                {
                    creative.universalAdIDRegistry = registry
                }
            }
        }
        creative.hasNonLinear = element.child("NonLinearAds") != nil
        guard let linear = element.child("Linear") else { return creative }
        var result = VASTLinear()
        if let skip = linear.attributes["skipoffset"] {
            result.skipOffset = VASTOffset(skip)
            if result.skipOffset == nil {
                diagnostics.append(
                    VASTDiagnostic(
                        rule: "vast.skipoffset",
                        message:
                            "skipoffset \(Self.shown(skip)) is not HH:MM:SS(.mmm) or n%; the ad is not skippable",
                        line: linear.line,
                        fix: "write skipoffset as HH:MM:SS.mmm or a percentage such as 25%"
                    )
                )
            }
        }
        if let duration = linear.child("Duration") {
            result.duration = Self.duration(duration.trimmedText)
            if result.duration == nil {
                diagnostics.append(
                    VASTDiagnostic(
                        rule: "vast.duration",
                        message:
                            "Duration \(Self.shown(duration.trimmedText)) is not HH:MM:SS or HH:MM:SS.mmm within a day",
                        line: duration.line,
                        fix: "write the creative's duration as HH:MM:SS.mmm"
                    )
                )
            }
        }
        for file in (linear.child("MediaFiles")?.children("MediaFile") ?? []).prefix(64) {
            guard let url = Self.url(file, &diagnostics) else { continue }
            let bitrate = Self.integer(file.attributes["bitrate"])
            let low = Self.integer(file.attributes["minBitrate"])
            let high = Self.integer(file.attributes["maxBitrate"])
            result.mediaFiles.append(
                VASTMediaFile(
                    url: url,
                    type: file.attributes["type"] ?? "",
                    delivery: file.attributes["delivery"],
                    bitrate: bitrate ?? (low.flatMap { l in high.map { (l + $0) / 2 } } ?? low ?? high),
                    width: Self.integer(file.attributes["width"]),
                    height: Self.integer(file.attributes["height"]),
                    apiFramework: file.attributes["apiFramework"].map { String($0.prefix(64)) }
                )
            )
        }
        for tracking in (linear.child("TrackingEvents")?.children("Tracking") ?? []).prefix(256) {
            guard let event = tracking.attributes["event"], !event.isEmpty, event.utf8.count <= 64,
                let url = Self.url(tracking, &diagnostics)
            else { continue }
            var offset: VASTOffset?
            if event == "progress" {
                // A progress event is defined by its offset (VAST 4.x 3.14.1): without a valid one it
                // has no moment.
                offset = tracking.attributes["offset"].flatMap(VASTOffset.init)
                guard offset != nil else {
                    diagnostics.append(
                        VASTDiagnostic(
                            rule: "vast.progress",
                            message:
                                "a progress Tracking with offset \(Self.shown(tracking.attributes["offset"] ?? "")), not HH:MM:SS(.mmm) or n%; it is dropped",
                            line: tracking.line,
                            fix: "give each progress Tracking an offset such as 00:00:05.000 or 50%"
                        )
                    )
                    continue
                }
            }
            result.tracking.append(VASTTrackingURL(event: event, url: url, offset: offset))
        }
        if let clicks = linear.child("VideoClicks") {
            result.clickThrough = clicks.child("ClickThrough").flatMap { Self.url($0, &diagnostics) }
            result.clickTracking = Self.urls(clicks.children("ClickTracking"), &diagnostics)
        }
        creative.linear = result
        return creative
    }

    /// `HH:MM:SS` or `HH:MM:SS.mmm` (up to 24 hours), or `nil`.
    public static func duration(_ text: String) -> MediaTime? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, text.utf8.count <= 20,
            let hours = Int(parts[0]), let minutes = Int(parts[1]), (0..<24).contains(hours), (0..<60).contains(minutes)
        else { return nil }
        let secondParts = parts[2].split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(secondParts.count), secondParts[0].count == 2, let seconds = Int(secondParts[0]),
            (0..<60).contains(seconds)
        else { return nil }
        var nanoseconds: Int64 = 0
        if secondParts.count == 2 {
            let fraction = secondParts[1]
            guard (1...9).contains(fraction.count), fraction.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = Int64(fraction)
            else { return nil }
            var scale: Int64 = 1
            for _ in 0..<(9 - fraction.count) { scale *= 10 }
            nanoseconds = value * scale
        }
        let whole = Int64(hours * 3600 + minutes * 60 + seconds)
        return MediaTime(nanoseconds: whole * 1_000_000_000 + nanoseconds)
    }

    static func flag(_ text: String?, default value: Bool) -> Bool {
        switch text?.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default: return value
        }
    }

    static func integer(_ text: String?) -> Int? {
        guard let text, let value = Int(text), (0...100_000_000).contains(value) else { return nil }
        return value
    }

    /// The text of `element` when it is an `http(s)` URL within bounds; else a diagnostic.
    static func url(_ element: MarkupElement, _ diagnostics: inout [VASTDiagnostic]) -> String? {
        let text = element.trimmedText
        if text.isEmpty { return nil }
        let lowered = text.prefix(8).lowercased()
        guard text.utf8.count <= Self.maximumURLBytes,
            lowered.hasPrefix("http://") || lowered.hasPrefix("https://"),
            text.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F })
        else {
            diagnostics.append(
                VASTDiagnostic(
                    rule: "vast.url",
                    message:
                        "<\(element.name)> holds \(Self.shown(text)), not an http(s) URL of at most \(Self.maximumURLBytes) bytes; it is dropped",
                    line: element.line,
                    fix: "write an absolute http(s) URL without spaces"
                )
            )
            return nil
        }
        return text
    }

    static func urls(_ elements: [MarkupElement], _ diagnostics: inout [VASTDiagnostic]) -> [String] {
        elements.prefix(64).compactMap { Self.url($0, &diagnostics) }
    }

    /// Text for a message: at most 40 characters, control characters escaped.
    static func shown(_ text: String) -> String {
        let head = text.unicodeScalars.prefix(40).map {
            $0.value < 0x20 ? "\\u{\(String($0.value, radix: 16))}" : String($0)
        }
        return "'" + head.joined() + (text.unicodeScalars.count > 40 ? "…'" : "'")
    }
}
