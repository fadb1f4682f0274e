import FollaCore
import Synchronization

/// What the server has acknowledged about each phone: its last accepted position and when,
/// and when it was first seen and how often, to know when the server starts counting it
/// (the privacy policy's establishment rule, applied exactly as the server applies it).
/// Only 2xx answers move it, so a refused ping does not count as a move or as a ping.
public final class GroundTruth: Sendable {
    struct Record {
        var position: Coordinate
        var last: Double
        var first: Double
        var acks: Int
        /// The time of the ack that made it established, if any.
        var establishedAt: Double?
        /// How that ping stood against the rule's time, in seconds (0 = exactly at it):
        /// the server measures with its own clock, so a ping near the line is uncertain.
        var establishedBy: Double = .infinity
    }

    private let state = Mutex<[Int: Record]>([:])
    /// The server's rule (immediate at k = 1).
    public let rule: Establishment
    /// How far the server's clock may stand from the simulator's due times (latency).
    public let clockSlack: Double

    public init(rule: Establishment = .immediate, clockSlack: Double = 5) {
        self.rule = rule
        self.clockSlack = clockSlack
    }

    /// Whether the server counts the phone if it pings now: certainly, certainly not, or maybe.
    public enum Standing: Sendable { case counted, notYet, uncertain }

    public func standing(phone: Int, at time: Double) -> Standing {
        state.withLock { map in Self.standing(map[phone], at: time, rule: rule, slack: clockSlack) }
    }

    static func standing(_ r: Record?, at time: Double, rule: Establishment, slack: Double) -> Standing {
        if let r, r.establishedAt != nil { return r.establishedBy > slack ? .counted : .uncertain }
        let acks = (r?.acks ?? 0) + 1
        guard acks >= rule.pings else { return .notYet }
        let margin = time - (r?.first ?? time) - rule.after
        return margin > slack ? .counted : margin < -slack ? .notYet : .uncertain
    }

    public func accepted(phone: Int, at c: Coordinate, time: Double) {
        state.withLock { map in
            var r = map[phone] ?? Record(position: c, last: time, first: time, acks: 0)
            if r.establishedAt == nil, r.acks + 1 >= rule.pings {
                let margin = time - r.first - rule.after
                if margin >= -clockSlack {
                    r.establishedAt = time
                    r.establishedBy = margin
                }
            }
            r.position = c
            r.last = time
            r.acks += 1
            map[phone] = r
        }
    }

    /// Seconds from first accepted ping to establishment, for every phone that counts.
    public func establishDelays() -> [Double] {
        state.withLock { $0.values.compactMap { r in r.establishedAt.map { $0 - r.first } } }
    }

    /// Phones with an accepted ping within the TTL, counted or not.
    public func liveCount(at now: Double, ttl: Double) -> Int {
        state.withLock { $0.values.filter { now - $0.last < ttl }.count }
    }

    /// A check-out erases the device: if it comes back, it is new again.
    public func checkedOut(phone: Int) {
        state.withLock { $0[phone] = nil }
    }

    /// Phones the server must count at `now`, and those it may or may not count (near the
    /// TTL, or near the establishment line).
    public func live(at now: Double, ttl: Double, margin: Double = 15) -> (certain: [Coordinate], uncertain: [Coordinate]) {
        state.withLock { map in
            var certain: [Coordinate] = [], uncertain: [Coordinate] = []
            for r in map.values {
                guard r.establishedAt != nil else { continue }
                let age = now - r.last
                let sure = r.establishedBy > clockSlack
                if age < ttl - margin && sure { certain.append(r.position) }
                else if age <= ttl + margin { uncertain.append(r.position) }
            }
            return (certain, uncertain)
        }
    }
}
