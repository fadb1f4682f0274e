import Foundation
import Logging
import PostgresNIO

/// The embedded default in one call: start (or reuse) the cluster, make sure the
/// application database exists with PostGIS, apply the migrations.
public enum EmbeddedDatabase {
    public static let databaseName = "folla"

    /// Starts `postgres` and prepares `database`; returns where to connect.
    public static func bootstrap(
        _ postgres: EmbeddedPostgres, database: String = databaseName, migrator: Migrator, logger: Logger
    ) async throws -> DatabaseLocation {
        try await postgres.start()
        do {
            let admin = DatabaseLocation.socket(path: postgres.socketPath, user: EmbeddedPostgres.superuser, database: "postgres")
            try await createDatabaseIfMissing(database, at: admin, logger: logger)
            let location = DatabaseLocation.socket(path: postgres.socketPath, user: EmbeddedPostgres.superuser, database: database)
            try await PostgresClient.with(try location.configuration(), logger: logger) { client in
                try await migrator.migrate(client, logger: logger)
            }
            return location
        } catch {
            try? await postgres.stop()
            throw error
        }
    }

    /// `CREATE DATABASE` unless it exists (optionally as a copy of a template database).
    public static func createDatabaseIfMissing(
        _ name: String, template: String? = nil, at admin: DatabaseLocation, logger: Logger
    ) async throws {
        try await PostgresClient.with(try admin.configuration(), logger: logger) { client in
            let exists = try await client.query("SELECT count(*) FROM pg_database WHERE datname = \(name)", logger: logger)
                .collect().first?.decode(Int.self) ?? 0
            guard exists == 0 else { return }
            var sql = "CREATE DATABASE \(quoteIdentifier(name))"
            if let template { sql += " TEMPLATE \(quoteIdentifier(template))" }
            do {
                _ = try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42P04" {
                return  // created concurrently by someone else: fine
            }
        }
    }

    static func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
