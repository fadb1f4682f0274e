import FollaCore
import Foundation
import Logging
import PostgresNIO

/// Device presence in PostGIS: check-in, check-out, expiry, and the invariant.
///
/// Every operation is SQL function calls (see `SQL/0003_check_in.sql` and its successors)
/// in one transaction; nothing is acknowledged before it is committed. Check-ins are
/// group-committed (`PresenceStore+CheckIn.swift`).
public struct PresenceStore: Sendable {
    /// Read for every statement: the pool is renewed after an outage.
    public var client: PostgresClient { pool.client }
    public let pool: DatabasePool
    public let keyer: DeviceKeyer
    public let policy: CheckInPolicy
    let logger: Logger
    /// Check-ins waiting for, or in, a batch.
    let writes: GroupCommit<PendingCheckIn, Result<CheckInResult, CheckInRefusal>>

    /// - Parameters:
    ///   - pool: where the statements go.
    ///   - keyer: turns device ids into the keys stored.
    ///   - policy: join radius, speed limit, TTL and retention.
    ///   - writers: check-in batches in flight at once (by area: nearby pings share one).
    ///   - batch: the most check-ins in one batch.
    ///   - linger: how long an idle writer waits for more check-ins before its batch.
    public init(pool: DatabasePool, keyer: DeviceKeyer, policy: CheckInPolicy = .default,
                writers: Int = 2, batch: Int = 32, linger: Duration = .zero, logger: Logger) {
        self.pool = pool
        self.keyer = keyer
        self.policy = policy
        self.logger = logger
        // A lock someone else holds, or a read-only database, meets the lane's next batches too.
        self.writes = GroupCommit(lanes: writers, maxBatch: batch, linger: linger, failsQueue: { PSQLError.refusalReason(of: $0) != nil }) {
            [pool, policy, logger] pings in
            try await Self.write(pings, client: pool.client, policy: policy, logger: logger)
        }
    }

    /// Turns the SQL functions' refusals into `CheckInRefusal`: FL429 (a network's budget
    /// of new ids spent; seconds to wait in DETAIL) and FL403 (a message from a device not
    /// yet established). The transaction was rolled back: nothing was written.
    static func translatingRefusals<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            let failure = PSQLError.statementError(error)
            guard let sql = failure as? PSQLError else { throw failure }
            guard let refusal = refusal(sqlState: sql.serverInfo?[.sqlState], detail: sql.serverInfo?[.detail]) else { throw failure }
            throw refusal
        }
    }

    /// The refusal an SQLSTATE of ours stands for, nil for any other: FL429 (the network's
    /// budget spent; seconds to wait in the detail) and FL403 (not established).
    static func refusal(sqlState: String?, detail: String?) -> CheckInRefusal? {
        switch sqlState {
        case "FL429": .budget(retryAfter: max(1, Int(detail ?? "") ?? 60))
        case "FL403": .notEstablished
        default: nil
        }
    }

    /// Checks a device out at once and erases it. Returns false when the device was unknown.
    @discardableResult
    public func checkOut(_ device: DeviceID, at now: Date) async throws -> Bool {
        let key = ByteBuffer(bytes: keyer.key(for: device))
        let rows = try await client.committed("SELECT existed FROM folla_check_out(\(key)::bytea, \(now)::timestamptz)", logger: logger)
        return try rows.first?.decode(Bool.self) ?? false
    }

    /// Expires presence older than the TTL in batches; returns how many devices expired.
    @discardableResult
    public func expire(at now: Date, batchSize: Int = 1000) async throws -> Int {
        try await drain(batchSize) { "SELECT folla_expire(\(now)::timestamptz, \(policy.presenceTTL)::float8, \($0)::integer)" }
    }

    /// Shows every place's live count and anchor to readers (`SQL/0029`), once per minute:
    /// what moved within a minute shows at its turn, whenever in the minute it moved (shown
    /// at the write, a lone person's cell told their establishing ping, check-out and moves
    /// to ~0.2 s). Nothing to do while counts show at once (k = 1). A place of k or more
    /// also shows the newest minute its people then in it pinged in (`SQL/0030`).
    ///
    /// In batches that wait for no lock (a place a check-in holds is skipped, and taken on a
    /// later pass once its batch has committed), so that it cannot deadlock with check-ins.
    /// The passes take only the places the claim marked: what changes meanwhile shows at
    /// the next minute.
    ///
    /// Stats snapshots (`SQL/0024`) are taken here too, the moment each place's counts are:
    /// the unmarked places' right after the claim, the marked ones' as they are shown. Taken
    /// at any other sweep, a new place's first counted a passer-by the counts never showed.
    /// - Parameters:
    ///   - minute: the current whole minute; a second call for it, from this instance or
    ///     another, does nothing.
    ///   - bucket: the current stats period (`PrivacyPolicy.statsBucket(at:)`).
    /// - Returns: how many marked places were taken (shown, or retired since); nil when the
    ///   minute was shown already.
    @discardableResult
    public func showCounts(minute: Date, bucket: Int64, batchSize: Int = 1000) async throws -> Int? {
        guard try await flag("SELECT folla_claim_counts(\(minute)::timestamptz)") else { return nil }
        try await snapshotStats(bucket: bucket, batchSize: batchSize)
        var total = 0
        // For a second at most: places a check-in holds are free again within milliseconds;
        // what is left shows next minute.
        let end = ContinuousClock.now + .seconds(1)
        repeat {
            let n = try await scalar("SELECT folla_show_counts(\(batchSize)::integer, \(minute)::timestamptz, \(bucket)::bigint)")
            total += n
            if n > 0 { continue }
            guard try await flag("SELECT folla_counts_pending(\(minute)::timestamptz)") else { break }
            try await Task.sleep(for: .milliseconds(20))
        } while ContinuousClock.now < end
        return total
    }

    /// Deletes messages past `messageRetention`, emptied places nothing points to, and spent
    /// budget windows; returns how many rows went. Also drops old place touches
    /// (`PlaceChanges.purgeSQL`), not counted.
    @discardableResult
    public func retire(at now: Date, messageRetention: TimeInterval, budgetWindow: TimeInterval, batchSize: Int = 1000) async throws -> Int {
        let retired = try await drain(batchSize) {
            "SELECT folla_retire(\(now)::timestamptz, \(messageRetention)::float8, \(budgetWindow)::float8, \($0)::integer)"
        }
        _ = try await client.query(PlaceChanges.purgeSQL(), logger: logger).collect()
        return retired
    }

    /// Takes the stats snapshot of period `bucket` of every live place shown to readers and
    /// not marked for the minute's showing that has an older one (`SQL/0024`, `SQL/0030`);
    /// returns how many places it took. ``showCounts(minute:bucket:batchSize:)`` calls it.
    /// - Parameter bucket: the period's index (`PrivacyPolicy.statsBucket(at:)`).
    @discardableResult
    public func snapshotStats(bucket: Int64, batchSize: Int = 1000) async throws -> Int {
        try await drain(batchSize) { "SELECT folla_snapshot_stats(\(bucket)::bigint, \($0)::integer)" }
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
                   male, live_male, female, live_female, counted, live_counted, mix, live_mix
            FROM folla_invariant_violations ORDER BY place_id
            """, logger: logger)
        var out: [InvariantViolation] = []
        for try await row in rows {
            let c = row.makeRandomAccess()
            func stats(_ prefix: String) throws -> PlaceStats {
                PlaceStats(people: try c[prefix + "people"].decode(Int.self), reporters: try c[prefix + "reporters"].decode(Int.self),
                           ageSum: try c[prefix + "age_sum"].decode(Int.self), male: try c[prefix + "male"].decode(Int.self),
                           female: try c[prefix + "female"].decode(Int.self))
            }
            out.append(InvariantViolation(
                placeID: try c["place_id"].decode(Int64.self), stored: try stats(""), live: try stats("live_"),
                storedCounted: try c["counted"].decode(Int.self), liveCounted: try c["live_counted"].decode(Int.self),
                mixAgrees: try c["mix"].decode(Int64.self) == c["live_mix"].decode(Int64.self)))
        }
        return out
    }

    /// One write statement's single integer, once committed.
    private func scalar(_ query: PostgresQuery) async throws -> Int {
        try await client.committed(query, logger: logger).first?.decode(Int.self) ?? 0
    }

    private func flag(_ query: PostgresQuery) async throws -> Bool {
        try await client.committed(query, logger: logger).first?.decode(Bool.self) ?? false
    }
}

/// A place whose stored counters differ from the sum over its live devices.
public struct InvariantViolation: Sendable, Hashable, CustomStringConvertible {
    public var placeID: Int64
    public var stored: PlaceStats
    public var live: PlaceStats
    /// Established people: stored, and summed over live devices.
    public var storedCounted: Int
    public var liveCounted: Int
    /// Whether the stored reporters' mix equals the XOR over live reporters.
    public var mixAgrees: Bool

    public var description: String {
        "place \(placeID): stored people=\(stored.people) counted=\(storedCounted) reporters=\(stored.reporters) age_sum=\(stored.ageSum) male=\(stored.male) female=\(stored.female); "
            + "live people=\(live.people) counted=\(liveCounted) reporters=\(live.reporters) age_sum=\(live.ageSum) male=\(live.male) female=\(live.female)"
            + (mixAgrees ? "" : "; the reporters' mix differs")
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
