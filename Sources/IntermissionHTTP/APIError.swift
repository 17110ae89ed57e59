import HLSInterstitials
import Hummingbird
import Logging
import NIOCore

/// An error answered as JSON: `{"error": {"status": 404, "code": "notFound", "message": "..."}}`,
/// with `"field"` too when one input field is at fault.
package struct APIError: HTTPResponseError {
    package var status: HTTPResponse.Status
    package var code: String
    package var message: String
    /// The query parameter, body field or path parameter at fault, if one is.
    package var field: String?
    /// The `Allow` header of a `405`.
    package var allow: String?
    /// Headers the answer carries besides `Content-Type` (`Retry-After` on a `503`, say).
    package var extraHeaders: HTTPFields = [:]

    package init(_ status: HTTPResponse.Status, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    package static func badRequest(_ message: String) -> APIError {
        APIError(.badRequest, code: "invalidInput", message: message)
    }

    /// The JSON body of an error (also written by the channel handler that answers requests the
    /// HTTP decoder refused, so every error has the same form).
    package static func body(
        status: HTTPResponse.Status,
        code: String,
        message: String,
        field: String? = nil
    ) -> ByteBuffer {
        var error: [(String, JSONValue)] = [
            ("status", .number(Double(status.code))), ("code", .string(code)), ("message", .string(message)),
        ]
        if let field { error.append(("field", .string(field))) }
        let body: JSONValue = .object([("error", .object(error))])
        return ByteBuffer(bytes: body.serialized())
    }
    package static func notFound(_ message: String) -> APIError {
        APIError(.notFound, code: "notFound", message: message)
    }

    package var headers: HTTPFields { [.contentType: "application/json"] }

    /// The JSON answer.
    ///
    /// CORS headers are added by ``OpenCORSMiddleware`` (outside the admin API only).
    package func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        headers[.cacheControl] = "no-store"
        if let allow = self.allow { headers[.allow] = allow }
        for field in self.extraHeaders { headers.append(field) }
        return Response(
            status: self.status,
            headers: headers,
            body: .init(
                byteBuffer: Self.body(status: self.status, code: self.code, message: self.message, field: self.field)
            )
        )
    }
}

/// Maps every error thrown below it to a JSON answer (`HTTPError`s and unknown errors included).
///
/// The application's own errors get their answers from ``answer``; the others are `500`s.
package struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The answer to an application's error, or `nil` when it has none (a `500` then).
    package let answer: @Sendable (any Error) -> APIError?

    /// Maps errors with `answer` first (the server's ad-insertion and input-limit errors, say).
    package init(answer: @escaping @Sendable (any Error) -> APIError? = { _ in nil }) {
        self.answer = answer
    }

    package func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as HTTPError {
            throw APIError(
                error.status,
                code: error.status == .notFound ? "notFound" : "http",
                message: error.body ?? error.status.reasonPhrase
            )
        } catch {
            if let answer = self.answer(error) { throw answer }
            context.logger.debug("unexpected error", metadata: ["error": "\(error)"])
            throw APIError(.internalServerError, code: "internal", message: "internal error")
        }
    }
}
