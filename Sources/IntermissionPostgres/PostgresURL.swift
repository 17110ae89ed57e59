import IntermissionStore
import PostgresNIO

/// A PostgreSQL database URL, checked: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?OPTIONS]`.
///
/// The URL comes from the command line or the configuration file, so every part has a checked
/// range: the scheme is `postgres` or `postgresql`; no control character (NUL included) anywhere,
/// raw or percent-encoded; a user, a host and a database name are required; the port is 1 through
/// 65535 (5432 when absent), read from at most five digits so that no number can overflow.
///
/// Options (`&`-separated):
/// - `pool=N`: the most connections the store opens (1 through 1000, default 20).
/// - `reread=SECONDS`: how often the live breaks' revisions are re-read, the fallback when a
///   `NOTIFY` is missed (0.1 through 3600, default 1; keep it under the channels' target duration).
/// - `listen=on|off`: whether to `LISTEN` for other instances' break changes (default `on`; `off`
///   leaves only the periodic re-read).
/// - `timeout=SECONDS`: how long one request may take, waiting for a connection included, before
///   it fails with a storage error (1 through 600, default 5).
/// - `journal=PATH`: a local file where decisions and beacons are kept while the database cannot
///   be reached, written to the database when it is back (`DecisionJournal`); percent-encoded,
///   1 to 4096 bytes. Each instance needs a file of its own (it is locked). Default: none.
/// - `groups=relay|local`: whether the coordinated-playback groups (`/v1/groups/{id}`) are shared
///   by the instances on this database (`relay`, the default: a participant may be connected to
///   any instance; see `GroupRelay`) or kept by each instance alone (`local`).
/// - `sslmode=disable`: the only mode; the store speaks plain TCP (loopback or a private network).
package struct PostgresURL: Sendable, Equatable {
    /// The user name to log in as.
    package var user: String
    /// The password, when the URL carries one.
    package var password: String?
    /// The host name or address (brackets removed from an IPv6 literal).
    package var host: String
    /// The TCP port.
    package var port: Int
    /// The database name.
    package var database: String
    /// The most connections in the pool.
    package var poolSize = 20
    /// The period of the revisions' re-read.
    package var reread: Duration = .seconds(1)
    /// Whether to listen for break changes.
    package var listen = true
    /// Whether group hubs are relayed between instances (`groups=relay`).
    package var relaysGroups = true
    /// How long one request may take before it fails.
    package var timeout: Duration = .seconds(5)
    /// The local journal's file, when decisions and beacons are to be kept while the database is
    /// unreachable.
    package var journal: String?

    /// A single connection's settings for this database (plain TCP, as `sslmode=disable` says).
    package var connectionConfiguration: PostgresConnection.Configuration {
        PostgresConnection.Configuration(
            host: self.host,
            port: self.port,
            username: self.user,
            password: self.password,
            database: self.database,
            tls: .disable
        )
    }

    /// Whether `text` names a PostgreSQL database (see `DatabaseURL.namesPostgres(_:)`).
    package static func names(_ text: String) -> Bool {
        DatabaseURL.namesPostgres(text)
    }

    /// A database URL as an error may show it (see `DatabaseURL.shown(_:)`).
    package static func shown(_ text: String) -> String {
        DatabaseURL.shown(text)
    }

    /// Parses and checks `text`.
    ///
    /// - Throws: `ConfigurationError` saying which part is wrong (the password never appears).
    package init(parsing text: String) throws {
        func failure(_ reason: String) -> ConfigurationError {
            ConfigurationError(key: "database", message: "database URL '\(Self.shown(text))': \(reason)")
        }
        guard text.utf8.count <= 4096 else { throw failure("longer than 4096 bytes") }
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw failure("contains a control character (NUL, newline, ...)")
        }
        let lower = text.lowercased()
        let schemeLength: Int
        if lower.hasPrefix("postgres://") {
            schemeLength = "postgres://".count
        } else if lower.hasPrefix("postgresql://") {
            schemeLength = "postgresql://".count
        } else {
            throw failure("the scheme must be postgres:// or postgresql://")
        }
        var rest = Substring(text.dropFirst(schemeLength))
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        guard !rest.contains("#") else { throw failure("a fragment (#) has no meaning here") }
        guard let slash = rest.firstIndex(of: "/") else { throw failure("names no database (…/DATABASE)") }
        let authority = rest[..<slash]
        let databaseText = rest[rest.index(after: slash)...]
        guard let at = authority.lastIndex(of: "@") else { throw failure("names no user (USER@HOST)") }
        let userInfo = authority[..<at]
        let hostPort = authority[authority.index(after: at)...]
        if let colon = userInfo.firstIndex(of: ":") {
            self.user = try Self.decode(userInfo[..<colon], part: "user", failure)
            self.password = try Self.decode(userInfo[userInfo.index(after: colon)...], part: "password", failure)
        } else {
            self.user = try Self.decode(userInfo, part: "user", failure)
            self.password = nil
        }
        guard !self.user.isEmpty else { throw failure("names no user (USER@HOST)") }
        let address = try Self.hostAndPort(hostPort, failure)
        self.host = address.host
        self.port = address.port
        self.database = try Self.decode(databaseText, part: "database name", failure)
        guard !self.database.isEmpty, !self.database.contains("/") else {
            throw failure("the path must be one database name (…/DATABASE)")
        }
        guard self.database.utf8.count <= 63, self.user.utf8.count <= 63 else {
            throw failure("user and database names are at most 63 bytes")
        }
        for option in query.split(separator: "&", omittingEmptySubsequences: true) {
            try self.apply(option, failure)
        }
    }

    /// The host (an IPv6 literal in brackets) and the port (1 through 65535, 5432 when absent).
    private static func hostAndPort(
        _ text: Substring,
        _ failure: (String) -> ConfigurationError
    ) throws -> (host: String, port: Int) {
        var host = text
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw failure("an IPv6 host lacks its ']'") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw failure("unexpected text after the IPv6 host") }
                portText = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty else { throw failure("names no host") }
        guard host.utf8.count <= 253,
            host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._:".contains($0)) })
        else { throw failure("the host must be a name or an address (letters, digits, '-', '.', ':')") }
        guard let portText else { return (String(host), 5432) }
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
            let port = Int(portText), (1...65_535).contains(port)
        else { throw failure("the port must be a number from 1 to 65535") }
        return (String(host), port)
    }

    /// Applies one `name=value` option.
    private mutating func apply(_ option: Substring, _ failure: (String) -> ConfigurationError) throws {
        let parts = option.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let name = parts[0]
        let value = parts.count > 1 ? parts[1] : ""
        switch name {
        case "pool":
            guard value.count <= 4, let size = Int(value), (1...1000).contains(size) else {
                throw failure("pool must be a number of connections from 1 to 1000")
            }
            self.poolSize = size
        case "reread":
            guard value.count <= 12, let seconds = Double(value), seconds.isFinite, (0.1...3600).contains(seconds)
            else {
                throw failure("reread must be a number of seconds from 0.1 to 3600")
            }
            self.reread = .milliseconds(Int64((seconds * 1000).rounded()))
        case "timeout":
            guard value.count <= 12, let seconds = Double(value), seconds.isFinite, (1...600).contains(seconds)
            else {
                throw failure("timeout must be a number of seconds from 1 to 600")
            }
            self.timeout = .milliseconds(Int64((seconds * 1000).rounded()))
        case "listen":
            guard value == "on" || value == "off" else { throw failure("listen must be on or off") }
            self.listen = value == "on"
        case "groups":
            guard value == "relay" || value == "local" else { throw failure("groups must be relay or local") }
            self.relaysGroups = value == "relay"
        case "journal":
            let path = try Self.decode(value, part: "journal path", failure)
            guard !path.isEmpty, path.utf8.count <= 4096 else {
                throw failure("journal must be a file path of 1 to 4096 bytes")
            }
            self.journal = path
        case "sslmode":
            guard value == "disable" else {
                throw failure(
                    "sslmode=\(value.prefix(16)) is not supported; the store speaks plain TCP (sslmode=disable)"
                )
            }
        default:
            throw failure("unknown option '\(name.prefix(32))' (pool, reread, listen, timeout, journal, sslmode)")
        }
    }

    /// Percent-decodes one part, refusing bad escapes and decoded control characters.
    private static func decode(
        _ text: Substring,
        part: String,
        _ failure: (String) -> ConfigurationError
    ) throws -> String {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue)
            else { throw failure("the \(part) has a bad percent escape") }
            let decoded = high << 4 | low
            guard decoded >= 0x20, decoded != 0x7F else {
                throw failure("the \(part) contains an encoded control character (NUL, newline, ...)")
            }
            bytes.append(decoded)
        }
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw failure("the \(part) is not UTF-8 once decoded")
        }
        return string
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
