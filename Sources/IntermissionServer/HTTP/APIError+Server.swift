import AdInsertion
import Hummingbird
import IntermissionHTTP

extension APIError {
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

    /// A `400` for a value outside its documented range, naming the field.
    init(_ error: InputLimitError) {
        self.init(.badRequest, code: "invalidInput", message: error.description)
        self.field = error.field
    }

    /// The answer to one of the server's own errors (an ad-insertion error, a value outside its
    /// range), or `nil` for any other: what the server's `JSONErrorMiddleware` asks first.
    static func server(_ error: any Error) -> APIError? {
        switch error {
        case let error as AdInsertionError: APIError(error)
        case let error as InputLimitError: APIError(error)
        default: nil
        }
    }
}
