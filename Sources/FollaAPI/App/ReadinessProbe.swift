import FollaCore
import FollaStore
import Logging
import PostgresNIO

/// Ready means: the database answers, has PostGIS, and has every migration this build
/// expects. A load balancer sends no traffic until then. While the monitor knows the
/// database is down the answer is an immediate 503, and a check under way when it goes down
/// is released at once; `deadline` is only a backstop, long enough that a busy server is
/// not reported unready (a balancer would then take every busy instance out at once).
/// A read replica is reported (state and lag) but never makes the server unready: reads
/// fall back to the primary without it.
public struct ReadinessProbe: Sendable {
    let pool: DatabasePool
    let reads: ReadDatabase
    let migrator: Migrator
    let monitor: DatabaseMonitor
    let deadline: Duration
    let logger: Logger

    public init(pool: DatabasePool, reads: ReadDatabase, migrator: Migrator, monitor: DatabaseMonitor,
                deadline: Duration = .seconds(5), logger: Logger) {
        self.pool = pool
        self.reads = reads
        self.migrator = migrator
        self.monitor = monitor
        self.deadline = deadline
        self.logger = logger
    }

    /// The `/readyz` answer; the versions and `error` are left out when unknown or none.
    public struct Status: Sendable, Encodable {
        public var ready: Bool
        public var postgres: String?
        public var postgis: String?
        public var pendingMigrations: [String]
        public var error: String?
        /// The read replica; absent when none is configured.
        public var replica: ReplicaStatus?

        enum CodingKeys: String, CodingKey {
            case ready, postgres, postgis, error, replica
            case pendingMigrations = "pending_migrations"
        }
    }

    public func check() async -> Status {
        var status = await primaryStatus()
        // The lag is measured against the primary: without it, the replica's state is unknown.
        if reads.hasReplica {
            status.replica = monitor.isAvailable ? reads.replicaStatus() : ReplicaStatus(state: "unknown", error: "the primary is unavailable")
        }
        return status
    }

    /// Within `deadline` (and a little): the check runs in a task that is not waited for past
    /// it. A query on a database frozen mid-way (SIGSTOP) ignores cancellation, and the
    /// monitor's race waits for its body to end: a frozen database held `/readyz` for as long
    /// as it was frozen (90 s in an outside test).
    private func primaryStatus() async -> Status {
        let deadline = self.deadline
        return (try? await FirstResult<Status>().race({ await self.checkPrimary() }, against: [{
            try await Task.sleep(for: deadline + .milliseconds(250))
            return Status(ready: false, pendingMigrations: [], error: "database: did not answer within \(deadline)")
        }])) ?? Status(ready: false, pendingMigrations: [], error: "readiness check failed")
    }

    private func checkPrimary() async -> Status {
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
