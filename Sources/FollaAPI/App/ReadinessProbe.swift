import FollaStore
import Logging
import PostgresNIO

/// Ready means: the database answers, has PostGIS, and has every migration this build
/// expects. A load balancer sends no traffic until then. The answer never waits more than
/// `deadline`: while the monitor knows the database is down it is immediate.
public struct ReadinessProbe: Sendable {
    let pool: DatabasePool
    let migrator: Migrator
    let monitor: DatabaseMonitor
    let deadline: Duration
    let logger: Logger

    public init(pool: DatabasePool, migrator: Migrator, monitor: DatabaseMonitor,
                deadline: Duration = .milliseconds(900), logger: Logger) {
        self.pool = pool
        self.migrator = migrator
        self.monitor = monitor
        self.deadline = deadline
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
            return try await monitor.whileAvailable(deadline: deadline) {
                let row = try await pool.client.query(
                    "SELECT current_setting('server_version'), postgis_lib_version()", logger: logger
                ).collect()
                let (pg, gis) = try row[0].decode((String, String).self)
                let pending = try await migrator.pending(pool.client, logger: logger)
                return Status(ready: pending.isEmpty, postgres: pg, postgis: gis, pendingMigrations: pending,
                              error: pending.isEmpty ? nil : "migrations not applied")
            }
        } catch let error as DatabaseUnavailable {
            return Status(ready: false, pendingMigrations: [], error: "database: \(error.reason)")
        } catch let error as PSQLError {
            return Status(ready: false, pendingMigrations: [], error: "database: \(error.serverInfo == nil ? "unreachable" : error.serverSummary)")
        } catch {
            return Status(ready: false, pendingMigrations: [], error: "\(error)")
        }
    }
}
