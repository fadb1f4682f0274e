import FollaAPI
import FollaCore
import FollaStore
import FollaTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import PostgresNIO

/// The real application (router, codecs, store) on a fresh PostGIS database.
struct AppFixture: Sendable {
    let client: any TestClientProtocol
    let db: PostgresClient
    let clock: ManualClock

    static func run(
        _ setup: TestingSetup = .router, k: Int = 1, _ body: @Sendable @escaping (AppFixture) async throws -> Void
    ) async throws {
        try await TestCluster.withDatabase { db, _ in
            let clock = ManualClock()
            let presence = PresenceStore(client: db, keyer: try DeviceKeyer(secret: "api-test-secret-0123456789"), logger: TestCluster.logger)
            let deps = AppDependencies(
                presence: presence,
                places: PlaceReads(client: db, logger: TestCluster.logger),
                privacy: PrivacyPolicy(k: k),
                readiness: ReadinessProbe(client: db, migrator: try Migrator.bundled(), logger: TestCluster.logger),
                clock: clock)
            let app = Application(router: buildRouter(deps), configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                                  logger: TestCluster.logger)
            try await app.test(setup) { client in
                try await body(AppFixture(client: client, db: db, clock: clock))
            }
        }
    }

    func post(_ path: String, _ body: String, contentType: String = "application/json") async throws -> TestResponse {
        try await client.execute(uri: path, method: .post, headers: [.contentType: contentType], body: ByteBuffer(string: body))
    }

    func post(_ path: String, bytes: [UInt8], contentType: String) async throws -> TestResponse {
        try await client.execute(uri: path, method: .post, headers: [.contentType: contentType], body: ByteBuffer(bytes: bytes))
    }

    func json(_ response: TestResponse) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any] ?? [:]
    }

    /// Rows in every presence table: what "nothing changed" is checked against.
    func rowCounts() async throws -> [Int] {
        let rows = try await db.query(
            "SELECT (SELECT count(*) FROM device)::int, (SELECT count(*) FROM place)::int, (SELECT count(*) FROM message)::int",
            logger: TestCluster.logger).collect()
        let (d, p, m) = try rows[0].decode((Int, Int, Int).self)
        return [d, p, m]
    }
}

let udidA = "f00dfacef00dfacef00dfacef00dfacef00dface"
