import Hummingbird
import NIOCore

/// Adds `Access-Control-Allow-Origin: *` to every answer outside the admin API and answers CORS
/// preflights (`OPTIONS`) there.
///
/// Admin answers carry no CORS header, so browsers on other origins
/// cannot read them.
///
/// Not Hummingbird's `CORSMiddleware`, which does not fit here on two counts: it leaves requests
/// without an `Origin` header alone, so a CDN that cached a playlist fetched without one (a
/// native player, a prefetch) would serve it to browsers with no `Access-Control-Allow-Origin`
/// (and with `.all` it adds no `Vary: Origin` that would keep the two apart); and the admin
/// exclusion needs it per route group, where a preflight never reaches it (a group's middleware
/// runs only for a route that matched, and no route answers `OPTIONS`).
package struct OpenCORSMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Creates the middleware.
    package init() {}

    /// Whether a path is under `/v1/admin`.
    package static func isAdmin(_ path: String) -> Bool {
        path == "/v1/admin" || path.hasPrefix("/v1/admin/")
    }

    package func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let admin = Self.isAdmin(request.uri.path)
        if request.method == .options && !admin {
            var headers: HTTPFields = [:]
            headers[.accessControlAllowOrigin] = "*"
            headers[.accessControlAllowMethods] = "GET, HEAD, OPTIONS"
            let asked = request.headers[.accessControlRequestHeaders] ?? ""
            // Echoed only when it is a plain list of header names.
            let plain =
                asked.utf8.count <= 256
                && asked.utf8.allSatisfy {
                    $0 == 0x2C || $0 == 0x20 || $0 == 0x2D || ($0 >= 0x30 && $0 <= 0x39)
                        || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A)
                }
            headers[.accessControlAllowHeaders] = plain && !asked.isEmpty ? asked : "Authorization, Content-Type, Range"
            headers[.accessControlMaxAge] = "86400"
            return Response(status: .noContent, headers: headers)
        }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        guard !admin else { return response }
        OpenCORS.add(to: &response.headers)
        return response
    }
}

/// The CORS fields of every answer outside the admin API, written in one place for the middleware
/// and for the answers made before routing (the caches' entries, returning viewers' asset lists).
package enum OpenCORS {
    /// `Access-Control-Expose-Headers` of every answer outside the admin API.
    package static let exposedFields = "Content-Length, Content-Type, Retry-After, X-Intermission-Decision"

    /// Adds `Access-Control-Allow-Origin: *` and ``exposedFields`` to `headers`.
    package static func add(to headers: inout HTTPFields) {
        headers[.accessControlAllowOrigin] = "*"
        headers[.accessControlExposeHeaders] = Self.exposedFields
    }
}

/// Counts requests and their latency per route (the route pattern, not the path, so label values stay few).
package struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    package let metrics: ServerMetrics

    /// Counts in `metrics`.
    package init(metrics: ServerMetrics) {
        self.metrics = metrics
    }

    package func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            self.record(request, context, status: Int(response.status.code), start: start)
            return response
        } catch let error as any HTTPResponseError {
            self.record(request, context, status: Int(error.status.code), start: start)
            throw error
        } catch {
            self.record(request, context, status: 500, start: start)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, status: Int, start: ContinuousClock.Instant) {
        let route = context.endpointPath ?? (request.uri.path.hasPrefix("/media/") ? "/media/**" : "unmatched")
        self.metrics.request(
            route: route,
            method: request.method.rawValue,
            status: status,
            duration: ContinuousClock.now - start
        )
    }
}

/// Requires `Authorization: Bearer {token}` (the scheme in any case, RFC 7235).
///
/// The token is compared in constant time over equal-length keyed digests, so neither its length
/// nor how much of it a guess got right shows in the time an answer takes.
package struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    package let token: String?
    private let expected: TokenDigest?

    package init(token: String?) {
        self.token = token
        self.expected = token.map { TokenDigest(Array($0.utf8)) }
    }

    package func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard self.expected != nil else {
            throw APIError(
                .forbidden,
                code: "adminDisabled",
                message: "the admin API is disabled: set server.adminToken in the configuration"
            )
        }
        guard self.authorizes(request) else {
            throw APIError(
                .unauthorized,
                code: "unauthorized",
                message: "missing or wrong bearer token (Authorization: Bearer TOKEN)"
            )
        }
        return try await next(request, context)
    }

    /// Whether `request` carries the admin token (the check of ``handle(_:context:next:)``, without
    /// refusing anything): for public routes that show more to the admin.
    package func authorizes(_ request: Request) -> Bool {
        guard let expected = self.expected, let header = request.headers[.authorization],
            let credentials = Self.bearerCredentials(header)
        else { return false }
        return TokenDigest(Array(credentials.utf8)) == expected
    }

    /// The credentials of a `Bearer` authorization (`bearer`, `BEARER`...
    ///
    /// alike), or `nil`.
    package static func bearerCredentials(_ header: String) -> Substring? {
        let text = header[...].drop { $0 == " " }
        guard let space = text.firstIndex(of: " "), text[..<space].lowercased() == "bearer" else { return nil }
        var credentials = text[space...].drop { $0 == " " }
        while credentials.last == " " { credentials = credentials.dropLast() }
        return credentials.isEmpty ? nil : credentials
    }
}

/// A 256-bit keyed digest of a secret, compared in constant time.
///
/// Four SipHash runs of the standard library's `Hasher` (seeded at random once per process, so the
/// key is unknown outside it), each with its own lane number. Digests always have the same length,
/// and `==` looks at every bit of both, so comparing a guess leaks neither the token's length nor
/// the length of a matching prefix.
package struct TokenDigest: Equatable {
    private let lanes: (UInt64, UInt64, UInt64, UInt64)

    package init(_ bytes: [UInt8]) {
        func lane(_ number: UInt8) -> UInt64 {
            var hasher = Hasher()
            hasher.combine(number)
            hasher.combine(bytes.count)
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
            return UInt64(bitPattern: Int64(hasher.finalize()))
        }
        self.lanes = (lane(0), lane(1), lane(2), lane(3))
    }

    package static func == (a: TokenDigest, b: TokenDigest) -> Bool {
        let difference =
            (a.lanes.0 ^ b.lanes.0) | (a.lanes.1 ^ b.lanes.1) | (a.lanes.2 ^ b.lanes.2) | (a.lanes.3 ^ b.lanes.3)
        return difference == 0
    }
}

extension Response {
    /// A `200` answer with bytes of a content type.
    package static func bytes(
        _ bytes: [UInt8],
        contentType: String,
        cacheControl: String? = nil,
        status: HTTPResponse.Status = .ok
    ) -> Response {
        var headers: HTTPFields = [.contentType: contentType]
        if let cacheControl { headers[.cacheControl] = cacheControl }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// An HLS playlist.
    package static func playlist(_ bytes: [UInt8], cacheControl: String) -> Response {
        .bytes(bytes, contentType: "application/vnd.apple.mpegurl", cacheControl: cacheControl)
    }
}
