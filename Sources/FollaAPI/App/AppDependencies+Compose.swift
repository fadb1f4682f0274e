import FollaCore
import FollaServices
import FollaStore
import Logging

extension AppDependencies {
    /// The composition root: every store and service of a server, built here and nowhere
    /// else, from one pool and the operator's settings.
    ///
    /// - Parameters:
    ///   - pool: the database connections every store shares (the primary).
    ///   - reads: where groups, walls and tiles read (a replica, falling back to `pool`); nil: `pool`.
    ///   - keyer: turns device ids into keyed hashes (the server secret).
    ///   - database: the monitor whose state gates every database route (503 while down).
    ///   - migrator: what readiness compares the schema with.
    ///   - clock: the time every rule reads (a manual one in tests).
    ///   - settings: the operator's choices.
    ///   - metrics: the registry behind `/metrics`; nil serves none. Must exist before the
    ///     services, which make their counters when they are built.
    ///   - logger: the stores' logger.
    public static func compose(pool: DatabasePool, reads: ReadDatabase? = nil, keyer: DeviceKeyer, database: DatabaseMonitor, migrator: Migrator,
                               clock: any WallClock, settings: AppSettings, metrics: ServerMetrics?, logger: Logger) -> AppDependencies {
        let presence = PresenceStore(pool: pool, keyer: keyer, policy: settings.checkIn, writers: settings.checkInWriters,
                                     batch: settings.checkInBatch, linger: settings.checkInLinger, logger: logger)
        let reads = reads ?? ReadDatabase(primary: pool)
        let places = PlaceReads(reads: reads, logger: logger)
        let messages = MessageStore(pool: pool, keyer: keyer, presenceTTL: settings.checkIn.presenceTTL, logger: logger)
        let wallReads = WallReads(reads: reads, logger: logger)
        let privacy = settings.privacy
        let rates = DeviceRates(pool: pool, keyer: keyer, logger: logger)
        let checkIns = CheckInService(
            presence: presence, messages: messages, places: places, privacy: privacy, messagePolicy: settings.messagePolicy,
            messageLimiter: RateLimiter(store: rates, kind: .messages, limit: settings.messagesPerDevice),
            reportLimiter: RateLimiter(store: rates, kind: .reports, limit: settings.reportsPerDevice), budgets: settings.budgets, clock: clock)
        let wallCache = max(0, settings.wallCacheSeconds)
        return AppDependencies(
            presence: presence, places: places, privacy: privacy, messages: messages, messagePolicy: settings.messagePolicy,
            checkIns: checkIns,
            groups: GroupService(places: places, messages: messages, privacy: privacy, clock: clock, cachePeriod: settings.groupsCache,
                                 database: database),
            map: MapService(places: places, encoder: TileEncoder(reads: reads, logger: logger), privacy: privacy,
                            period: settings.groupsCache, database: database),
            mapMaxAge: max(1, Int((settings.groupsCache / .seconds(1)).rounded(.up))),
            walls: WallService(reads: wallReads, privacy: privacy, clock: clock, cachePeriod: .seconds(wallCache)),
            adminToken: settings.adminToken, venues: VenueStore(pool: pool, logger: logger), wallReads: wallReads,
            wallCacheSeconds: wallCache, wallStreamDuration: settings.wallStreamDuration,
            wallStreamInterval: settings.wallStreamInterval,
            streams: StreamSlots(perNetwork: settings.maxStreamsPerNetwork, total: settings.maxStreams), wallChanges: WallChanges(), database: database, reads: reads,
            readiness: ReadinessProbe(pool: pool, reads: reads, migrator: migrator, monitor: database,
                                      deadline: settings.readinessDeadline, logger: logger),
            idempotency: IdempotencyStore(pool: pool, logger: logger), clock: clock, limits: settings.limits,
            cors: settings.cors, metrics: metrics, logClientAddress: settings.logClientAddress)
    }
}
