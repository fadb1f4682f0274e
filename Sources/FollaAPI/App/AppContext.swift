import FollaCore
import FollaServices
import FollaStore
import Logging
import PostgresNIO

/// Everything a route needs, built once at start-up and shared by every request. Routes
/// decode, call one service, encode: the rules live in the services and the policy.
public struct AppDependencies: Sendable {
    public var presence: PresenceStore
    public var places: PlaceReads
    public var privacy: PrivacyPolicy
    public var messages: MessageStore
    public var messagePolicy: MessagePolicy
    /// Check-ins, messages, reports: the one write path.
    public var checkIns: CheckInService
    /// Groups, places by id, a place's messages.
    public var groups: GroupService
    /// Walls by venue or area (micro-cached).
    public var walls: WallService
    /// Bearer token for /v1/admin; nil disables the admin API.
    public var adminToken: String?
    public var venues: VenueStore
    public var wallReads: WallReads
    /// Seconds walls are cached in process and by clients (max-age).
    public var wallCacheSeconds: Int
    /// How long one SSE stream lasts before the screen reconnects (Last-Event-ID resumes it).
    public var wallStreamDuration: Duration = .seconds(300)
    public var wallStreamInterval: Duration = .seconds(1)
    /// Whether the database can serve: routes that need it answer 503 at once while it cannot.
    public var database: DatabaseMonitor
    public var readiness: ReadinessProbe
    /// Answers of POSTs sent with an Idempotency-Key.
    public var idempotency: IdempotencyStore
    public var clock: any WallClock
    public var limits: RequestLimits
    /// Which other origins may read the public API from a browser.
    public var cors = CORSPolicy()
    /// Where `GET /metrics` reads from; nil: no metrics route (and no request metrics).
    public var metrics: ServerMetrics?
    /// Whether the access log names the client's address.
    public var logClientAddress = false

    public init(presence: PresenceStore, places: PlaceReads, privacy: PrivacyPolicy = .init(),
                database: DatabaseMonitor, migrator: Migrator,
                clock: any WallClock = SystemClock(), limits: RequestLimits = .init(),
                messagePolicy: MessagePolicy = .init(), messageLimiter: RateLimiter = RateLimiter(limit: 5, window: 600),
                reportLimiter: RateLimiter = RateLimiter(limit: 20, window: 600), budgets: ClientBudgets = .init(),
                adminToken: String? = nil, wallCacheSeconds: Int = 2, groupsCache: Duration = .zero) {
        self.presence = presence
        self.places = places
        self.privacy = privacy
        let messages = MessageStore(pool: presence.pool, keyer: presence.keyer,
                                    presenceTTL: presence.policy.presenceTTL, logger: places.logger)
        self.messages = messages
        self.messagePolicy = messagePolicy
        self.checkIns = CheckInService(presence: presence, messages: messages, privacy: privacy, messagePolicy: messagePolicy,
                                       messageLimiter: messageLimiter, reportLimiter: reportLimiter, budgets: budgets, clock: clock)
        self.groups = GroupService(places: places, messages: messages, privacy: privacy, cachePeriod: groupsCache)
        self.adminToken = adminToken
        self.venues = VenueStore(pool: presence.pool, logger: places.logger)
        self.wallReads = WallReads(pool: presence.pool, logger: places.logger)
        self.wallCacheSeconds = max(0, wallCacheSeconds)
        self.walls = WallService(reads: wallReads, privacy: privacy, cachePeriod: .seconds(max(0, wallCacheSeconds)))
        self.database = database
        self.idempotency = IdempotencyStore(pool: presence.pool, logger: places.logger)
        self.readiness = ReadinessProbe(pool: presence.pool, migrator: migrator, monitor: database, logger: places.logger)
        self.clock = clock
        self.limits = limits
    }
}

/// Sizes the server refuses to go past, whatever a client sends.
public struct RequestLimits: Sendable {
    /// Largest accepted body for writes (a check-in is a few hundred bytes).
    public var maxBodyBytes: Int = 16 * 1024

    public init(maxBodyBytes: Int = 16 * 1024) {
        self.maxBodyBytes = maxBodyBytes
    }
}
