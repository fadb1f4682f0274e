import FollaAPI
import FollaStore
import Logging
import ServiceLifecycle

extension DatabaseOptions {
    /// Where groups, walls and tiles read: the replica of `--read-database-url` (with its
    /// own pool and monitor, returned as services to run) falling back to `primary`; or
    /// `primary` alone.
    /// - Parameters:
    ///   - primary: the primary's pool.
    ///   - connections: the replica pool's size (as the primary's).
    ///   - maxLag: past this lag the replica serves no reads (`--replica-max-lag`).
    func readDatabase(primary: DatabasePool, connections: Int, maxLag: Duration, logger: Logger) throws -> (ReadDatabase, [any Service]) {
        guard let url = resolvedReadDatabaseURL else { return (ReadDatabase(primary: primary), []) }
        var config = try DatabaseLocation.url(url).configuration()
        config.options.maximumConnections = connections
        config.options.minimumConnections = max(1, connections / 2)
        config.options.connectTimeout = .seconds(2)
        var logger = logger
        logger[metadataKey: "database"] = "replica"
        let pool = DatabasePool(configuration: config, logger: logger)
        var watch = DatabaseMonitor.Settings()
        watch.takesWrites = false
        let monitor = DatabaseMonitor(client: config, settings: watch, logger: logger, recovered: pool.renew)
        let reads = ReadDatabase(primary: primary, replica: pool, monitor: monitor, maxLag: maxLag, logger: logger)
        return (reads, [pool, monitor, ReplicaLagWatch(reads: reads)])
    }
}
