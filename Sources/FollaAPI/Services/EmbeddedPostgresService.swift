import FollaStore
import Logging
import ServiceLifecycle
import Synchronization

/// Keeps the embedded cluster for as long as the server runs: a PostgreSQL that dies (a
/// crash, an OOM kill, an operator's `pg_ctl stop`) is started again, with a log line, and
/// the database monitor brings service back once it answers. On shutdown it stops the
/// cluster. Listed first among the services, so it is the last to stop: after the HTTP
/// server and the connection pool are gone.
public struct EmbeddedPostgresService: Service {
    let postgres: EmbeddedPostgres
    let checkEvery: Duration
    let logger: Logger
    private let failedStop = FailedStop()

    /// Why a stop failed (`pg_ctl stop` gave up and the cluster was killed), or nil. Read it
    /// once the service group has returned, and end with a failure if set.
    ///
    /// Why not rely on the error `run()` throws: after a shutdown's grace, ServiceLifecycle
    /// (2.13) can finish the group without collecting it. When two other services end on the
    /// cancellation while the group waits on this one, its shutdown loop moves past this
    /// service, and the group returns without error once this one finishes. A frozen cluster
    /// then ended the process with status 0 (seen in CI, session 38).
    public var stopFailure: (any Error)? { failedStop.error.withLock { $0 } }

    private final class FailedStop: Sendable {
        let error = Mutex<(any Error)?>(nil)
    }

    public init(postgres: EmbeddedPostgres, checkEvery: Duration = .milliseconds(500), logger: Logger) {
        self.postgres = postgres
        self.checkEvery = checkEvery
        self.logger = logger
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: checkEvery) }
            guard !Task.isShuttingDownGracefully, !Task.isCancelled, postgres.runningPID() == nil else { continue }
            logger.error("the embedded PostgreSQL is not running; restarting it", metadata: ["dir": .string(postgres.dataDirectory)])
            do {
                // Crash recovery included; on a thread of its own (the async overload).
                try await postgres.start()
                logger.notice("the embedded PostgreSQL was restarted")
            } catch {
                // Backends of a killed server can hold its shared memory for a moment: try again.
                logger.error("restarting the embedded PostgreSQL failed; will retry", metadata: ["error": "\(error)"])
            }
        }
        do {
            try await postgres.stop()
        } catch {
            // `pg_ctl stop` gave up (a frozen or hung cluster): end it rather than leave it
            // running, which would keep the next start from running beside it.
            logger.error("stopping the embedded PostgreSQL failed; killing it", metadata: ["error": "\(error)"])
            postgres.killAtOnce()
            failedStop.error.withLock { $0 = error }
            throw error
        }
    }
}
