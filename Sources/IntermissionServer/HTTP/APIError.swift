import AdInsertion
import HLSInterstitials
import Hummingbird
import Logging
import NIOCore

/// An error answered as JSON: `{"error": {"status": 404, "code": "notFound", "message": "..."}}`,
/// with `"field"` too when one input field is at fault.
struct APIError: HTTPResponseError {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    /// The query parameter, body field or path parameter at fault, if one is.
    var field: String?
    /// The `Allow` header of a `405`.
    var allow: String?
    /// Headers the answer carries besides `Content-Type` (`Retry-After` on a `503`, say).
    var extraHeaders: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// The HTTP form of an ad-insertion error.
    init(_ error: AdInsertionError) {
        let status: HTTPResponse.Status
        switch error.code {
        case .notFound: status = .notFound
        case .invalidInput: status = .badRequest
        case .upstream: status = .badGateway
        case .conflict: status = .conflict
        default: status = .internalServerError
        }
        self.init(status, code: error.code.description, message: error.message)
    }

    static func badRequest(_ message: String) -> APIError {
        APIError(.badRequest, code: "invalidInput", message: message)
    }

    /// A `400` for a value outside its documented range, naming the field.
    init(_ error: InputLimitError) {
        self.init(.badRequest, code: "invalidInput", message: error.description)
        self.field = error.field
    }

    /// The JSON body of an error (also written by the channel handler that answers requests the
    /// HTTP decoder refused, so every error has the same form).
    static func body(status: HTTPResponse.Status, code: String, message: String, field: String? = nil) -> ByteBuffer {
        var error: [(String, JSONValue)] = [
            ("status", .number(Double(status.code))), ("code", .string(code)), ("message", .string(message)),
        ]
        if let field { error.append(("field", .string(field))) }
        let body: JSONValue = .object([("error", .object(error))])
        return ByteBuffer(bytes: body.serialized())
    }
    static func notFound(_ message: String) -> APIError { APIError(.notFound, code: "notFound", message: message) }

    var headers: HTTPFields { [.contentType: "application/json"] }

    /// The JSON answer.
    ///
    /// CORS headers are added by ``OpenCORSMiddleware`` (outside the admin API only).
    func response(from request: Request, context: some RequestContext) throws -> Response {
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
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as AdInsertionError {
            throw APIError(error)
        } catch let error as InputLimitError {
            throw APIError(error)
        } catch let error as HTTPError {
            throw APIError(
                error.status,
                code: error.status == .notFound ? "notFound" : "http",
                message: error.body ?? error.status.reasonPhrase
            )
        } catch {
            context.logger.debug("unexpected error", metadata: ["error": "\(error)"])
            throw APIError(.internalServerError, code: "internal", message: "internal error")
        }
    }
}
