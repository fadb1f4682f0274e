import FollaCore
import FollaGeo
import FollaStore
import FollaTestSupport
import Foundation
import PostgresNIO

/// A presence store on a fresh database, with a clock the test moves by hand.
struct PresenceFixture: Sendable {
    let store: PresenceStore
    let client: PostgresClient
    let location: DatabaseLocation
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func run<T: Sendable>(
        policy: CheckInPolicy = .default, maxConnections: Int = 20, _ body: @Sendable (PresenceFixture) async throws -> T
    ) async throws -> T {
        try await TestCluster.withDatabase(maxConnections: maxConnections) { client, location in
            let store = PresenceStore(pool: DatabasePool(client), keyer: try DeviceKeyer(secret: "test-secret-0123456789"),
                                      policy: policy, logger: TestCluster.logger)
            return try await body(PresenceFixture(store: store, client: client, location: location))
        }
    }

    func checkIn(
        _ device: String, _ at: Coordinate, age: Int? = nil, sex: Sex? = nil, message: String? = nil,
        time: TimeInterval = 0, grids: JoinGrids = .none, establishment: Establishment = .immediate
    ) async throws -> CheckInResult {
        let demographics = age.flatMap { a in sex.map { Demographics(age: a, sex: $0) } }
        let request = CheckInRequest(
            device: try DeviceID(device), position: at, demographics: demographics,
            message: try message.map { try MessageText($0) })
        return try await store.checkIn(request, at: Self.start.addingTimeInterval(time), establishment: establishment, grids: grids)
    }

    /// Live places as id → people.
    /// Whether an emptied place has forgotten where it was.
    func anchorIsForgotten(_ id: Int64) async throws -> Bool {
        let rows = try await client.query("SELECT anchor IS NULL FROM place WHERE id = \(id)", logger: TestCluster.logger).collect()
        return try rows.first?.decode(Bool.self) ?? false
    }

    func livePlaces() async throws -> [Int64: Int] {
        var out: [Int64: Int] = [:]
        for try await (id, people) in try await client.query(
            "SELECT id, people FROM place WHERE people > 0", logger: TestCluster.logger
        ).decode((Int64, Int).self) {
            out[id] = people
        }
        return out
    }

    /// Check-ins of this database seen waiting for a lock, polled for up to 30 s until one is:
    /// a test of a race commits its first transaction only once the second waits on it
    /// (else it would pass without the race it is about).
    func checkInsWaitingForALock() async throws -> Int {
        var waiting = 0
        for _ in 0..<1200 where waiting == 0 {
            try await Task.sleep(for: .milliseconds(25))
            waiting = try await count("""
                SELECT count(*) FROM pg_stat_activity
                WHERE wait_event_type = 'Lock' AND datname = current_database() AND query LIKE '%folla_check_in%'
                """)
        }
        return waiting
    }

    /// One `folla_check_in` call as SQL, answering its outcome and place: for the tests that
    /// hold locks on one connection while another pings.
    /// - Parameters:
    ///   - device: the key, a hex byte repeated 32 times (e.g. "ab").
    ///   - seconds: the ping's time after the database's `now()`.
    ///   - establishPings: how many pings a device needs to count (1: at once).
    static func checkInCall(_ device: String, _ at: Coordinate, age: Int? = nil, sex: Int? = nil, seconds: Int = 0,
                            establishPings: Int = 1) -> PostgresQuery {
        PostgresQuery(unsafeSQL: """
            SELECT outcome, place_id FROM folla_check_in(decode(repeat('\(device)', 32), 'hex'), \(at.latitude), \(at.longitude),
                                                         \(age.map(String.init) ?? "NULL"), \(sex.map(String.init) ?? "NULL"), NULL,
                                                         now() + make_interval(secs => \(seconds)), 10, 350,
                                                         p_establish_pings => \(establishPings))
            """)
    }

    /// The outcome and place of one `folla_check_in` call run on `connection` (the tests
    /// that hold locks on one connection while another pings).
    static func outcome(_ connection: PostgresConnection, _ query: PostgresQuery) async throws -> (String, Int64) {
        try await connection.query(query, logger: TestCluster.logger).collect()[0].decode((String, Int64).self)
    }

    func count(_ sql: String) async throws -> Int {
        try await client.query(PostgresQuery(unsafeSQL: sql), logger: TestCluster.logger).collect()[0].decode(Int.self)
    }
}

/// Device ids that pass validation: 40 hex characters like an iPhone UDID.
func udid(_ n: Int) -> String {
    let hex = String(n, radix: 16)
    return String(repeating: "0", count: 40 - hex.count) + hex
}

let bologna = Coordinate(latitude: 44.4938, longitude: 11.3430)

func offset(_ from: Coordinate, bearing: Double, metres: Double) -> Coordinate {
    Geodesic.wgs84.destination(from: from, bearing: bearing, distance: metres)
}
