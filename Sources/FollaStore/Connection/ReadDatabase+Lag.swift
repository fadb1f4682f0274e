import Foundation
import PostgresNIO

extension ReadDatabase {
    /// Samples the replica's lag every `interval` until cancelled (a lifecycle service runs
    /// it); reads avoid a replica more than `maxLag` behind. Without a replica it returns.
    public func watchLag(every interval: Duration = .milliseconds(500)) async {
        guard hasReplica, let monitor else { return }
        let logger = logger
        while !Task.isCancelled {
            if monitor.isAvailable {
                do {
                    // The primary first: the replica's position read after it can only be later.
                    let primary = try await primaryLSN()
                    let (replayed, recovering) = try await onReplica(deadline: .seconds(1)) { client in
                        try await client.query("SELECT coalesce(pg_last_wal_replay_lsn()::text, '0/0'), pg_is_in_recovery()",
                                               logger: logger).collect()[0].decode((String, Bool).self)
                    }
                    if let p = ReplicaLag.position(primary), let r = ReplicaLag.position(replayed) {
                        lag.record(primary: p, replayed: r, inRecovery: recovering)
                    }
                } catch {
                    logger.debug("replica lag not measured", metadata: ["error": "\(error)"])
                }
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// The replica's state for `/readyz` (from the lag watch's last sample); nil without a replica.
    public func replicaStatus() -> ReplicaStatus? {
        guard hasReplica, let monitor else { return nil }
        guard monitor.isAvailable else { return ReplicaStatus(state: "unavailable", error: monitor.unavailableReason) }
        guard let lag = lag.snapshot else { return ReplicaStatus(state: "unknown", error: "not measured yet") }
        guard lag.inRecovery else { return ReplicaStatus(state: "not-a-replica", error: "the read database is not in recovery") }
        let behind = lag.seconds > maxLag / .seconds(1)
        return ReplicaStatus(state: behind ? "lagging" : "streaming", lagBytes: lag.bytes, lagSeconds: lag.seconds,
                             error: behind ? "more than \(maxLag) behind: reads go to the primary" : nil)
    }
}
