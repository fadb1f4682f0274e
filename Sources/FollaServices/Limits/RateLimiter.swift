import Foundation
import Synchronization

/// A sliding-window limit per key: at most `limit` events in any `window` seconds.
///
/// In-process state only (DESIGN: caches and rate-limit counters are all a server keeps),
/// so behind a load balancer each instance enforces its own share. Keys are device HMACs,
/// never raw ids. Old keys are pruned as the map grows.
public final class RateLimiter: Sendable {
    public let limit: Int
    public let window: TimeInterval
    private let state = Mutex<[String: [Date]]>([:])

    public init(limit: Int, window: TimeInterval) {
        self.limit = max(1, limit)
        self.window = window
    }

    /// Records an event for `key` at `now` if allowed; otherwise returns the seconds until
    /// the oldest event in the window leaves it (for `Retry-After`).
    public func acquire(_ key: String, at now: Date) -> TimeInterval? {
        state.withLock { map in
            let cutoff = now.addingTimeInterval(-window)
            var events = (map[key] ?? []).filter { $0 > cutoff }
            if events.count >= limit {
                map[key] = events
                return max(1, events[0].timeIntervalSince(cutoff))
            }
            events.append(now)
            map[key] = events
            if map.count > 100_000 {
                map = map.filter { $0.value.last.map { $0 > cutoff } ?? false }
            }
            return nil
        }
    }
}
