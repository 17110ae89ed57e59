import Hummingbird
import NIOCore

/// Adds `Access-Control-Allow-Origin: *` to every answer and answers CORS preflights (`OPTIONS`).
struct OpenCORSMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.method == .options {
            var headers: HTTPFields = [:]
            headers[.accessControlAllowOrigin] = "*"
            headers[.accessControlAllowMethods] = "GET, HEAD, POST, DELETE, OPTIONS"
            headers[.accessControlAllowHeaders] = request.headers[.accessControlRequestHeaders] ?? "Authorization, Content-Type, Range"
            headers[.accessControlMaxAge] = "86400"
            return Response(status: .noContent, headers: headers)
        }
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = "*"
        response.headers[.accessControlExposeHeaders] = "Content-Length, Content-Type"
        return response
    }
}

/// Counts requests and their latency per route (the route pattern, not the path, so label values stay few).
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
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
        self.metrics.request(route: route, method: request.method.rawValue, status: status, duration: ContinuousClock.now - start)
    }
}

/// Requires `Authorization: Bearer {token}`.
struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token = self.token else {
            throw APIError(.forbidden, code: "adminDisabled", message: "the admin API is disabled: set server.adminToken in the configuration")
        }
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
            constantTimeEqual(Array(header.utf8.dropFirst(7)), Array(token.utf8))
        else {
            throw APIError(.unauthorized, code: "unauthorized", message: "missing or wrong bearer token (Authorization: Bearer TOKEN)")
        }
        return try await next(request, context)
    }

    private func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}

extension Response {
    /// A `200` answer with bytes of a content type.
    static func bytes(_ bytes: [UInt8], contentType: String, cacheControl: String? = nil, status: HTTPResponse.Status = .ok) -> Response {
        var headers: HTTPFields = [.contentType: contentType]
        if let cacheControl { headers[.cacheControl] = cacheControl }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// An HLS playlist.
    static func playlist(_ bytes: [UInt8], cacheControl: String) -> Response {
        .bytes(bytes, contentType: "application/vnd.apple.mpegurl", cacheControl: cacheControl)
    }
}
