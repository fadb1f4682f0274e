import FollaCore
import FollaStore
import Logging
import Metrics
import PostgresNIO
import ServiceLifecycle

/// Shows held messages whose minute has ended, expires presence past its TTL, forgets
/// devices past retention, deletes messages past theirs, emptied places nothing points to,
/// spent budget windows and idempotency keys past theirs, and per-device rate counters whose
/// window ended, every `interval` (the deletions all counted as `retired` in the metrics).
/// Safe to run in every server instance at once (the SQL skips rows another sweeper holds).
public struct PresenceSweeper: Service {
    let presence: PresenceStore
    let database: DatabaseMonitor
    let idempotency: IdempotencyStore
    let rates: DeviceRates
    let held: HeldMessages
    let idempotencyRetention: Double
    let clock: any WallClock
    let interval: Duration
    let budgetWindow: Double
    let logger: Logger

    public init(presence: PresenceStore, database: DatabaseMonitor, clock: any WallClock, interval: Duration,
                budgetWindow: Double = 600, idempotencyRetention: Double = 86_400, logger: Logger) {
        self.presence = presence
        self.idempotency = IdempotencyStore(pool: presence.pool, logger: logger)
        self.rates = DeviceRates(pool: presence.pool, keyer: presence.keyer, logger: logger)
        self.held = HeldMessages(pool: presence.pool, logger: logger)
        self.idempotencyRetention = idempotencyRetention
        self.database = database
        self.clock = clock
        self.interval = interval
        self.budgetWindow = budgetWindow
        self.logger = logger
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                // During an outage the sweep is skipped (the monitor logs the outage once).
                if database.isAvailable { try await database.whileAvailable { try await sweep() } }
            } catch is DatabaseUnavailable {
            } catch {
                // PostgresNIO's description of its errors hides the server's message.
                let why = (error as? PSQLError).map { $0.serverSummary } ?? "\(error)"
                logger.warning("sweep failed; will retry", metadata: ["error": "\(why)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }

    /// One sweep (`run` repeats it every `interval`).
    package func sweep() async throws {
        let now = clock.now()
        // First, so that no other step's failure holds them up: the held messages (SQL/0026)
        // of the minutes that have ended appear now, at a time of the clock, whenever in
        // their minute they were posted.
        let shown = try await held.show(before: now.floored(toMultipleOf: 60))
        // Presence expires at whole minutes: expired at the first sweep after a lone person's
        // TTL ran out, their cell's count told their last ping to the sweep's interval (an
        // outside probe: to 1–2 s), finer than the minute the server keeps of any time. A TTL
        // under a minute (test rigs) is kept exact: rounding would double it.
        let ttl = presence.policy.presenceTTL
        let expired = try await presence.expire(at: ttl >= 60 ? now.floored(toMultipleOf: 60) : now)
        // Then the counts of the minute, expiries included, at once for every place
        // (`SQL/0029`), and the stats snapshots of the period with them (a new place's
        // first, or every place's at the turn of a period).
        let counted = try await presence.showCounts(minute: now.floored(toMultipleOf: 60),
                                                    bucket: PrivacyPolicy.statsBucket(at: now))
        let forgotten = try await presence.forget(at: now)
        let retired = try await presence.retire(
            at: now, messageRetention: presence.policy.messageRetention, budgetWindow: budgetWindow)
            + idempotency.expire(at: now, retention: idempotencyRetention)
            + rates.expire(at: now)
        Counter(label: "folla_sweeps_total").increment()
        for (what, rows) in [("shown", shown), ("expired", expired), ("counts", counted ?? 0), ("forgotten", forgotten), ("retired", retired)] where rows > 0 {
            Counter(label: "folla_swept_rows_total", dimensions: [("what", what)]).increment(by: rows)
        }
        if expired + forgotten + retired > 0 {
            logger.info("sweep", metadata: ["expired": "\(expired)", "forgotten": "\(forgotten)", "retired": "\(retired)"])
        }
        // After the sweep's own work and its log line: a failed count is only a stale gauge.
        do {
            let live = try await presence.liveCounts()
            Gauge(label: "folla_live_places").record(live.places)
            Gauge(label: "folla_live_devices").record(live.devices)
            Gauge(label: "folla_db_backends", dimensions: [("state", "active")]).record(live.activeBackends)
            Gauge(label: "folla_db_backends", dimensions: [("state", "idle")]).record(live.idleBackends)
        } catch {
            logger.debug("live counts for the metrics failed", metadata: ["error": "\(error)"])
        }
    }
}
