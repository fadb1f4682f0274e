import FollaCore
import Foundation
import PostgresNIO

/// One batch of check-ins: `folla_check_in_batch_committed` (SQL/0034), which runs
/// `folla_check_in_batch` (SQL/0010, SQL/0012, SQL/0020) and commits before it answers, its
/// binds and its answer's shape: one row of arrays, one entry per ping.
///
/// One round trip where BEGIN, the statement and COMMIT took three: each was a wake-up of
/// the lane's task on an event loop busy with HTTP, on the path every check-in of the lane
/// waits behind (SQL/0034 says why the statement alone would not do).
///
/// A prepared statement, parsed and planned once per connection. Sent as a plain query,
/// the call cost PostgreSQL a parse and a plan every batch: with `tools/bench`'s
/// `checkin.pgbench`, the same call prepared took 0.31–0.33 ms of the box's CPU per check-in
/// against 0.40–0.47 unprepared (pgbench `-M prepared` against `-M extended`), and the
/// Bologna evening's batches hold only 2–10 pings each.
struct CheckInBatchStatement: CommittingStatement {
    /// A ping's position in the batch (0-based) and what became of it.
    typealias Entry = (index: Int, result: Result<CheckInResult, CheckInRefusal>)
    /// The answer's one row: an entry per ping.
    typealias Row = [Entry]

    /// The statement's name on each connection. Named here, not by PostgresNIO's default
    /// (`String(reflecting:)` of the type, worked out again for every batch: 0.8 % of the
    /// server's CPU in a check-in benchmark).
    static let name = "folla_check_in_batch_committed"

    static let sql = """
        CALL folla_check_in_batch_committed($1::bytea[], $2::float8[], $3::float8[], $4::integer[], $5::integer[],
                                            $6::text[], $7::bytea[], $8::timestamptz[], $9::float8, $10::float8,
                                            $11::float8[], $12::integer[], $13::integer[], $14::float8[], $15::float8[],
                                            $16::float8[], $17::boolean,
                                            NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                            NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
        """

    /// The pings, in order.
    let pings: [PendingCheckIn]
    /// The join radius and the speed limit.
    let policy: CheckInPolicy
    /// Whether the batch commits (false: a rehearsal inside a transaction the caller rolls back).
    var commits = true

    func makeBindings() throws -> PostgresBindings {
        // NULLs do not travel in PostgresNIO's arrays: -1, '' and an empty bytea stand for them.
        var b = PostgresBindings(capacity: 17)
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
        b.append(commits)
        return b
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let columns = try Columns(row)
        return try columns.ordinals.indices.map { entry in
            guard let ordinal = columns.ordinals[entry], pings.indices.contains(ordinal - 1) else {
                throw StoreError.unexpected("folla_check_in_batch returned ordinal \(columns.ordinals[entry].map(String.init) ?? "NULL")")
            }
            return (ordinal - 1, try Self.result(columns, entry, at: pings[ordinal - 1].now))
        }
    }

    /// The answer's arrays, by column, each as long as the batch's rows.
    private struct Columns {
        let ordinals: [Int?], refusals: [String?], refusalDetails: [String?], outcomes: [String?]
        let placeIDs: [Int64?], anchorLats: [Double?], anchorLons: [Double?]
        let people: [Int?], reporters: [Int?], ageSums: [Int?], males: [Int?], females: [Int?]
        let previousPlaceIDs: [Int64?], distances: [Double?], messageIDs: [Int64?], established: [Bool?]

        init(_ row: PostgresRow) throws {
            let c = row.makeRandomAccess()
            func column<T: PostgresDecodable>(_ name: String, _: T.Type = T.self) throws -> [T?] where T._DecodableType == T {
                try c[name].decode(NullableArray<T>?.self)?.elements ?? []
            }
            ordinals = try column("ordinals"); refusals = try column("refusals"); refusalDetails = try column("refusal_details")
            outcomes = try column("outcomes"); placeIDs = try column("place_ids"); anchorLats = try column("anchor_lats")
            anchorLons = try column("anchor_lons"); people = try column("peoples"); reporters = try column("reporters")
            ageSums = try column("age_sums"); males = try column("males"); females = try column("females")
            previousPlaceIDs = try column("previous_place_ids"); distances = try column("distances_m")
            messageIDs = try column("message_ids"); established = try column("established")
            let counts = [refusals.count, refusalDetails.count, outcomes.count, placeIDs.count, anchorLats.count, anchorLons.count,
                          people.count, reporters.count, ageSums.count, males.count, females.count, previousPlaceIDs.count,
                          distances.count, messageIDs.count, established.count]
            guard counts.allSatisfy({ $0 == ordinals.count }) else {
                throw StoreError.unexpected("folla_check_in_batch_committed answered arrays of lengths \([ordinals.count] + counts)")
            }
        }
    }

    /// One ping's entry, by column.
    private static func result(_ c: Columns, _ i: Int, at now: Date) throws -> Result<CheckInResult, CheckInRefusal> {
        if let state = c.refusals[i] {
            guard let refusal = PresenceStore.refusal(sqlState: state, detail: c.refusalDetails[i]) else {
                throw StoreError.unexpected("folla_check_in_batch refused with \(state)")
            }
            return .failure(refusal)
        }
        let outcome = c.outcomes[i]
        if outcome == "refused" { return .failure(.teleport) }
        guard let outcome, let kind = CheckInOutcome(rawValue: outcome), let placeID = c.placeIDs[i],
              let lat = c.anchorLats[i], let lon = c.anchorLons[i]
        else { throw StoreError.unexpected("folla_check_in returned outcome \(outcome ?? "NULL")") }
        let stats = PlaceStats(people: c.people[i] ?? 0, reporters: c.reporters[i] ?? 0, ageSum: c.ageSums[i] ?? 0,
                               male: c.males[i] ?? 0, female: c.females[i] ?? 0)
        let previous = c.previousPlaceIDs[i]
        return .success(CheckInResult(
            outcome: kind, place: PlaceSnapshot(id: placeID, anchor: Coordinate(latitude: lat, longitude: lon), stats: stats),
            previousPlaceID: previous == placeID ? nil : previous, distanceToAnchor: c.distances[i] ?? 0,
            messageID: c.messageIDs[i], at: now, established: c.established[i] ?? false))
    }
}
