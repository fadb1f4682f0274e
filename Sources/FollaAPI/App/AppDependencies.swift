import FollaCore
import FollaServices
import FollaStore
import Logging
import PostgresNIO

/// Everything a route needs, built once at start-up (by `compose`, the one composition
/// root) and shared by every request. Routes decode, call one service, encode: the rules
/// live in the services and the policy.
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
    /// Clusters of a viewport at a zoom, and their children (one city-wide read model).
    public var map: MapService
    /// Seconds a map tile may be held by clients and CDNs (the read model's staleness bound).
    public var mapMaxAge: Int
    /// Walls by venue or area (micro-cached).
    public var walls: WallService
    /// Bearer token for /v1/admin; nil disables the admin API.
    public var adminToken: String?
    public var venues: VenueStore
    public var wallReads: WallReads
    /// Seconds walls are cached in process and by clients (max-age).
    public var wallCacheSeconds: Int
    /// How long one SSE stream lasts before the screen reconnects (Last-Event-ID resumes it).
    public var wallStreamDuration: Duration
    public var wallStreamInterval: Duration
    /// Wall event streams open at once, in all and per client network.
    var streams: StreamSlots
    /// Rung when messages changed on any instance (`MessageFeed`): streams look at once.
    public var wallChanges: WallChanges
    /// Whether the database can serve: routes that need it answer 503 at once while it cannot.
    public var database: DatabaseMonitor
    /// Where the reads that may lag go: the replica, or the primary.
    public var reads: ReadDatabase
    public var readiness: ReadinessProbe
    /// Answers of POSTs sent with an Idempotency-Key.
    public var idempotency: IdempotencyStore
    public var clock: any WallClock
    public var limits: RequestLimits
    /// Which other origins may read the public API from a browser.
    public var cors: CORSPolicy
    /// Where `GET /metrics` reads from; nil: no metrics route (and no request metrics).
    public var metrics: ServerMetrics?
    /// Whether the access log names the client's address.
    public var logClientAddress: Bool
}
