import AdInsertion
import HLSInterstitials
import Hummingbird
import Logging
import NIOCore

/// An error answered as JSON: `{"error": {"status": 404, "code": "notFound", "message": "..."}}`.
struct APIError: HTTPResponseError {
    var status: HTTPResponse.Status
    var code: String
    var message: String
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

    static func badRequest(_ message: String) -> APIError { APIError(.badRequest, code: "invalidInput", message: message) }
    static func notFound(_ message: String) -> APIError { APIError(.notFound, code: "notFound", message: message) }

    var headers: HTTPFields { [.contentType: "application/json"] }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body: JSONValue = [
            "error": ["status": .number(Double(self.status.code)), "code": .string(self.code), "message": .string(self.message)]
        ]
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        headers[.accessControlAllowOrigin] = "*"
        for field in self.extraHeaders { headers.append(field) }
        return Response(status: self.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body.serialized())))
    }
}

/// Maps every error thrown below it to a JSON answer (`HTTPError`s and unknown errors included).
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as AdInsertionError {
            throw APIError(error)
        } catch let error as HTTPError {
            throw APIError(error.status, code: error.status == .notFound ? "notFound" : "http", message: error.body ?? error.status.reasonPhrase)
        } catch {
            context.logger.debug("unexpected error", metadata: ["error": "\(error)"])
            throw APIError(.internalServerError, code: "internal", message: "internal error")
        }
    }
}
