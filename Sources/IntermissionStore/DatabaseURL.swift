/// What the server and every driver know of a database URL before a driver reads it.
package enum DatabaseURL {
    /// Whether `text` names a PostgreSQL database (its scheme, in any case, is `postgres` or
    /// `postgresql`), whether or not this build has the PostgreSQL driver.
    package static func namesPostgres(_ text: String) -> Bool {
        let lower = text.prefix(16).lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    /// A database URL as an error may show it: credentials and options redacted, control
    /// characters as `?`, at most 120 characters.
    package static func shown(_ text: String) -> String {
        let redacted = URLRedaction.redact(String(text.prefix(4096)))
        let printable = redacted.unicodeScalars.prefix(120).map {
            $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0)
        }
        return String(printable) + (redacted.unicodeScalars.count > 120 ? "…" : "")
    }
}
