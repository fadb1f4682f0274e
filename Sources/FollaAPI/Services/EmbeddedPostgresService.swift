import FollaStore
import Logging
import ServiceLifecycle

/// Keeps the embedded cluster for as long as the server runs and stops it on shutdown.
/// Listed first among the services, so it is the last to stop: after the HTTP server
/// and the connection pool are gone.
public struct EmbeddedPostgresService: Service {
    let postgres: EmbeddedPostgres
    let logger: Logger

    public init(postgres: EmbeddedPostgres, logger: Logger) {
        self.postgres = postgres
        self.logger = logger
    }

    public func run() async throws {
        try? await gracefulShutdown()
        do {
            try postgres.stop()
        } catch {
            logger.error("stopping the embedded PostgreSQL failed", metadata: ["error": "\(error)"])
            throw error
        }
    }
}
