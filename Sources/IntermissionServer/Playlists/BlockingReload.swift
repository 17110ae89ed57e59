import Hummingbird

/// The query of a blocking playlist reload (RFC 8216bis §6.2.5.2): `_HLS_msn`, and `_HLS_part`
/// with it.
enum BlockingReload {
    /// The media sequence number a request waits for, or `nil` when it is not a blocking reload.
    ///
    /// - Throws: `400` naming the field for a value that is not a decimal integer from 0 to
    ///   `Int64.max` (at most 19 digits), or for `_HLS_part` without `_HLS_msn`.
    static func sequence(_ request: Request) throws(InputLimitError) -> Int? {
        let query = request.uri.queryParameters
        let part = query["_HLS_part"].map(String.init)
        if let part { _ = try Self.number(part, field: "_HLS_part") }
        guard let text = query["_HLS_msn"].map(String.init) else {
            if part != nil {
                throw InputLimitError(field: "_HLS_part", message: "is only allowed with _HLS_msn")
            }
            return nil
        }
        return try Self.number(text, field: "_HLS_msn")
    }

    /// A decimal integer from 0 to `Int64.max`: digits only, 1 to 19 of them.
    static func number(_ text: String, field: String) throws(InputLimitError) -> Int {
        guard (1...19).contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let value = Int(text)
        else {
            throw InputLimitError(
                field: field,
                message: "must be a decimal integer from 0 to \(Int64.max), got \(InputLimits.quoted(text))"
            )
        }
        return value
    }
}
