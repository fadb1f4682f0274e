import Foundation
import PostgresNIO

/// Parses `postgres://user:password@host:port/database?sslmode=disable` (and
/// `?host=/socket/dir` for unix sockets, as libpq does).
public struct PostgresURL: Sendable {
    public let configuration: PostgresClient.Configuration
    public let database: String

    public init(_ text: String) throws {
        guard let url = URLComponents(string: text), let scheme = url.scheme,
              scheme == "postgres" || scheme == "postgresql"
        else { throw PostgresURLError(text: text, reason: "expected postgres://user:password@host:port/database") }
        let user = url.user?.removingPercentEncoding ?? "postgres"
        let password = url.password?.removingPercentEncoding
        let database = String(url.path.drop(while: { $0 == "/" }))
        let name = database.isEmpty ? user : database
        let query = Dictionary(url.queryItems?.map { ($0.name, $0.value ?? "") } ?? [], uniquingKeysWith: { $1 })
        if let socketDir = query["host"], socketDir.hasPrefix("/") {
            let port = url.port ?? 5432
            configuration = PostgresClient.Configuration(
                unixSocketPath: "\(socketDir)/.s.PGSQL.\(port)", username: user, password: password, database: name)
        } else {
            guard let host = url.host, !host.isEmpty else { throw PostgresURLError(text: text, reason: "missing host") }
            // TLS to the database is not wired yet: refuse rather than silently downgrade.
            guard ["disable", "allow", "prefer"].contains(query["sslmode"] ?? "disable") else {
                throw PostgresURLError(text: text, reason: "sslmode=\(query["sslmode"]!) is not supported; use a unix socket or a trusted network")
            }
            let tls: PostgresClient.Configuration.TLS = .disable
            configuration = PostgresClient.Configuration(
                host: host, port: url.port ?? 5432, username: user, password: password, database: name, tls: tls)
        }
        self.database = name
    }
}

public struct PostgresURLError: Error, CustomStringConvertible {
    public let text: String
    public let reason: String
    public var description: String { "invalid database URL: \(reason)" }
}
