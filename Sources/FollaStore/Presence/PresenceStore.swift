import FollaCore
import Foundation
import Logging
import PostgresNIO

/// Device presence in PostGIS: check-in, check-out, expiry, and the invariant.
///
/// Every operation is one SQL function call (see `sql/0003_check_in.sql`), so each is one
/// round trip and one transaction; nothing is acknowledged before it is committed.
public struct PresenceStore: Sendable {
    public let client: PostgresClient
    public let keyer: DeviceKeyer
    public let policy: CheckInPolicy
    let logger: Logger

    public init(client: PostgresClient, keyer: DeviceKeyer, policy: CheckInPolicy = .default, logger: Logger) {
        self.client = client
        self.keyer = keyer
        self.policy = policy
        self.logger = logger
    }

    /// Records a ping. Throws `CheckInRefusal` (state unchanged) when a presence rule refuses it.
    public func checkIn(_ request: CheckInRequest, at now: Date) async throws -> CheckInResult {
        let key = ByteBuffer(bytes: keyer.key(for: request.device))
        let rows = try await client.query("""
            SELECT outcome, place_id, anchor_lat, anchor_lon, people, reporters, age_sum, male, female,
                   previous_place_id, distance_m, message_id, speed_mps
            FROM folla_check_in(\(key)::bytea, \(request.position.latitude)::float8, \(request.position.longitude)::float8,
                                \(request.demographics?.age)::integer, \(request.demographics?.sex.rawValue)::integer,
                                \(request.message?.text)::text, \(now)::timestamptz, \(policy.joinRadius)::float8,
                                \(policy.maxSpeed)::float8)
            """, logger: logger)
        for try await row in rows {
            let (outcome, placeID, lat, lon, people, reporters, ageSum, male, female, previous, distance, messageID, speed)
                = try row.decode(
                    (String, Int64?, Double?, Double?, Int?, Int?, Int?, Int?, Int?, Int64?, Double?, Int64?, Double?).self)
            if outcome == "refused" {
                throw CheckInRefusal.teleport(speed: speed ?? .infinity, limit: policy.maxSpeed)
            }
            guard let kind = CheckInOutcome(rawValue: outcome), let placeID, let lat, let lon else {
                throw StoreError.unexpected("folla_check_in returned outcome \(outcome)")
            }
            let stats = PlaceStats(people: people ?? 0, reporters: reporters ?? 0, ageSum: ageSum ?? 0,
                                   male: male ?? 0, female: female ?? 0)
            return CheckInResult(
                outcome: kind, place: PlaceSnapshot(id: placeID, anchor: Coordinate(latitude: lat, longitude: lon), stats: stats),
                previousPlaceID: previous == placeID ? nil : previous, distanceToAnchor: distance ?? 0,
                messageID: messageID, at: now)
        }
        throw StoreError.unexpected("folla_check_in returned no row")
    }

    /// Checks a device out at once and erases it. Returns false when the device was unknown.
    @discardableResult
    public func checkOut(_ device: DeviceID, at now: Date) async throws -> Bool {
        let key = ByteBuffer(bytes: keyer.key(for: device))
        let rows = try await client.query("SELECT existed FROM folla_check_out(\(key)::bytea, \(now)::timestamptz)", logger: logger)
        for try await existed in rows.decode(Bool.self) { return existed }
        return false
    }

    /// Expires presence older than the TTL in batches; returns how many devices expired.
    @discardableResult
    public func expire(at now: Date, batchSize: Int = 1000) async throws -> Int {
        try await drain(batchSize) { "SELECT folla_expire(\(now)::timestamptz, \(policy.presenceTTL)::float8, \($0)::integer)" }
    }

    /// Erases devices gone for longer than the retention period; returns how many.
    @discardableResult
    public func forget(at now: Date, batchSize: Int = 1000) async throws -> Int {
        try await drain(batchSize) { "SELECT folla_forget(\(now)::timestamptz, \(policy.retention)::float8, \($0)::integer)" }
    }

    /// Repeats a batch statement (one short transaction each, so check-ins never wait
    /// long behind a sweep) until a batch comes back short.
    private func drain(_ batchSize: Int, _ statement: (Int) -> PostgresQuery) async throws -> Int {
        var total = 0
        while true {
            let n = try await scalar(statement(batchSize))
            total += n
            if n < batchSize { return total }
        }
    }

    /// Places whose counters disagree with their live devices (empty when all is well).
    public func invariantViolations() async throws -> [InvariantViolation] {
        let rows = try await client.query("""
            SELECT place_id, people, live_people, reporters, live_reporters, age_sum, live_age_sum,
                   male, live_male, female, live_female
            FROM folla_invariant_violations ORDER BY place_id
            """, logger: logger)
        var out: [InvariantViolation] = []
        for try await (id, p, lp, r, lr, a, la, m, lm, f, lf) in rows.decode(
            (Int64, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int).self)
        {
            out.append(InvariantViolation(
                placeID: id,
                stored: PlaceStats(people: p, reporters: r, ageSum: a, male: m, female: f),
                live: PlaceStats(people: lp, reporters: lr, ageSum: la, male: lm, female: lf)))
        }
        return out
    }

    private func scalar(_ query: PostgresQuery) async throws -> Int {
        for try await n in try await client.query(query, logger: logger).decode(Int.self) { return n }
        return 0
    }
}

/// A place whose stored counters differ from the sum over its live devices.
public struct InvariantViolation: Sendable, Hashable, CustomStringConvertible {
    public var placeID: Int64
    public var stored: PlaceStats
    public var live: PlaceStats

    public var description: String {
        "place \(placeID): stored people=\(stored.people) reporters=\(stored.reporters) age_sum=\(stored.ageSum) male=\(stored.male) female=\(stored.female); "
            + "live people=\(live.people) reporters=\(live.reporters) age_sum=\(live.ageSum) male=\(live.male) female=\(live.female)"
    }
}

public enum StoreError: Error, CustomStringConvertible {
    case unexpected(String)
    public var description: String {
        switch self {
        case .unexpected(let m): "unexpected database answer: \(m)"
        }
    }
}
