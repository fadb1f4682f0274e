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

    @Option(help: "Port to listen on (default 8080). Env: FOLLA_PORT")
    var port: Int?

    @Option(help: "Join radius in metres (default 10). Env: FOLLA_JOIN_RADIUS")
    var joinRadius: Double?

    @Option(help: "Presence TTL in seconds (default 1200). Env: FOLLA_PRESENCE_TTL")
    var presenceTTL: Double?

    @Option(help: "Refuse pings implying more than this speed, m/s (default 350). Env: FOLLA_MAX_SPEED")
    var maxSpeed: Double?

    @Option(help: "Erase devices silent for this many seconds (default 604800, a week). Env: FOLLA_RETENTION")
    var retention: Double?

    @Option(help: "Delete messages older than this many seconds (default 86400, a day). Env: FOLLA_MESSAGE_RETENTION")
    var messageRetention: Double?

    @Option(help: "A device counts toward groups, stats and reports once seen for this many seconds (default 300). Env: FOLLA_ESTABLISH_AFTER")
    var establishAfter: Double?

    @Option(help: "… and on at least this many accepted pings (default 3). Env: FOLLA_ESTABLISH_PINGS")
    var establishPings: Int?

    @Option(help: "New device ids one client network (IPv4 /24, IPv6 /48) may create per 10 minutes (default 30; 0 = unlimited). Env: FOLLA_NEW_DEVICES_PER_NETWORK")
    var newDevicesPerNetwork: Int?

    @Option(help: "Seconds between expiry sweeps (default 5). Env: FOLLA_SWEEP_INTERVAL")
    var sweepInterval: Double?

    @Option(help: "k-anonymity: groups with fewer people show a coarsened position and no breakdown (default 3; 1 = the original). Env: FOLLA_MIN_GROUP_SIZE")
    var minGroupSize: Int?

    @Option(help: "Bearer token for the admin API (venues, moderation); unset disables it. Env: FOLLA_ADMIN_TOKEN")
    var adminToken: String?

    @Option(help: "Distinct device reports that hide a message (default 3). Env: FOLLA_REPORT_THRESHOLD")
    var reportThreshold: Int?

    @Option(help: "Comma-separated words refused in messages. Env: FOLLA_BLOCKED_WORDS")
    var blockedWords: String?

    @Option(help: "Messages a device may post per 10 minutes (default 5). Env: FOLLA_MESSAGE_RATE")
    var messageRate: Int?

    @Option(help: "Seconds walls are cached in process and by screens (default 2). Env: FOLLA_WALL_CACHE_SECONDS")
    var wallCacheSeconds: Int?

    @Option(help: "Database connections in the pool (default 20). Env: FOLLA_DB_CONNECTIONS")
    var dbConnections: Int?

    func run() async throws {
        let logger = database.makeLogger("folla")
        var policy = CheckInPolicy.default
        policy.joinRadius = try positive(joinRadius ?? env("FOLLA_JOIN_RADIUS").flatMap(Double.init) ?? policy.joinRadius, "join-radius")
        policy.presenceTTL = try positive(presenceTTL ?? env("FOLLA_PRESENCE_TTL").flatMap(Double.init) ?? policy.presenceTTL, "presence-ttl")
        policy.maxSpeed = try positive(maxSpeed ?? env("FOLLA_MAX_SPEED").flatMap(Double.init) ?? policy.maxSpeed, "max-speed")
        policy.retention = try positive(retention ?? env("FOLLA_RETENTION").flatMap(Double.init) ?? policy.retention, "retention")
        policy.messageRetention = try positive(
            messageRetention ?? env("FOLLA_MESSAGE_RETENTION").flatMap(Double.init) ?? policy.messageRetention, "message-retention")
        let establishment = Establishment(
            after: try nonNegative(establishAfter ?? env("FOLLA_ESTABLISH_AFTER").flatMap(Double.init) ?? Establishment.standard.after, "establish-after"),
            pings: Int(try positive(Double(establishPings ?? env("FOLLA_ESTABLISH_PINGS").flatMap(Int.init) ?? Establishment.standard.pings), "establish-pings")))
        let budgets = ClientBudgets(
            newDevices: Int(try nonNegative(Double(newDevicesPerNetwork ?? env("FOLLA_NEW_DEVICES_PER_NETWORK").flatMap(Int.init) ?? 30), "new-devices-per-network")))
        let k = try resolvedMinGroupSize()
        let sweepEvery = try positive(sweepInterval ?? env("FOLLA_SWEEP_INTERVAL").flatMap(Double.init) ?? 5, "sweep-interval")
        let bindHost = host ?? env("FOLLA_HOST") ?? "127.0.0.1"
        let bindPort = port ?? env("FOLLA_PORT").flatMap(Int.init) ?? 8080
        let keyer = try DeviceKeyer(secret: database.resolvedSecret())
        let migrator = try Migrator.bundled()

        var services: [any Service] = []
        let location: DatabaseLocation
        if let url = database.resolvedDatabaseURL {
            location = .url(url)
            try await PostgresClient.with(try location.configuration(), logger: logger) { client in
                try await migrator.migrate(client, logger: logger)
            }
        } else {
            let pg = database.embedded(logger: logger)
            location = try await EmbeddedDatabase.bootstrap(pg, migrator: migrator, logger: logger)
            services.append(EmbeddedPostgresService(postgres: pg, logger: logger))
        }

        var dbConfig = try location.configuration()
        dbConfig.options.maximumConnections = dbConnections ?? env("FOLLA_DB_CONNECTIONS").flatMap(Int.init) ?? 20
        let client = PostgresClient(configuration: dbConfig, backgroundLogger: logger)
        let clock = SystemClock()
        let presence = PresenceStore(client: client, keyer: keyer, policy: policy, logger: logger)
        services.append(client)
        services.append(PresenceSweeper(presence: presence, clock: clock, interval: .milliseconds(Int(sweepEvery * 1000)),
                                        budgetWindow: budgets.window, logger: logger))

        let privacy = PrivacyPolicy(k: k, establishment: establishment, noiseKey: keyer.noiseKey)
        let words = (blockedWords ?? env("FOLLA_BLOCKED_WORDS") ?? "").split(separator: ",").map(String.init)
        let messagePolicy = MessagePolicy(
            reportThreshold: reportThreshold ?? env("FOLLA_REPORT_THRESHOLD").flatMap(Int.init) ?? 3, blockedWords: words)
        let rate = messageRate ?? env("FOLLA_MESSAGE_RATE").flatMap(Int.init) ?? 5
        let deps = AppDependencies(
            presence: presence, places: PlaceReads(client: client, logger: logger), privacy: privacy,
            readiness: ReadinessProbe(client: client, migrator: migrator, logger: logger), clock: clock,
            messagePolicy: messagePolicy, messageLimiter: RateLimiter(limit: rate, window: 600), budgets: budgets,
            adminToken: adminToken ?? env("FOLLA_ADMIN_TOKEN"),
            wallCacheSeconds: wallCacheSeconds ?? env("FOLLA_WALL_CACHE_SECONDS").flatMap(Int.init) ?? 2)
        let app = Application(
            router: buildRouter(deps),
            configuration: .init(address: .hostname(bindHost, port: bindPort), serverName: "folla"),
            services: services,
            logger: logger
        )
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    private func resolvedMinGroupSize() throws -> Int {
        let k = minGroupSize ?? env("FOLLA_MIN_GROUP_SIZE").flatMap(Int.init) ?? 3
        guard k >= 1 else { throw ValidationError("--min-group-size must be at least 1") }
        return k
    }

    private func nonNegative(_ value: Double, _ name: String) throws -> Double {
        guard value.isFinite, value >= 0 else { throw ValidationError("--\(name) must be a number of at least 0") }
        return value
    }

    private func positive(_ value: Double, _ name: String) throws -> Double {
        guard value.isFinite, value > 0 else { throw ValidationError("--\(name) must be a positive number") }
        return value
    }
}
