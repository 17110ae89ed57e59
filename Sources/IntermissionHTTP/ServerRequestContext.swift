import Foundation
import Hummingbird
import NIOCore

/// The request context of every route: Hummingbird's basic context, with the body limit and the
/// decoder of the admin API, so that handlers decode bodies with `request.decode(as:context:)`.
package struct ServerRequestContext: RequestContext {
    /// Hummingbird's per-request storage (logger, parameters, endpoint path).
    package var coreContext: CoreRequestContextStorage

    /// Creates the context of a request.
    package init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }

    /// The most a decoded body may weigh: ``HTTPLimits/bodyBytes`` (`413` beyond).
    package var maxUploadSize: Int { HTTPLimits.bodyBytes }

    /// JSON bodies, with the server's answers for a body too large, empty or malformed.
    package var requestDecoder: JSONBodyDecoder { JSONBodyDecoder() }
}

/// A body that may be left out: an empty body decodes as ``whenEmpty``.
package protocol OptionalJSONBody: Decodable {
    /// The value of an empty body.
    static var whenEmpty: Self { get }
}

/// Decodes a JSON body for `request.decode(as:context:)`: at most the context's `maxUploadSize`
/// bytes (`413`, code `tooLarge`, beyond), not empty (`400`; unless the type is an
/// ``OptionalJSONBody``), and well formed with the right types (`400` naming the field at fault).
package struct JSONBodyDecoder: RequestDecoder {
    package func decode<T: Decodable>(
        _ type: T.Type,
        from request: Request,
        context: some RequestContext
    ) async throws -> T {
        let limit = context.maxUploadSize
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, code: "tooLarge", message: "the body is larger than \(limit) bytes")
        }
        if buffer.readableBytes == 0 {
            guard let empty = (T.self as? any OptionalJSONBody.Type)?.whenEmpty as? T else {
                throw APIError.badRequest("the request needs a JSON body")
            }
            return empty
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            var refusal = APIError.badRequest("invalid JSON body: " + DecodingErrorText.describe(error))
            refusal.field = Self.field(of: error)
            throw refusal
        } catch {
            throw APIError.badRequest("invalid JSON body: \(error)")
        }
    }

    /// The body field a decoding error is about (`duration`, `cue[2]`), or `nil` for the whole body.
    package static func field(of error: DecodingError) -> String? {
        let path: [any CodingKey]
        switch error {
        case .keyNotFound(let key, let context): path = context.codingPath + [key]
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            path = context.codingPath
        @unknown default: return nil
        }
        let field = DecodingErrorText.keyPath(path)
        return field.isEmpty ? nil : field
    }
}

/// Decoding errors in words, with the key at fault as a path (`vod[0].breaks[1].duration`): for
/// JSON bodies here, and for the server's configuration file.
package enum DecodingErrorText {
    /// A coding path as a key path: `vod[0].breaks[1].duration`, `cue[1]`; empty for the root.
    package static func keyPath(_ codingPath: [any CodingKey]) -> String {
        let keys = codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return keys.hasPrefix(".") ? String(keys.dropFirst()) : keys
    }

    /// What is wrong, after the key path it is about (`server.port: expected Int`).
    package static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String { Self.keyPath(context.codingPath) }
        switch error {
        case .keyNotFound(let key, let context):
            let at = path(context)
            return "\(at.isEmpty ? "" : at + ": ")missing key '\(key.stringValue)'"
        case .typeMismatch(let type, let context): return "\(path(context)): expected \(type)"
        case .valueNotFound(let type, let context): return "\(path(context)): expected \(type), found nothing"
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
