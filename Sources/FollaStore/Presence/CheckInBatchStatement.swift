import FollaCore
import Foundation
import PostgresNIO

/// One batch of check-ins: `folla_check_in_batch` (SQL/0010, SQL/0012, SQL/0020), its binds
/// and its row shape.
///
/// A prepared statement, parsed and planned once per connection. Sent as a plain query,
/// the call cost PostgreSQL a parse and a plan every batch: with `tools/bench`'s
/// `checkin.pgbench`, the same call prepared took 0.31–0.33 ms of the box's CPU per check-in
/// against 0.40–0.47 unprepared (pgbench `-M prepared` against `-M extended`), and the
/// Bologna evening's batches hold only 2–10 pings each.
struct CheckInBatchStatement: PostgresPreparedStatement {
    /// The ping's position in the batch (0-based) and what became of it.
    typealias Row = (index: Int, result: Result<CheckInResult, CheckInRefusal>)

    static let sql = """
        SELECT ordinal, refusal, refusal_detail, outcome, place_id, anchor_lat, anchor_lon, people, reporters,
               age_sum, male, female, previous_place_id, distance_m, message_id, established
        FROM folla_check_in_batch($1::bytea[], $2::float8[], $3::float8[], $4::integer[], $5::integer[], $6::text[],
                                  $7::bytea[], $8::timestamptz[], $9::float8, $10::float8, $11::float8[],
                                  $12::integer[], $13::integer[], $14::float8[], $15::float8[], $16::float8[])
        """

    /// The pings, in order.
    let pings: [PendingCheckIn]
    /// The join radius and the speed limit.
    let policy: CheckInPolicy

    func makeBindings() throws -> PostgresBindings {
        // NULLs do not travel in PostgresNIO's arrays: -1, '' and an empty bytea stand for them.
        var b = PostgresBindings(capacity: 16)
        b.append(pings.map { ByteBuffer(bytes: $0.key) })
        b.append(pings.map(\.request.position.latitude))
        b.append(pings.map(\.request.position.longitude))
        b.append(pings.map { $0.request.demographics?.age ?? -1 })
        b.append(pings.map { $0.request.demographics?.sex.rawValue ?? -1 })
        b.append(pings.map { $0.request.message?.text ?? "" })
        b.append(pings.map { ByteBuffer(bytes: $0.network ?? []) })
        b.append(pings.map(\.now))
        b.append(policy.joinRadius)
        b.append(policy.maxSpeed)
        b.append(pings.map(\.establishment.after))
        b.append(pings.map(\.establishment.pings))
        b.append(pings.map(\.budgets.newDevices))
        b.append(pings.map(\.budgets.window))
        b.append(pings.map(\.grids.cellMetres))
        b.append(pings.map(\.grids.anchorMetres))
        return b
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let c = row.makeRandomAccess()
        let i = try c["ordinal"].decode(Int.self) - 1
        guard pings.indices.contains(i) else { throw StoreError.unexpected("folla_check_in_batch returned ordinal \(i + 1)") }
        return (i, try Self.result(c, at: pings[i].now))
    }

    /// One row, by column.
    private static func result(_ c: PostgresRandomAccessRow, at now: Date) throws -> Result<CheckInResult, CheckInRefusal> {
        if let state = try c["refusal"].decode(String?.self) {
            guard let refusal = PresenceStore.refusal(sqlState: state, detail: try c["refusal_detail"].decode(String?.self)) else {
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
