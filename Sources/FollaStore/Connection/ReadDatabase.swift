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
/// lost replica costs latency, not errors.
public final class ReadDatabase: Sendable {
    public let primary: DatabasePool
    let replica: DatabasePool?
    let monitor: DatabaseMonitor?
    let logger: Logger
    private let fallbacks = Metrics.Counter(label: "folla_replica_fallbacks_total")

    /// Reads from the primary only.
    public init(primary: DatabasePool) {
        self.primary = primary
        self.replica = nil
        self.monitor = nil
        self.logger = Logger(label: "folla.reads")
    }

    /// - Parameters:
    ///   - primary: where reads go while the replica cannot serve.
    ///   - replica: the replica's pool.
    ///   - monitor: watches the replica (its lifecycle is the caller's, like the pool's).
    public init(primary: DatabasePool, replica: DatabasePool, monitor: DatabaseMonitor, logger: Logger) {
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
        if hasReplica, monitor?.isAvailable == true {
            do {
                return try await onReplica(body)
            } catch is DatabaseUnavailable {
                fallbacks.increment()
            } catch let error as PSQLError where error.isConnectionFailure || error.isRecoveryConflict {
                fallbacks.increment()
            }
        }
        return try await body(primary.client)
    }

    /// `body` on the replica, released with `DatabaseUnavailable` as soon as the monitor sees
    /// the replica go (or at `deadline`). The body runs in a task that is cancelled but not
    /// waited for: a query on a connection whose server was killed was seen never to return
    /// (the drill of `tools/scale-out/faults` caught reads hanging that way), and a task
    /// group would wait for it.
    private func onReplica<T: Sendable>(deadline: Duration? = nil,
                                        _ body: @escaping @Sendable (PostgresClient) async throws -> T) async throws -> T {
        guard let replica, let monitor else { throw DatabaseUnavailable(reason: "no replica", retryAfterSeconds: 1) }
        let first = FirstResult<T>()
        let work = Task {
            do { first.finish(.success(try await body(replica.client))) } catch { first.finish(.failure(error)) }
        }
        let watch = Task {
            await monitor.outage()
            first.finish(.failure(DatabaseUnavailable(reason: "the replica is unavailable", retryAfterSeconds: 1)))
        }
        let timer = deadline.map { deadline in
            Task {
                try await Task.sleep(for: deadline)
                first.finish(.failure(DatabaseUnavailable(reason: "the replica did not answer within \(deadline)", retryAfterSeconds: 1)))
            }
        }
        defer {
            work.cancel()
            watch.cancel()
            timer?.cancel()
        }
        return try await withTaskCancellationHandler {
            try await first.value
        } onCancel: {
            first.finish(.failure(CancellationError()))
        }
    }

    /// The replica's state for `/readyz`; nil without a replica.
    public func replicaStatus() async -> ReplicaStatus? {
        guard hasReplica, let monitor else { return nil }
        guard monitor.isAvailable else {
            return ReplicaStatus(state: "unavailable", error: monitor.unavailableReason)
        }
        do {
            let lsn = try await primaryLSN()
            let logger = logger
            // Bounded: a balancer's health check must never hang on a dying replica.
            let rows = try await onReplica(deadline: .seconds(1)) { client in
                try await client.query("""
                    SELECT pg_is_in_recovery(), pg_wal_lsn_diff(\(lsn)::pg_lsn, pg_last_wal_replay_lsn())::float8,
                           extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8
                    """, logger: logger).collect()
            }
            let (recovering, bytes, age) = try rows[0].decode((Bool, Double?, Double?).self)
            guard recovering else { return ReplicaStatus(state: "not-a-replica", error: "the read database is not in recovery") }
            let behind = max(0, bytes ?? 0)
            // The age of the last replayed commit is a lag only while something is left to replay.
            return ReplicaStatus(state: "streaming", lagBytes: Int(behind), lagSeconds: behind > 0 ? max(0, age ?? 0) : 0)
        } catch {
            return ReplicaStatus(state: "unavailable", error: "\(error)")
        }
    }

    /// Waits until the replica has replayed everything the primary had written when this was
    /// called, or `limit` passes, or there is no replica to wait for. After a change
    /// notification, the next read from the replica then sees the change.
    public func catchUp(within limit: Duration) async {
        guard hasReplica, monitor?.isAvailable == true else { return }
        let end = ContinuousClock.now + limit
        let logger = logger
        do {
            let lsn = try await primaryLSN()
            while ContinuousClock.now < end {
                let caughtUp = try await onReplica(deadline: max(.milliseconds(1), end - ContinuousClock.now)) { client in
                    try await client.query("SELECT coalesce(pg_last_wal_replay_lsn() >= \(lsn)::pg_lsn, true)", logger: logger)
                        .collect()[0].decode(Bool.self)
                }
                if caughtUp { return }
                try await Task.sleep(for: .milliseconds(5))
            }
        } catch {
            logger.debug("could not wait for the replica", metadata: ["error": "\(error)"])
        }
    }

    private func primaryLSN() async throws -> String {
        try await primary.client.query("SELECT pg_current_wal_lsn()::text", logger: logger).collect()[0].decode(String.self)
    }
}

/// The read replica, as `/readyz` reports it.
public struct ReplicaStatus: Sendable, Encodable, Equatable {
    /// `streaming`, `unavailable` (reads go to the primary), `not-a-replica`, or `unknown`
    /// (the primary, which the lag is measured against, is unavailable).
    public var state: String
    /// WAL bytes the replica has yet to replay.
    public var lagBytes: Int?
    /// Seconds since the last commit the replica replayed, while it has something left to replay.
    public var lagSeconds: Double?
    public var error: String?

    public init(state: String, lagBytes: Int? = nil, lagSeconds: Double? = nil, error: String? = nil) {
        self.state = state
        self.lagBytes = lagBytes
        self.lagSeconds = lagSeconds
        self.error = error
    }

    enum CodingKeys: String, CodingKey {
        case state, error
        case lagBytes = "lag_bytes"
        case lagSeconds = "lag_seconds"
    }
}

extension PSQLError {
    /// A standby cancelled the query because replay needed what it read (SQLSTATE 40001).
    var isRecoveryConflict: Bool { serverInfo?[.sqlState] == "40001" }
}
