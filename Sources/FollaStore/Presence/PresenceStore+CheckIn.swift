import FollaCore
import Foundation
import Logging
import PostgresNIO

/// One ping on its way to a batch: everything `folla_check_in` takes.
struct PendingCheckIn: Sendable {
    var key: [UInt8]
    var request: CheckInRequest
    var now: Date
    var network: [UInt8]?
    var establishment: Establishment
    var budgets: ClientBudgets

    /// Pings of one ~1 km area (0.01° by 0.01°, the areas `folla_check_in_batch` locks in
    /// SQL/0012) share a writer: they lock the same place rows, and two batches in flight
    /// that locked them in opposite orders would deadlock.
    ///
    /// Side-by-side areas go to different writers (the key is the sum of the area's row and
    /// column, so neighbours differ by one: a checkerboard with two lanes), since a city's
    /// hotspots sit in neighbouring areas. A hash spread them at random, and with a
    /// per-process seed: in some runs the Bologna evening's two busiest areas shared one of
    /// the two writers and its check-ins queued for seconds, in others not.
    var lane: Int {
        let row = Int((request.position.latitude * 100).rounded(.down))
        let column = Int((request.position.longitude * 100).rounded(.down))
        return row &+ column
    }
}

extension PresenceStore {
    /// Records a ping, committed in a batch with the pings that arrived meanwhile (see
    /// `GroupCommit`). Throws `CheckInRefusal` (state unchanged) when a presence rule or the
    /// client network's budget refuses it.
    ///
    /// - Parameters:
    ///   - request: the validated ping.
    ///   - now: the application's clock.
    ///   - network: the client network's key (`DeviceKeyer.networkKey`), nil when unknown.
    ///   - establishment: when the device starts to count.
    ///   - budgets: how many new ids one network may create per window.
    public func checkIn(_ request: CheckInRequest, at now: Date, network: [UInt8]? = nil,
                        establishment: Establishment = .immediate, budgets: ClientBudgets = .unlimited) async throws -> CheckInResult {
        let ping = PendingCheckIn(key: keyer.key(for: request.device), request: request, now: now, network: network,
                                  establishment: establishment, budgets: budgets)
        return try await writes.submit(ping, lane: ping.lane).get()
    }

    /// One batch: `folla_check_in_batch` (SQL/0010) in one transaction, one row per ping.
    static func write(_ pings: [PendingCheckIn], client: PostgresClient, policy: CheckInPolicy,
                      logger: Logger) async throws -> [Result<CheckInResult, CheckInRefusal>] {
        // NULLs do not travel in PostgresNIO's arrays: -1, '' and an empty bytea stand for them.
        let keys = pings.map { ByteBuffer(bytes: $0.key) }
        let lats = pings.map(\.request.position.latitude), lons = pings.map(\.request.position.longitude)
        let ages = pings.map { $0.request.demographics?.age ?? -1 }
        let sexes = pings.map { $0.request.demographics?.sex.rawValue ?? -1 }
        let messages = pings.map { $0.request.message?.text ?? "" }
        let networks = pings.map { ByteBuffer(bytes: $0.network ?? []) }
        let nows = pings.map(\.now)
        let after = pings.map(\.establishment.after), times = pings.map(\.establishment.pings)
        let newDevices = pings.map(\.budgets.newDevices), windows = pings.map(\.budgets.window)
        let query: PostgresQuery = """
            SELECT ordinal, refusal, refusal_detail, outcome, place_id, anchor_lat, anchor_lon, people, reporters,
                   age_sum, male, female, previous_place_id, distance_m, message_id, established
            FROM folla_check_in_batch(\(keys)::bytea[], \(lats)::float8[], \(lons)::float8[], \(ages)::integer[],
                                      \(sexes)::integer[], \(messages)::text[], \(networks)::bytea[], \(nows)::timestamptz[],
                                      \(policy.joinRadius)::float8, \(policy.maxSpeed)::float8, \(after)::float8[],
                                      \(times)::integer[], \(newDevices)::integer[], \(windows)::float8[])
            """
        let rows = try await client.committed(query, logger: logger)
        var results = [Result<CheckInResult, CheckInRefusal>?](repeating: nil, count: pings.count)
        for row in rows {
            let c = row.makeRandomAccess()
            let i = try c["ordinal"].decode(Int.self) - 1
            guard results.indices.contains(i) else { throw StoreError.unexpected("folla_check_in_batch returned ordinal \(i + 1)") }
            results[i] = try decodeCheckIn(c, at: pings[i].now)
        }
        return try results.map { result in
            guard let result else { throw StoreError.unexpected("folla_check_in_batch left a ping out") }
            return result
        }
    }

    /// One row of `folla_check_in_batch`, by column.
    private static func decodeCheckIn(_ c: PostgresRandomAccessRow, at now: Date) throws -> Result<CheckInResult, CheckInRefusal> {
        if let state = try c["refusal"].decode(String?.self) {
            guard let refusal = refusal(sqlState: state, detail: try c["refusal_detail"].decode(String?.self)) else {
                throw StoreError.unexpected("folla_check_in_batch refused with \(state)")
            }
            return .failure(refusal)
        }
        let outcome = try c["outcome"].decode(String?.self)
        if outcome == "refused" { return .failure(.teleport) }
        guard let outcome, let kind = CheckInOutcome(rawValue: outcome), let placeID = try c["place_id"].decode(Int64?.self),
              let lat = try c["anchor_lat"].decode(Double?.self), let lon = try c["anchor_lon"].decode(Double?.self)
        else { throw StoreError.unexpected("folla_check_in returned outcome \(outcome ?? "NULL")") }
        let stats = PlaceStats(people: try c["people"].decode(Int?.self) ?? 0, reporters: try c["reporters"].decode(Int?.self) ?? 0,
                               ageSum: try c["age_sum"].decode(Int?.self) ?? 0, male: try c["male"].decode(Int?.self) ?? 0,
                               female: try c["female"].decode(Int?.self) ?? 0)
        let previous = try c["previous_place_id"].decode(Int64?.self)
        return .success(CheckInResult(
            outcome: kind, place: PlaceSnapshot(id: placeID, anchor: Coordinate(latitude: lat, longitude: lon), stats: stats),
            previousPlaceID: previous == placeID ? nil : previous, distanceToAnchor: try c["distance_m"].decode(Double?.self) ?? 0,
            messageID: try c["message_id"].decode(Int64?.self), at: now, established: try c["established"].decode(Bool?.self) ?? false))
    }
}
