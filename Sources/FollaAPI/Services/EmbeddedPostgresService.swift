import FollaStore
import Logging
import ServiceLifecycle

/// Keeps the embedded cluster for as long as the server runs: a PostgreSQL that dies (a
/// crash, an OOM kill, an operator's `pg_ctl stop`) is started again, with a log line, and
/// the database monitor brings service back once it answers. On shutdown it stops the
/// cluster. Listed first among the services, so it is the last to stop: after the HTTP
/// server and the connection pool are gone.
public struct EmbeddedPostgresService: Service {
    let postgres: EmbeddedPostgres
    let checkEvery: Duration
    let logger: Logger

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
            throw error
        }
    }
}
