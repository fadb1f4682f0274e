import Foundation
import Synchronization

/// How far a replica is behind its primary, in bytes of WAL and in seconds.
///
/// The seconds are the age of the oldest primary position the replica has not replayed,
/// as sampled: each sample pairs the primary's WAL position with when it was seen. So an
/// idle primary's first write counts from that write, not from the last commit the
/// replica replayed (PostgreSQL's `pg_last_xact_replay_timestamp()` would report the whole
/// idle time as lag).
final class ReplicaLag: Sendable {
    private struct State {
        var samples: [(lsn: UInt64, at: ContinuousClock.Instant)] = []
        var bytes = 0
        var seconds = 0.0
        var inRecovery = true
        var measured = false
    }

    private let state = Mutex(State())

    /// Records one sample: the primary's position now and the replica's replayed position.
    func record(primary: UInt64, replayed: UInt64, inRecovery: Bool, at now: ContinuousClock.Instant = .now) {
        state.withLock { s in
            if s.samples.last.map({ $0.lsn < primary }) ?? true { s.samples.append((primary, now)) }
            s.samples.removeAll { $0.lsn <= replayed }
            s.bytes = primary > replayed ? Int(primary - replayed) : 0
            s.seconds = s.samples.first.map { (now - $0.at) / .seconds(1) } ?? 0
            s.inRecovery = inRecovery
            s.measured = true
        }
    }

    var seconds: Double { state.withLock { $0.seconds } }

    /// Bytes and seconds behind and whether it is in recovery; nil before the first sample.
    var snapshot: (bytes: Int, seconds: Double, inRecovery: Bool)? {
        state.withLock { $0.measured ? ($0.bytes, $0.seconds, $0.inRecovery) : nil }
    }

    /// `X/Y` (PostgreSQL's text form of a WAL position) as a number.
    static func position(_ text: String) -> UInt64? {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let high = UInt64(parts[0], radix: 16), let low = UInt64(parts[1], radix: 16) else { return nil }
        return high << 32 | low
    }
}
