import FollaStore
import Foundation
import Logging
import ServiceLifecycle

/// Ends the process when a graceful shutdown has not finished in time: the services were
/// cancelled at the grace, and something still hangs. It kills the embedded cluster at once
/// (SIGKILL: a crash as far as data goes, nothing committed is lost) and exits with status 1.
/// A backstop: a cluster whose `pg_ctl stop` gives up is killed by `EmbeddedPostgresService`
/// first.
///
/// Before (an outside probe, session 21), ServiceLifecycle's own deadline ended such a
/// shutdown with a fatal error (status 132, a backtrace) and left the frozen cluster running,
/// so that the next `folla serve` refused to start beside it.
public struct ShutdownDeadline: Service {
    /// From the shutdown signal to the end of the process.
    let after: Duration
    /// The embedded cluster to end with the process; nil with an external database.
    let postgres: EmbeddedPostgres?
    let logger: Logger

    /// - Parameters:
    ///   - after: from the shutdown signal to the end of the process.
    ///   - postgres: the embedded cluster to end with it; nil with an external database.
    ///   - logger: where the deadline says it struck.
    public init(after: Duration, postgres: EmbeddedPostgres?, logger: Logger) {
        self.after = after
        self.postgres = postgres
        self.logger = logger
    }

    public func run() async throws {
        // Returns when the shutdown begins (or the group is cancelled: an end all the same).
        try? await gracefulShutdown()
        let (after, postgres, logger) = (after, postgres, logger)
        // A thread of its own: the tasks it watches over may be the ones that hang.
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: after / .seconds(1))
            logger.critical("the shutdown did not finish in time; ending the process", metadata: [
                "seconds": "\(after / .seconds(1))", "embedded_postgres_killed": "\(postgres?.runningPID() != nil)",
            ])
            postgres?.killAtOnce()
            exit(1)
        }
    }
}
