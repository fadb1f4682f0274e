import FollaCore
import Foundation
import Logging
import Metrics
import PostgresNIO

/// Where the reads that may lag a little go (groups, walls, tiles): a streaming replica when
/// one is configured and answering, otherwise the primary. Writes, and the check-in's own
/// answer, never come here.
///
/// A replica that goes away is noticed by its own ``DatabaseMonitor`` within about a second;
/// meanwhile a read it fails (or leaves hanging) is released and runs on the primary, so a
/// lost replica costs latency, not errors. A replica more than `maxLag` behind (as
/// `watchLag()` measures it) serves no reads until it has caught up.
public final class ReadDatabase: Sendable {
    public let primary: DatabasePool
    let replica: DatabasePool?
    let monitor: DatabaseMonitor?
    let logger: Logger
    /// How far behind the replica is, as the lag watch last saw it.
    let lag = ReplicaLag()
    /// Past this lag, reads go to the primary: a groups answer may be as stale as the groups
    /// cache period (1 s), not as stale as a replica that fell behind.
    public let maxLag: Duration
    private let fallbacks = Metrics.Counter(label: "folla_replica_fallbacks_total")

    /// Reads from the primary only.
    public init(primary: DatabasePool) {
        self.maxLag = .seconds(2)
        self.primary = primary
        self.replica = nil
        self.monitor = nil
        self.logger = Logger(label: "folla.reads")
    }

    /// - Parameters:
    ///   - primary: where reads go while the replica cannot serve.
    ///   - replica: the replica's pool.
    ///   - monitor: watches the replica (its lifecycle is the caller's, like the pool's).
    ///   - maxLag: reads go to the primary while the replica is further behind (run `watchLag()`).
    public init(primary: DatabasePool, replica: DatabasePool, monitor: DatabaseMonitor, maxLag: Duration = .seconds(2),
                logger: Logger) {
        self.maxLag = maxLag
        self.primary = primary
        self.replica = replica
        self.monitor = monitor
        self.logger = logger
    }

    /// Whether a replica is configured at all.
    public var hasReplica: Bool { replica != nil }

    /// Runs `body` on the replica when it can serve, else (or when it fails on the replica's
    /// account) on the primary. `body` must read its rows completely before returning.
    public func run<T: Sendable>(_ body: @escaping @Sendable (PostgresClient) async throws -> T) async throws -> T {
        if hasReplica, monitor?.isAvailable == true, lag.seconds <= maxLag / .seconds(1) {
            do {
                return try await onReplica(body)
            } catch is DatabaseUnavailable {
                fallbacks.increment()
            } catch let error as PSQLError where error.isConnectionFailure || error.isRecoveryConflict {
                fallbacks.increment()
                // The pool saw it first: have the monitor look now, so the next reads go
                // straight to the primary instead of failing on the replica first.
                if error.isConnectionFailure { monitor?.probeSoon() }
            }
        }
        return try await body(primary.client)
    }

    /// `body` on the replica, released with `DatabaseUnavailable` as soon as the monitor sees
    /// the replica go (or at `deadline`). The body runs in a task that is cancelled but not
    /// waited for: a query on a connection whose server was killed was seen never to return
    /// (the drill of `tools/scale-out/faults` caught reads hanging that way), and a task
    /// group would wait for it.
    func onReplica<T: Sendable>(deadline: Duration? = nil,
                                _ body: @escaping @Sendable (PostgresClient) async throws -> T) async throws -> T {
        guard let replica, let monitor else { throw DatabaseUnavailable(reason: "no replica", retryAfterSeconds: 1) }
        var rivals: [@Sendable () async throws -> T] = [{
            await monitor.outage()
            throw DatabaseUnavailable(reason: "the replica is unavailable", retryAfterSeconds: 1)
        }]
        if let deadline {
            rivals.append(FirstResult.after(deadline, timer: EventLoopTimer()) {
                DatabaseUnavailable(reason: "the replica did not answer within \(deadline)", retryAfterSeconds: 1)
            })
        }
        return try await FirstResult<T>().race({ try await body(replica.client) }, against: rivals)
    }

    /// Waits until the replica has replayed everything the primary had written when this was
    /// called, or `limit` passes. After a change notification, the next read from the
    /// replica then sees the change.
    /// - Returns: false when the replica did not catch up within `limit` (or could not be
    ///   asked); true when it did, or when reads do not go to a replica now.
    @discardableResult
    public func catchUp(within limit: Duration) async -> Bool {
        guard hasReplica, monitor?.isAvailable == true else { return true }
        let end = ContinuousClock.now + limit
        let logger = logger
        do {
            let lsn = try await primaryLSN()
            while ContinuousClock.now < end {
                let caughtUp = try await onReplica(deadline: max(.milliseconds(1), end - ContinuousClock.now)) { client in
                    try await client.query("SELECT coalesce(pg_last_wal_replay_lsn() >= \(lsn)::pg_lsn, true)", logger: logger)
                        .collect()[0].decode(Bool.self)
                }
                if caughtUp { return true }
                try await Task.sleep(for: .milliseconds(5))
            }
        } catch {
            logger.debug("could not wait for the replica", metadata: ["error": "\(error)"])
        }
        return false
    }

    func primaryLSN() async throws -> String {
        try await primary.client.query("SELECT pg_current_wal_lsn()::text", logger: logger).collect()[0].decode(String.self)
    }
}

extension PSQLError {
    /// A standby cancelled the query because replay needed what it read (SQLSTATE 40001).
    var isRecoveryConflict: Bool { serverInfo?[.sqlState] == "40001" }
}
