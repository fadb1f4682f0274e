import FollaStore
import Logging
import PostgresNIO

/// Ready means: the database answers, has PostGIS, and has every migration this build
/// expects. A load balancer sends no traffic until then.
public struct ReadinessProbe: Sendable {
    let client: PostgresClient
    let migrator: Migrator
    let logger: Logger

    public init(client: PostgresClient, migrator: Migrator, logger: Logger) {
        self.client = client
        self.migrator = migrator
        self.logger = logger
    }

    public struct Status: Sendable, Encodable {
        public var ready: Bool
        public var postgres: String?
        public var postgis: String?
        public var pendingMigrations: [String]
        public var error: String?
    }

    public func check() async -> Status {
        do {
            let row = try await client.query(
                "SELECT current_setting('server_version'), postgis_lib_version()", logger: logger
            ).collect()
            let (pg, gis) = try row[0].decode((String, String).self)
            let pending = try await migrator.pending(client, logger: logger)
            return Status(ready: pending.isEmpty, postgres: pg, postgis: gis, pendingMigrations: pending,
                          error: pending.isEmpty ? nil : "migrations not applied")
        } catch let error as PSQLError {
            return Status(ready: false, pendingMigrations: [], error: "database: \(error.serverInfo == nil ? "unreachable" : error.serverSummary)")
        } catch {
            return Status(ready: false, pendingMigrations: [], error: "\(error)")
        }
    }
}
