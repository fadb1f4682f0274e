import FollaCore
import FollaServices

/// What an operator chooses for one server: parsed from flags and environment by
/// `folla serve`, set directly by tests. Plain values; `AppDependencies.compose` turns them
/// into stores and services.
public struct AppSettings: Sendable {
    /// k, establishment and the noise key.
    public var privacy = PrivacyPolicy()
    /// Join radius, presence TTL, speed limit, retention.
    public var checkIn = CheckInPolicy.default
    /// Check-in batches in flight at once, pings per batch, and how long an idle writer
    /// waits for more (`GroupCommit`).
    public var checkInWriters = 2
    public var checkInBatch = 32
    public var checkInLinger: Duration = .zero
    public var messagePolicy = MessagePolicy()
    /// Messages and reports one device may send per 10 minutes.
    public var messagesPerDevice = 5
    public var reportsPerDevice = 20
    public var budgets = ClientBudgets()
    /// Bearer token for the admin API and /metrics; nil disables them.
    public var adminToken: String?
    /// Seconds walls are cached in process and by clients (max-age).
    public var wallCacheSeconds = 2
    /// How long one wall SSE stream lasts before the screen reconnects, and its tick.
    public var wallStreamDuration: Duration = .seconds(300)
    public var wallStreamInterval: Duration = .seconds(1)
    /// Wall event streams open at once from one client network (0: no share), and in all
    /// (`StreamSlots`; `serve` sets the total to half of its connections).
    public var maxStreamsPerNetwork = 32
    public var maxStreams = 500
    /// How stale a groups answer may be (queries of one tile share one read).
    public var groupsCache: Duration = .zero
    public var limits = RequestLimits()
    public var cors = CORSPolicy()
    /// Whether the access log names the client's address.
    public var logClientAddress = false
    /// How long `/readyz` may take before it answers unready (see ``ReadinessProbe``).
    public var readinessDeadline: Duration = .seconds(5)

    public init() {}
}
