import ArgumentParser
import FollaAPI
import FollaCore
import FollaServices
import FollaStore
import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle

/// `folla serve`: the HTTP server, on the embedded PostGIS unless told otherwise.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the HTTP server.")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Address to bind (default 127.0.0.1). Env: FOLLA_HOST")
    var host: String?

    @Option(parsing: .unconditional, help: "Port to listen on (default 8080). Env: FOLLA_PORT")
    var port: Int?

    @Option(parsing: .unconditional, help: "Join radius in metres (default 10). Env: FOLLA_JOIN_RADIUS")
    var joinRadius: Double?

    @Option(parsing: .unconditional, help: "Presence TTL in seconds (default 1200). Env: FOLLA_PRESENCE_TTL")
    var presenceTTL: Double?

    @Option(parsing: .unconditional, help: "Refuse pings implying more than this speed, m/s (default 350). Env: FOLLA_MAX_SPEED")
    var maxSpeed: Double?

    @Option(parsing: .unconditional, help: "Erase devices silent for this many seconds (default 604800, a week). Env: FOLLA_RETENTION")
    var retention: Double?

    @Option(parsing: .unconditional, help: "Delete messages older than this many seconds (default 86400, a day). Env: FOLLA_MESSAGE_RETENTION")
    var messageRetention: Double?

    @Option(parsing: .unconditional, help: "A device counts toward groups, stats and reports once seen for this many seconds (default 300). Env: FOLLA_ESTABLISH_AFTER")
    var establishAfter: Double?

    @Option(parsing: .unconditional, help: "… and on at least this many accepted pings (default 3). Env: FOLLA_ESTABLISH_PINGS")
    var establishPings: Int?

    @Option(parsing: .unconditional, help: "New device ids one client network (IPv4 /24, IPv6 /48) may create per 10 minutes (default 30; 0 = unlimited). Env: FOLLA_NEW_DEVICES_PER_NETWORK")
    var newDevicesPerNetwork: Int?

    @Option(parsing: .unconditional, help: "Seconds between expiry sweeps (default 5). Env: FOLLA_SWEEP_INTERVAL")
    var sweepInterval: Double?

    @Option(parsing: .unconditional, help: "Seconds a SIGTERM/SIGINT waits for requests in flight before they are cut off (default 10). An embedded PostgreSQL then gets up to 20 s to stop before it is killed (nothing committed is lost). Env: FOLLA_SHUTDOWN_GRACE")
    var shutdownGrace: Double?

    @Option(parsing: .unconditional, help: "k: groups with fewer established people show only as a count in their ~100 m cell (default 3; 1 = the original, unsafe). Env: FOLLA_MIN_GROUP_SIZE")
    var minGroupSize: Int?

    @Option(help: "Bearer token for the admin API (venues, moderation); unset disables it. Env: FOLLA_ADMIN_TOKEN")
    var adminToken: String?

    @Option(parsing: .unconditional, help: "Distinct device reports that hide a message (default 3). Env: FOLLA_REPORT_THRESHOLD")
    var reportThreshold: Int?

    @Option(help: "Comma-separated words refused in messages. Env: FOLLA_BLOCKED_WORDS")
    var blockedWords: String?

    @Option(parsing: .unconditional, help: "Messages a device may post per 10 minutes (default 5). Env: FOLLA_MESSAGE_RATE")
    var messageRate: Int?

    @Option(parsing: .unconditional, help: "Seconds walls are cached in process and by screens (default 2). Env: FOLLA_WALL_CACHE_SECONDS")
    var wallCacheSeconds: Int?

    @Option(parsing: .unconditional, help: "Longest life of one wall event stream, in seconds: screens reconnect with Last-Event-ID and miss nothing (default 300). Env: FOLLA_WALL_STREAM_SECONDS")
    var wallStreamSeconds: Int?

    @Option(parsing: .unconditional, help: "Wall event streams one client network (a /24, or an IPv6 /48) may hold open at once; past it a stream is refused with 429 (default 32; 0 = no share, as behind a proxy, where every client is the proxy's address). Env: FOLLA_MAX_STREAMS_PER_NETWORK")
    var maxStreamsPerNetwork: Int?

    @Option(parsing: .unconditional, help: "Wall event streams the server holds open at once; past it a stream is refused with 503 (default: half of --max-connections). Env: FOLLA_MAX_STREAMS")
    var maxStreams: Int?

    @Option(parsing: .unconditional, help: "Milliseconds the message feed waits after a visible message change for more, to fold them into one drop of the cached walls and one push to the wall streams (default 50). Env: FOLLA_WALL_PUSH_COALESCE_MS")
    var wallPushCoalesceMs: Int?

    @Option(parsing: .unconditional, help: "Milliseconds a groups answer may lag behind the database: groups come from an in-process read model of the live places, refreshed from the database's change cursor (default 1000; 0 = a database read per query). Env: FOLLA_GROUPS_CACHE_MS")
    var groupsCacheMs: Int?

    @Option(parsing: .unconditional, help: "Milliseconds every check-in, check-out, place read by id, report, wall and wall-stream pass takes at least, so that its timing says nothing of the people around or of messages elsewhere (default 20; 0 = none; not at --min-group-size 1). Env: FOLLA_ANSWER_FLOOR_MS")
    var answerFloorMs: Int?

    @Option(parsing: .unconditional, help: "Seconds a replica of --read-database-url may fall behind the primary and still serve reads (default 2). Env: FOLLA_REPLICA_MAX_LAG")
    var replicaMaxLag: Double?

    @Option(parsing: .unconditional, help: "Database connections in the pool (default 20). Env: FOLLA_DB_CONNECTIONS")
    var dbConnections: Int?

    @Option(parsing: .unconditional, help: "Check-in batches in flight at once, by area (default 2). Env: FOLLA_CHECKIN_WRITERS")
    var checkinWriters: Int?

    @Option(parsing: .unconditional, help: "The most check-ins committed in one batch (default 32; 1 = one transaction each). Env: FOLLA_CHECKIN_BATCH")
    var checkinBatch: Int?

    @Option(parsing: .unconditional, help: "Milliseconds an idle check-in writer waits for more check-ins to commit with the first (default: a quarter of --answer-floor-ms, which check-in answers wait for anyway; 0 at --min-group-size 1; 0 = at once). Env: FOLLA_CHECKIN_LINGER_MS")
    var checkinLingerMs: Int?

    @Option(parsing: .unconditional, help: "Seconds an Idempotency-Key and its answer are kept (default 86400, a day). Env: FOLLA_IDEMPOTENCY_RETENTION")
    var idempotencyRetention: Double?

    @Option(parsing: .unconditional, help: "Seconds a client may take to send a request head (default 10). Env: FOLLA_HEAD_TIMEOUT")
    var headTimeout: Double?

    @Option(parsing: .unconditional, help: "Seconds a client may take to send a request body after its head (default 10). Env: FOLLA_BODY_TIMEOUT")
    var bodyTimeout: Double?

    @Option(parsing: .unconditional, help: "Seconds an idle keep-alive connection stays open (default 60). Env: FOLLA_IDLE_TIMEOUT")
    var idleTimeout: Double?

    @Option(parsing: .unconditional, help: "Open client connections at most (default: what the descriptor limit leaves, up to 10000). Env: FOLLA_MAX_CONNECTIONS")
    var maxConnections: Int?

    @Option(help: "Origins whose pages may read the public API from a browser (CORS): * (default), none, or a comma-separated list like https://map.example.org. Env: FOLLA_CORS_ORIGINS")
    var corsOrigins: String?

    @Flag(help: "Name the client's address in the access log (off by default). Env: FOLLA_LOG_CLIENT_ADDRESS=1")
    var logClientAddress = false

    func run() async throws {
        // Before an error that ends the command is printed (by ArgumentParser, to standard
        // error directly): the lines logged before it come first.
        defer { LogOutput.standardError.flush() }
        // Before anything creates a counter (the caches do, in AppDependencies.init): a
        // counter made earlier stays on swift-metrics' no-op handler for good.
        let metrics = ServerMetrics.shared
        try database.validateLogFormat()
        let logger = database.makeLogger("folla")
        var policy = CheckInPolicy.default
        let day = 86_400.0, year = 365 * day
        policy.joinRadius = try Setting("join-radius").number(joinRadius, default: policy.joinRadius, in: 0.5...1000)
        policy.presenceTTL = try Setting("presence-ttl").number(presenceTTL, default: policy.presenceTTL, in: 1...day)
        policy.maxSpeed = try Setting("max-speed").number(maxSpeed, default: policy.maxSpeed, in: 0.1...10_000)
        policy.retention = try Setting("retention").number(retention, default: policy.retention, in: 1...year)
        policy.messageRetention = try Setting("message-retention").number(messageRetention, default: policy.messageRetention, in: 1...year)
        let establishment = Establishment(
            after: try Setting("establish-after").number(establishAfter, default: Establishment.standard.after, in: 0...day),
            pings: try Setting("establish-pings").integer(establishPings, default: Establishment.standard.pings, in: 1...1000))
        let budgets = ClientBudgets(
            newDevices: try Setting("new-devices-per-network").integer(newDevicesPerNetwork, default: 30, in: 0...1_000_000))
        let k = try Setting("min-group-size").integer(minGroupSize, default: 3, in: 1...1000)
        let sweepEvery = try Setting("sweep-interval").number(sweepInterval, default: 5, in: 0.05...3600)
        let grace = try Setting("shutdown-grace").number(shutdownGrace, default: 10, in: 0.1...3600)
        let bindHost = host ?? env("FOLLA_HOST") ?? "127.0.0.1"
        let bindPort = try Setting("port").integer(port, default: 8080, in: 0...65_535)
        let reportThreshold = try Setting("report-threshold").integer(self.reportThreshold, default: 3, in: 1...1000)
        let rate = try Setting("message-rate").integer(messageRate, default: 5, in: 1...1_000_000)
        let wallCache = try Setting("wall-cache-seconds").integer(wallCacheSeconds, default: 2, in: 0...3600)
        let wallStream = try Setting("wall-stream-seconds").integer(wallStreamSeconds, default: 300, in: 1...86_400)
        let groupsCache = try Setting("groups-cache-ms").integer(groupsCacheMs, default: 1000, in: 0...60_000)
        let pushCoalesce = try Setting("wall-push-coalesce-ms").integer(wallPushCoalesceMs, default: 50, in: 0...10_000)
        let floorDefault = Int(PrivacyPolicy().answerFloor.duration / .milliseconds(1))
        let answerFloor = try Setting("answer-floor-ms").integer(answerFloorMs, default: floorDefault, in: 0...1000)
        let replicaMaxLag = try Setting("replica-max-lag").number(replicaMaxLag, default: 2, in: 0.1...3600)
        let connections = try Setting("db-connections").integer(dbConnections, default: 20, in: 1...1000)
        let writers = try Setting("checkin-writers").integer(checkinWriters, default: 2, in: 1...max(1, connections - 1))
        // Each ping of a batch is a subtransaction: past 64 PostgreSQL's snapshots overflow.
        let batch = try Setting("checkin-batch").integer(checkinBatch, default: 32, in: 1...64)
        // A quarter of the floor that check-in answers wait for anyway; none where there is
        // no floor (k = 1: the original's answers leave as soon as they are written).
        let linger = try Setting("checkin-linger-ms").integer(checkinLingerMs, default: k == 1 ? 0 : answerFloor / 4, in: 0...1000)
        let keyRetention = try Setting("idempotency-retention").number(idempotencyRetention, default: day, in: 60...year)
        var limits = ConnectionLimits()
        limits.headTimeout = .milliseconds(Int(1000 * (try Setting("head-timeout").number(headTimeout, default: 10, in: 0.1...3600))))
        limits.bodyTimeout = .milliseconds(Int(1000 * (try Setting("body-timeout").number(bodyTimeout, default: 10, in: 0.1...3600))))
        limits.idleTimeout = .milliseconds(Int(1000 * (try Setting("idle-timeout").number(idleTimeout, default: 60, in: 0.1...86_400))))
        let descriptors = DescriptorLimit.raise()
        // Room for the database pool, the log, PostgreSQL's pipes and the listening socket.
        let affordable = max(16, min(10_000, descriptors - connections - 64))
        limits.maxConnections = try Setting("max-connections").integer(maxConnections, default: affordable, in: 1...1_000_000)
        let streamsPerNetwork = try Setting("max-streams-per-network").integer(maxStreamsPerNetwork, default: AppSettings().maxStreamsPerNetwork, in: 0...1_000_000)
        let streams = try Setting("max-streams").integer(maxStreams, default: max(1, limits.maxConnections / 2), in: 1...1_000_000)
        try database.validateLogLevel()
        let cors = try Setting("cors-origins").parsed(corsOrigins, default: "*") { try CORSPolicy(parsing: $0) }
        let keyer = try DeviceKeyer(secret: database.resolvedSecret())
        let migrator = try Migrator.bundled()

        let startup = StartupSignals()
        var services: [any Service] = []
        let location: DatabaseLocation
        var embedded: EmbeddedPostgres?
        var embeddedService: EmbeddedPostgresService?
        if let url = database.resolvedDatabaseURL {
            // An external database may be down at start: the monitor migrates it once it answers.
            location = .url(url)
        } else {
            let pg = database.embedded(logger: logger)
            do {
                location = try await EmbeddedDatabase.bootstrap(pg, migrator: migrator, logger: logger)
            } catch where startup.caught != nil {
                // Interrupted (a terminal's Ctrl-C reaches initdb too): stopped as asked.
                logger.notice("stopping: signal during start-up", metadata: ["interrupted": "\(error)"])
                try? await pg.stop()
                return
            }
            let service = EmbeddedPostgresService(postgres: pg, logger: logger)
            services.append(service)
            (embedded, embeddedService) = (pg, service)
        }

        var dbConfig = try location.configuration()
        dbConfig.options.maximumConnections = connections
        // Opened at start rather than under the first burst (each new backend also plans the
        // check-in function on its first call: hundreds of ms of p99 in the first seconds).
        dbConfig.options.minimumConnections = connections
        dbConfig.options.connectTimeout = .seconds(2)
        // A lock held long by someone else fails the request that meets it (a 503) rather
        // than holding it, and then the whole pool (`PSQLError.refusalReason`).
        dbConfig.options.additionalStartupParameters.append(("lock_timeout", DatabaseOptions.lockTimeout))
        let pool = DatabasePool(configuration: dbConfig, logger: logger)
        let (reads, replicaServices) = try database.readDatabase(primary: pool, connections: connections,
                                                                    maxLag: .milliseconds(Int(replicaMaxLag * 1000)), logger: logger)
        let privacy = PrivacyPolicy(k: k, establishment: establishment, noiseKey: keyer.noiseKey)
        let checkIns = LateBound<CheckInService>()
        let monitor = DatabaseMonitor(client: dbConfig, logger: logger, recovered: pool.renew) { connection in
            // Migrations wait for their locks, however long (the monitor's own connection).
            _ = try await connection.query("SET lock_timeout = 0", logger: logger).collect()
            try await migrator.migrate(on: connection, logger: logger)
            try await HeldMessages.hold(for: privacy, on: connection, logger: logger)
            // Then the pool's lock timeout again: the monitor's probes write a row that every
            // instance writes, and must not wait on it for longer than a request would.
            _ = try await connection.query("RESET lock_timeout", logger: logger).collect()
            // Before the database is first reported available, so before `/readyz` says ready:
            // the first second's check-ins then meet no connection planning its first batch.
            // A failure only costs that second's latency: logged, and readiness goes on.
            guard let service = checkIns.value else {
                logger.error("the connections' check-in warm-up was skipped: no check-in service yet")
                return
            }
            let start = ContinuousClock.now
            do {
                try await service.warmUp(connections: connections, within: .seconds(5))
                logger.info("connections warmed for check-ins", metadata: [
                    "connections": "\(connections)", "ms": "\(Int((ContinuousClock.now - start) / .milliseconds(1)))",
                ])
            } catch {
                logger.warning("the connections' check-in warm-up failed", metadata: ["error": "\(error)"])
            }
        }
        var settings = AppSettings()
        settings.privacy = privacy
        settings.privacy.answerFloor = AnswerFloor(.milliseconds(answerFloor), timer: EventLoopTimer())
        settings.checkIn = policy
        settings.checkInWriters = writers
        settings.checkInBatch = batch
        settings.checkInLinger = .milliseconds(linger)
        let words = (blockedWords ?? env("FOLLA_BLOCKED_WORDS") ?? "").split(separator: ",").map(String.init)
        settings.messagePolicy = MessagePolicy(reportThreshold: reportThreshold, blockedWords: words)
        settings.messagesPerDevice = rate
        settings.budgets = budgets
        settings.adminToken = adminToken ?? env("FOLLA_ADMIN_TOKEN")
        settings.wallCacheSeconds = wallCache
        settings.wallStreamDuration = .seconds(wallStream)
        settings.maxStreamsPerNetwork = streamsPerNetwork
        settings.maxStreams = streams
        settings.groupsCache = .milliseconds(groupsCache)
        settings.cors = cors
        settings.logClientAddress = logClientAddress || env("FOLLA_LOG_CLIENT_ADDRESS") == "1"
        let clock = SystemClock()
        let deps = AppDependencies.compose(pool: pool, reads: reads, keyer: keyer, database: monitor, migrator: migrator, clock: clock,
                                           settings: settings, metrics: metrics, logger: logger)
        checkIns.value = deps.checkIns
        services.append(pool)
        services.append(monitor)
        services += replicaServices
        services.append(MessageFeed(listener: NotificationListener(client: dbConfig, channel: MessageFeed.channel, logger: logger),
                                    deps: deps, coalesce: .milliseconds(pushCoalesce)))
        services.append(GroupsModelRefresher(groups: deps.groups))
        services.append(PresenceSweeper(presence: deps.presence, database: monitor, clock: clock,
                                        interval: .milliseconds(Int(sweepEvery * 1000)),
                                        budgetWindow: budgets.window, idempotencyRetention: keyRetention, logger: logger))
        limits.maxBodyBytes = settings.limits.maxBodyBytes
        let app = Application(
            router: buildRouter(deps),
            server: limits.server(),
            configuration: .init(address: .hostname(bindHost, port: bindPort), serverName: "folla",
                                 availableConnectionsDelegate: limits.connectionCap(logger: logger)),
            services: services,
            logger: logger
        )
        // A bounded shutdown: a client that stalls mid-request (half a body, then silence)
        // held a SIGTERM for as long as it stayed connected. Past the grace the services are
        // cancelled (requests in flight get no answer: nothing unanswered was acknowledged),
        // and past as long again, plus an embedded cluster's own stop budget (`pg_ctl stop -t
        // 20`, after which its service kills it), `ShutdownDeadline` ends the process whatever
        // still hangs (ServiceLifecycle's deadline is a fatal error that left a frozen cluster
        // running). It is listed last so that it is told first (a group stops its services in
        // reverse order) and counts from the signal.
        let deadline = ShutdownDeadline(after: .milliseconds(Int((2 * grace + (embedded == nil ? 0 : 25)) * 1000)),
                                        postgres: embedded, logger: logger)
        var group = ServiceGroupConfiguration(services: [app, deadline], gracefulShutdownSignals: [.sigterm, .sigint, .sighup],
                                              logger: logger)
        group.maximumGracefulShutdownDuration = .milliseconds(Int(grace * 1000))
        let serviceGroup = ServiceGroup(configuration: group)
        // Asked to stop while the cluster was being set up: stop it, and nothing else.
        guard startup.handOver(to: serviceGroup) else {
            logger.notice("stopping: signal during start-up")
            try? await embedded?.stop()
            return
        }
        try await serviceGroup.run()
        // A cluster that had to be killed is a failed stop, whether or not the group said so.
        if let failure = embeddedService?.stopFailure { throw failure }
    }
}
