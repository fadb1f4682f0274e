import FollaCore
import Synchronization

/// What the server has acknowledged about each phone: its last accepted position and when.
/// Only 2xx answers move it, so a refused (hostile) ping does not count as a move.
public final class GroundTruth: Sendable {
    private let state = Mutex<[Int: (Coordinate, Double)]>([:])

    public init() {}

    public func accepted(phone: Int, at c: Coordinate, time: Double) {
        state.withLock { $0[phone] = (c, time) }
    }

    public func checkedOut(phone: Int) {
        state.withLock { $0[phone] = nil }
    }

    /// Phones the server must count at `now`, and those too close to the TTL to be sure of.
    public func live(at now: Double, ttl: Double, margin: Double = 15) -> (certain: [Coordinate], uncertain: [Coordinate]) {
        state.withLock { map in
            var certain: [Coordinate] = [], uncertain: [Coordinate] = []
            for (c, t) in map.values {
                let age = now - t
                if age < ttl - margin { certain.append(c) } else if age <= ttl + margin { uncertain.append(c) }
            }
            return (certain, uncertain)
        }
    }
}
