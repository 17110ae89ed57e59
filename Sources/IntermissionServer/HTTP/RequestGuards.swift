import AdInsertion
import HLSInterstitials
import HLSPlaylist
import Hummingbird
import IntermissionHTTP
import NIOCore

/// Request paths, percent-decoded exactly once and checked before anything is opened or forwarded.
enum RequestPath {
    /// The segments of a raw request path (`/vod/demo/prog.m3u8` gives `vod`, `demo`, `prog.m3u8`),
    /// each percent-decoded once.
    ///
    /// Refused with `400`: a path that does not start with `/`, malformed percent-encoding, bytes
    /// that are not UTF-8, and segments that decode to `.` or `..`, hold a NUL or another control
    /// character, or hold `/`, `\` or `%` (an encoded slash or a second layer of encoding). An empty
    /// segment (`//`) is refused too, except a trailing `/`.
    static func segments(_ raw: String) throws(APIError) -> [String] {
        guard raw.hasPrefix("/") else { throw APIError.badRequest("the request path must start with '/'") }
        let parts = raw.utf8.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        var result: [String] = []
        result.reserveCapacity(parts.count)
        for (k, part) in parts.enumerated() {
            if part.isEmpty {
                guard k == parts.count - 1 else {
                    throw APIError.badRequest("the request path holds an empty segment ('//')")
                }
                continue
            }
            guard let bytes = Self.percentDecoded(part) else {
                throw APIError.badRequest("the request path holds malformed percent-encoding")
            }
            for byte in bytes
            where byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\")
                || byte == UInt8(ascii: "%")
            {
                switch byte {
                case UInt8(ascii: "/"), UInt8(ascii: "\\"):
                    throw APIError.badRequest("the request path holds an encoded slash or backslash")
                case UInt8(ascii: "%"): throw APIError.badRequest("the request path is percent-encoded twice")
                default: throw APIError.badRequest("the request path holds a NUL or another control character")
                }
            }
            guard let segment = String(validating: bytes, as: UTF8.self) else {
                throw APIError.badRequest("the request path is not UTF-8")
            }
            guard segment != ".", segment != ".." else {
                throw APIError.badRequest("the request path holds a dot segment ('.' or '..')")
            }
            result.append(segment)
        }
        return result
    }

    /// The bytes of one segment with `%XY` decoded, or `nil` for a `%` not followed by two hex digits.
    static func percentDecoded(_ bytes: some Collection<UInt8>) -> [UInt8]? {
        func hex(_ b: UInt8) -> UInt8? {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            index = bytes.index(after: index)
            guard byte == UInt8(ascii: "%") else {
                result.append(byte)
                continue
            }
            guard index != bytes.endIndex, let high = hex(bytes[index]) else { return nil }
            index = bytes.index(after: index)
            guard index != bytes.endIndex, let low = hex(bytes[index]) else { return nil }
            index = bytes.index(after: index)
            result.append(high << 4 | low)
        }
        return result
    }

    /// A decoded segment encoded again for a URL: unreserved characters (RFC 3986) as they are,
    /// every other byte as `%XY`, so a `?` or `#` in a name never becomes a query or a fragment.
    static func encoded(_ segment: String) -> String {
        var result = ""
        for byte in segment.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".utf8)
                result += "%" + String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return result
    }
}

/// Refuses (`400`) request paths ``RequestPath/segments(_:)`` refuses, before any route runs.
struct PathGuardMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        _ = try RequestPath.segments(request.uri.path)
        return try await next(request, context)
    }
}

/// The files served from the folders under `/media/`, by extension.
enum MediaFileTypes {
    /// The content type of each file extension served (lower case).
    static let contentTypes: [String: String] = [
        "m3u8": "application/vnd.apple.mpegurl",
        // Static asset lists and schedule documents (Appendix H) kept next to the media, as
        // `intermission download` writes them.
        "json": "application/json",
        "ts": "video/mp2t",
        "aac": "audio/aac",
        "m4s": "video/iso.segment",
        "mp4": "video/mp4",
        "m4v": "video/mp4",
        "m4a": "audio/mp4",
        "cmfv": "video/mp4",
        "cmfa": "audio/mp4",
        "cmft": "application/mp4",
        "mp3": "audio/mpeg",
        "ac3": "audio/ac3",
        "ec3": "audio/eac3",
        "webm": "video/webm",
        "vtt": "text/vtt; charset=utf-8",
        "webvtt": "text/vtt; charset=utf-8",
        "key": "application/octet-stream",
        "jpg": "image/jpeg",
        "jpeg": "image/jpeg",
        "png": "image/png",
        "webp": "image/webp",
    ]

    /// `Cache-Control` of a `/media/` file by extension: playlists (creatives' and origins'), static
    /// asset lists and schedules, and keys `max-age=300`; segments, init sections, WebVTT and images a year and `immutable` (a
    /// media file under a given name never changes: packagers write new names).
    static func cacheControl(of name: String) -> String {
        let dot = name.lastIndex(of: ".").map { name.index(after: $0) } ?? name.endIndex
        switch name[dot...].lowercased() {
        case "m3u8", "json", "key": return "max-age=300"
        default: return "max-age=31536000, immutable"
        }
    }

    /// The content type a `/media/` file name gets, or `nil` when it is not served.
    static func contentType(of name: String) -> String? {
        guard !name.hasPrefix("."), let dot = name.lastIndex(of: ".") else { return nil }
        return Self.contentTypes[name[name.index(after: dot)...].lowercased()]
    }
}

/// Serves only media from the folders under `/media/`: playlists, segments, keys, init sections,
/// WebVTT and images, each with its content type.
///
/// Anything else (scripts, READMEs, hidden files,
/// folders) is `404` before a file is looked at.
struct MediaFilesMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.uri.path.hasPrefix("/media/"), request.method == .get || request.method == .head else {
            return try await next(request, context)
        }
        let segments = try RequestPath.segments(request.uri.path)
        guard segments.count >= 3, segments.dropFirst(2).allSatisfy({ !$0.hasPrefix(".") }), let name = segments.last,
            let type = MediaFileTypes.contentType(of: name)
        else {
            throw APIError.notFound(
                "no such media file (only playlists, segments, keys, init sections, WebVTT and images are served here)"
            )
        }
        var response = try await next(request, context)
        if [.ok, .partialContent, .notModified].contains(response.status) {
            response.headers[.contentType] = type
            response.headers[.cacheControl] = MediaFileTypes.cacheControl(of: name)
        }
        return response
    }
}

/// The methods each route answers, for `405 Method Not Allowed` with `Allow`.
struct RouteMethods: Sendable {
    /// A route: its path pattern (`*` is one segment, `*.json` one segment with that suffix, `**`
    /// one or more segments) and its methods.
    struct Route: Sendable {
        var pattern: [String]
        var methods: [HTTPRequest.Method]
    }

    var routes: [Route] = []

    /// Adds a route (`"v1/admin/inventory/*"`).
    ///
    /// GET routes answer HEAD too.
    mutating func add(_ pattern: String, _ methods: HTTPRequest.Method...) {
        var all = methods
        if all.contains(.get) && !all.contains(.head) { all.append(.head) }
        self.routes.append(Route(pattern: pattern.split(separator: "/").map(String.init), methods: all))
    }

    /// The methods of every route the segments match, or `nil` when none does.
    func methods(for segments: [String]) -> [HTTPRequest.Method]? {
        var found: [HTTPRequest.Method] = []
        var matched = false
        for route in self.routes where Self.matches(route.pattern[...], segments[...]) {
            matched = true
            for method in route.methods where !found.contains(method) { found.append(method) }
        }
        return matched ? found : nil
    }

    static func matches(_ pattern: ArraySlice<String>, _ segments: ArraySlice<String>) -> Bool {
        guard let head = pattern.first else { return segments.isEmpty }
        if head == "**" { return !segments.isEmpty }
        guard let segment = segments.first else { return false }
        if head == "*" {
            return Self.matches(pattern.dropFirst(), segments.dropFirst())
        }
        if head.hasPrefix("*") {
            return segment.count > head.count - 1 && segment.hasSuffix(head.dropFirst())
                && Self.matches(pattern.dropFirst(), segments.dropFirst())
        }
        return head == segment && Self.matches(pattern.dropFirst(), segments.dropFirst())
    }
}

/// Answers a method a route does not take with `405` and `Allow`, before the route runs.
struct MethodGuardMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: RouteMethods

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let segments = try RequestPath.segments(request.uri.path)
        if let methods = self.routes.methods(for: segments), !methods.contains(request.method) {
            var allowed = methods
            if !OpenCORSMiddleware<Context>.isAdmin(request.uri.path) { allowed.append(.options) }
            var error = APIError(
                .methodNotAllowed,
                code: "methodNotAllowed",
                message: "\(request.method.rawValue.prefix(40)) is not allowed here"
            )
            error.allow = allowed.map(\.rawValue).joined(separator: ", ")
            throw error
        }
        return try await next(request, context)
    }
}

extension RouterMethods {
    /// Adds a GET route and a HEAD route that answers the same status and headers (its
    /// `Content-Length` included) with no body.
    @discardableResult
    func getAndHead(
        _ path: RouterPath,
        use handler: @escaping @Sendable (Request, Context) async throws -> Response
    ) -> Self {
        self.get(path, use: handler)
        return self.head(path) { request, context -> Response in
            let response = try await handler(request, context)
            var headers = response.headers
            if headers[.contentLength] == nil, let length = response.body.contentLength {
                headers[.contentLength] = String(length)
            }
            return Response(status: response.status, headers: headers, body: .init())
        }
    }
}

extension AssetListController {
    /// The inputs of an asset-list request, checked against their documented ranges
    /// (``InputLimits``) before anything is looked up: the scope and break IDs,
    /// `_HLS_interstitial_id`, `_HLS_start_offset` (plain decimal seconds, 0 to 3600),
    /// `_HLS_primary_id` and `X-Playback-Session-Id` (at most 200 bytes, no control characters).
    static func input(_ request: Request, context: ServerRequestContext) throws -> AssetListInput {
        try AssetListInput(
            scope: try context.parameters.require("scope"),
            breakID: try context.parameters.require("break"),
            query: request.uri.query.map { $0[...] },
            sessionIDs: request.headers.filter { $0.name.canonicalName == "x-playback-session-id" }.map(\.value)
        )
    }

    /// `_HLS_start_offset`: digits, at most one `.`, at most 4 digits before it and 30 after (a
    /// player that prints a double sends up to 17; past 9 they round to the nanosecond), from 0 to
    /// 3600 (no sign, exponent, hex, `inf` or `nan`).
    static func startOffset(_ text: String) throws(InputLimitError) -> MediaTime {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let digits = { (part: Substring) in part.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
        guard (1...4).contains(parts[0].utf8.count), digits(parts[0]),
            parts.count == 1 || ((1...30).contains(parts[1].utf8.count) && digits(parts[1])),
            let value = MediaTime(text), value >= .zero,
            value <= MediaTime(seconds: Int(InputLimits.startOffset.upperBound))
        else {
            throw InputLimitError(
                field: "_HLS_start_offset",
                message: "must be a decimal number of seconds from 0 to 3600, got \(InputLimits.quoted(text))"
            )
        }
        return value
    }

    static func checkViewer(_ text: String, field: String) throws(InputLimitError) {
        guard text.utf8.count <= InputLimits.primaryIDBytes, text.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else {
            throw InputLimitError(
                field: field,
                message: "must be at most \(InputLimits.primaryIDBytes) bytes without control characters"
            )
        }
    }
}
