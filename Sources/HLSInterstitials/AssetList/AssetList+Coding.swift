import HLSPlaylist

/// The error ``AssetList/decode(_:)-([UInt8])`` throws: the bytes are not JSON, or not an asset list.
public struct AssetListDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of error it is.
    ///
    /// Compare codes, not message text.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String {
            case invalidJSON, notAnObject, missingAssets, assetsNotAnArray, invalidAsset, invalidSkipControl
            case numberOutOfRange, invalidCreativeSignaling
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The bytes are not JSON; ``AssetListDecodingError/byteOffset`` says where.
        public static let invalidJSON = Code(.invalidJSON)
        /// The document is not a JSON object.
        public static let notAnObject = Code(.notAnObject)
        /// The object has no `ASSETS` member.
        public static let missingAssets = Code(.missingAssets)
        /// `ASSETS` is not an array.
        public static let assetsNotAnArray = Code(.assetsNotAnArray)
        /// An asset is not an object, or lacks a string `URI` or a non-negative number `DURATION`.
        public static let invalidAsset = Code(.invalidAsset)
        /// `SKIP-CONTROL` is not an object, or one of its keys has the wrong type.
        public static let invalidSkipControl = Code(.invalidSkipControl)
        /// A number (`DURATION`, `OFFSET`) is larger than ``AssetList/maximumSeconds``;
        /// ``AssetListDecodingError/path`` names the key.
        public static let numberOutOfRange = Code(.numberOutOfRange)
        /// An entry's `X-AD-CREATIVE-SIGNALING` is not the SVTA2053-2 shape (read on demand by
        /// `AssetList.Asset.creativeSignaling()`, never by ``AssetList/decode(_:)-([UInt8])``).
        public static let invalidCreativeSignaling = Code(.invalidCreativeSignaling)

        /// The code's name.
        public var description: String { self.base.rawValue }
    }

    /// What kind of error.
    public var code: Code
    /// What is wrong and what to change.
    public var message: String
    /// Where in the document, as a path such as `ASSETS[1].DURATION` (`""` for the whole document).
    public var path: String
    /// The byte offset, for ``Code/invalidJSON``.
    public var byteOffset: Int?

    /// Creates an error.
    public init(code: Code, message: String, path: String, byteOffset: Int? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.byteOffset = byteOffset
    }

    /// `path: message` or `byte N: message`.
    public var description: String {
        if let byteOffset { return "byte \(byteOffset): \(self.message)" }
        return self.path.isEmpty ? self.message : "\(self.path): \(self.message)"
    }
}

extension AssetList {
    /// The largest number of seconds an asset list may give for `DURATION`, `OFFSET` or a
    /// `SKIP-CONTROL` `DURATION`: 9,223,372,036 s (the whole seconds of `MediaTime.maximum`), so every value
    /// converts to an exact `MediaTime` without clamping.
    public static let maximumSeconds: Double = 9_223_372_036

    /// Checks a JSON number of seconds from an asset list and reads it exactly: not negative (`-0`
    /// is zero) and at most ``maximumSeconds``; digits past the nanosecond are rounded half-up.
    static func checkedSeconds(
        _ value: JSONValue,
        key: String,
        path: String,
        code: AssetListDecodingError.Code
    ) throws(AssetListDecodingError) -> MediaTime {
        guard case .number(let number) = value, !number.isNegative else {
            throw AssetListDecodingError(
                code: code,
                message: "\(key) must be a non-negative number of seconds, not \(value)",
                path: path
            )
        }
        guard case .time(let seconds) = number.mediaTimeReading, seconds <= MediaTime(seconds: 9_223_372_036) else {
            throw AssetListDecodingError(
                code: .numberOutOfRange,
                message: "\(key) \(value) is out of range: at most 9223372036 seconds",
                path: path
            )
        }
        return seconds
    }

    /// Decodes an asset-list JSON document.
    ///
    /// `ASSETS` must be an array of objects, each with a string `URI` and a non-negative number
    /// `DURATION`. `SKIP-CONTROL`, when present, must be an object whose `OFFSET` and `DURATION` are
    /// non-negative numbers and whose `LABEL-ID` is a string. Every other member is kept in place.
    /// Numbers of seconds must be at most ``maximumSeconds`` (``AssetListDecodingError/Code/numberOutOfRange``
    /// names the key otherwise); `-0` reads as 0.
    ///
    /// - Parameters:
    ///   - bytes: The UTF-8 JSON text of the response body.
    ///   - draftNames: Whether the 2024 draft keys `ENABLE-SKIP-AFTER` and `ENABLE-SKIP-FOR` of
    ///     `SKIP-CONTROL` are read as `OFFSET` and `DURATION` (``DraftNamePolicy/accept``, the
    ///     default; a spec key given too wins) or kept as unknown members (``DraftNamePolicy/refuse``).
    /// - Returns: The asset list.
    /// - Throws: ``AssetListDecodingError``.
    ///
    /// ### Errors
    /// ``AssetListDecodingError/Code/invalidJSON`` with the byte offset for malformed JSON;
    /// ``AssetListDecodingError/Code/missingAssets`` when `ASSETS` is absent (hls.js treats that
    /// as a parse error too); the other codes name the member at fault in ``AssetListDecodingError/path``.
    public static func decode(_ bytes: [UInt8], draftNames: DraftNamePolicy = .accept) throws -> AssetList {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch let error as JSONParsingError {
            throw AssetListDecodingError(
                code: .invalidJSON,
                message: "the asset list is not valid JSON: \(error.message)",
                path: "",
                byteOffset: error.byteOffset
            )
        }
        return try AssetList(json: value, draftNames: draftNames)
    }

    /// Decodes an asset list from JSON text (see ``decode(_:)-([UInt8])``).
    ///
    /// - Throws: ``AssetListDecodingError``.
    public static func decode(_ text: String, draftNames: DraftNamePolicy = .accept) throws -> AssetList {
        try decode(Array(text.utf8), draftNames: draftNames)
    }

    /// Reads an asset list from a parsed JSON value (see ``decode(_:)-([UInt8])`` for the rules).
    ///
    /// - Parameters:
    ///   - json: The parsed document.
    ///   - draftNames: How draft `SKIP-CONTROL` keys are read; accepted by default.
    /// - Throws: ``AssetListDecodingError``.
    public init(json: JSONValue, draftNames: DraftNamePolicy = .accept) throws {
        guard case .object(let members) = json else {
            throw AssetListDecodingError(
                code: .notAnObject,
                message: "the asset list must be a JSON object with an ASSETS array, not \(json.typeName)",
                path: ""
            )
        }
        var assets: [Asset]?
        var skip: SkipControlOverride?
        var extras = OrderedExtras()
        for (key, value) in members {
            extras.order.append(key)
            switch key {
            case "ASSETS" where assets == nil:
                guard case .array(let elements) = value else {
                    throw AssetListDecodingError(
                        code: .assetsNotAnArray,
                        message: "ASSETS must be an array of {\"URI\", \"DURATION\"} objects, not \(value.typeName)",
                        path: "ASSETS"
                    )
                }
                assets = try elements.enumerated().map { try Asset(json: $1, path: "ASSETS[\($0)]") }
            case "SKIP-CONTROL" where skip == nil:
                skip = try SkipControlOverride(json: value, path: "SKIP-CONTROL", draftNames: draftNames)
            default:
                extras.members.append((key, value))
            }
        }
        guard let assets else {
            throw AssetListDecodingError(
                code: .missingAssets,
                message: "the asset list has no ASSETS member; add \"ASSETS\": [] (an empty list plays nothing)",
                path: ""
            )
        }
        self.assets = assets
        self.skipControl = skip
        self.extras = extras
    }

    /// The asset list as a JSON value: known members and unknown ones in their decoded order (for a
    /// list made in code: `ASSETS`, then `SKIP-CONTROL`, then the other members).
    public var json: JSONValue {
        self.extras.object(known: [
            ("ASSETS", .array(self.assets.map(\.json))),
            ("SKIP-CONTROL", self.skipControl?.json),
        ])
    }

    /// Encodes the asset list as compact UTF-8 JSON.
    ///
    /// Durations are written in their shortest form (`15`, `15.5`).
    ///
    /// - Parameter options: Layout and number style (compact by default).
    /// - Returns: The JSON bytes.
    public func encode(options: JSONWritingOptions = .compact) -> [UInt8] {
        self.json.serialized(options: options)
    }
}

extension AssetList.Asset {
    init(json: JSONValue, path: String, draftNames: DraftNamePolicy = .accept) throws {
        guard case .object(let members) = json else {
            throw AssetListDecodingError(
                code: .invalidAsset,
                message: "each asset must be an object with URI and DURATION, not \(json.typeName)",
                path: path
            )
        }
        var uri: String?
        var duration: MediaTime?
        var extras = OrderedExtras()
        for (key, value) in members {
            extras.order.append(key)
            switch key {
            case "URI" where uri == nil:
                guard case .string(let text) = value else {
                    throw AssetListDecodingError(
                        code: .invalidAsset,
                        message: "URI must be a string holding the asset's absolute URI, not \(value.typeName)",
                        path: path + ".URI"
                    )
                }
                uri = text
            case "DURATION" where duration == nil:
                duration = try AssetList.checkedSeconds(
                    value,
                    key: "DURATION",
                    path: path + ".DURATION",
                    code: .invalidAsset
                )
            default:
                extras.members.append((key, value))
            }
        }
        guard let uri else {
            throw AssetListDecodingError(
                code: .invalidAsset,
                message: "the asset has no URI; add \"URI\": \"https://…/asset.m3u8\"",
                path: path
            )
        }
        guard let duration else {
            throw AssetListDecodingError(
                code: .invalidAsset,
                message: "the asset has no DURATION; add \"DURATION\": <seconds>",
                path: path
            )
        }
        self.uri = uri
        self.duration = duration
        self.extras = extras
    }

    /// The asset as a JSON object (decoded key order kept).
    public var json: JSONValue {
        self.extras.object(known: [("URI", .string(self.uri)), ("DURATION", .number(self.duration))])
    }
}

extension AssetList.SkipControlOverride {
    init(json: JSONValue, path: String, draftNames: DraftNamePolicy = .accept) throws {
        guard case .object(let members) = json else {
            throw AssetListDecodingError(
                code: .invalidSkipControl,
                message: "SKIP-CONTROL must be an object with OFFSET, DURATION and LABEL-ID, not \(json.typeName)",
                path: path
            )
        }
        self.init()
        var seen: Set<String> = []
        let given = Set(members.map { $0.0 })
        for (written, value) in members {
            let key = AssetList.readKey(written, given: given, draftNames: draftNames)
            self.extras.order.append(key)
            let first = seen.insert(key).inserted
            switch key {
            case "OFFSET" where first, "DURATION" where first:
                let seconds = try AssetList.checkedSeconds(
                    value,
                    key: key,
                    path: path + "." + key,
                    code: .invalidSkipControl
                )
                if key == "OFFSET" { self.offset = seconds } else { self.duration = seconds }
            case "LABEL-ID" where first:
                guard case .string(let label) = value else {
                    throw AssetListDecodingError(
                        code: .invalidSkipControl,
                        message: "LABEL-ID must be a string, not \(value.typeName)",
                        path: path + ".LABEL-ID"
                    )
                }
                self.labelID = label
            default:
                self.extras.members.append((key, value))
            }
        }
    }

    /// The skip control as a JSON object (decoded key order kept).
    public var json: JSONValue {
        self.extras.object(known: [
            ("OFFSET", self.offset.map { .number($0) }),
            ("DURATION", self.duration.map { .number($0) }),
            ("LABEL-ID", self.labelID.map { .string($0) }),
        ])
    }
}
