#if PostgreSQL
import Foundation
import IntermissionPostgres
import Logging
import PostgresNIO
import Testing

/// The PostgreSQL server the tests use: `INTERMISSION_TEST_POSTGRES_URL` names a database on it
/// whose user may create databases (`.ci/run` starts one on loopback).
///
/// Without it the suites that
/// need it are skipped, unless INTERMISSION_REQUIRE_REFEREES=1, where a test fails instead.
public enum TestPostgres {
    /// `INTERMISSION_TEST_POSTGRES_URL`, when set.
    public static let url = ProcessInfo.processInfo.environment["INTERMISSION_TEST_POSTGRES_URL"]
    /// Whether the suites that need the server fail rather than skip without it.
    public static let required = ProcessInfo.processInfo.environment["INTERMISSION_REQUIRE_REFEREES"] == "1"
    /// Whether a test server is named.
    public static var available: Bool { url != nil }

    /// A new, empty database on the test server; returns its URL with `options` appended.
    public static func freshDatabase(options: String = "") async throws -> String {
        let base = try PostgresURL(parsing: try #require(url))
        let name = "intermission_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        var configuration = PostgresConnection.Configuration(
            host: base.host,
            port: base.port,
            username: base.user,
            password: base.password,
            database: base.database,
            tls: .disable
        )
        configuration.options.connectTimeout = .seconds(10)
        let connection = try await PostgresConnection.connect(
            configuration: configuration,
            id: 1,
            logger: Logger(label: "test.postgres")
        )
        do {
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: Logger(label: "t"))
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
        let credentials = base.password.map { "\(base.user):\($0)" } ?? base.user
        // A long request timeout: in the full suite on two cores, the store's first requests have
        // waited more than the default 5 s for a connection.
        let query = "?timeout=120" + (options.isEmpty ? "" : "&" + options)
        return "postgres://\(credentials)@\(base.host):\(base.port)/\(name)\(query)"
    }
}
#endif
