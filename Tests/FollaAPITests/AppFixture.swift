import FollaAPI
import FollaCore
import FollaServices
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
    let deps: AppDependencies

    static func run(
        _ setup: TestingSetup = .router, k: Int = 1, messageRate: Int = 1000,
        messagePolicy: MessagePolicy = MessagePolicy(reportThreshold: 3, blockedWords: ["spam", "truffa"]),
        wallCacheSeconds: Int = 0, budgets: ClientBudgets = .init(), maxConnections: Int = 20, cors: CORSPolicy = .init(), metrics: Bool = false,
        answerFloor: Duration? = nil, streamsPerNetwork: Int = 32, streamDuration: Duration = .milliseconds(1500),
        _ body: @Sendable @escaping (AppFixture) async throws -> Void
    ) async throws {
        try await TestCluster.withDatabase(maxConnections: maxConnections) { db, location in
            // A CI box running every test at once can stall a probe, or `/readyz`, for seconds:
            // that is not an outage (the outage tests run the real binary with the real settings).
            var patient = DatabaseMonitor.Settings()
            patient.deadline = .seconds(30)
            let monitor = DatabaseMonitor(client: try location.configuration(), settings: patient, logger: TestCluster.logger)
            let watching = Task { await monitor.watch() }
            defer { watching.cancel() }
            while !monitor.isAvailable { try await Task.sleep(for: .milliseconds(10)) }
            // As a server does once migrated (held until their minute ends, at k > 1).
            try await HeldMessages.hold(for: PrivacyPolicy(k: k), on: db, logger: TestCluster.logger)
            let clock = ManualClock()
            // Set up before the services make their counters (as `serve` does).
            let serverMetrics = metrics ? ServerMetrics.shared : nil
            var settings = AppSettings()
            settings.privacy = PrivacyPolicy(k: k, noiseKey: 0x5EED)
            if let answerFloor { settings.privacy.answerFloor = AnswerFloor(answerFloor) }
            settings.messagePolicy = messagePolicy
            settings.messagesPerDevice = messageRate
            settings.budgets = budgets
            settings.adminToken = adminToken
            settings.wallCacheSeconds = wallCacheSeconds
            settings.wallStreamDuration = streamDuration
            settings.maxStreamsPerNetwork = streamsPerNetwork
            settings.wallStreamInterval = .milliseconds(100)
            settings.cors = cors
            settings.readinessDeadline = patient.deadline
            let deps = AppDependencies.compose(
                pool: DatabasePool(db), keyer: try DeviceKeyer(secret: "api-test-secret-0123456789"), database: monitor,
                migrator: try Migrator.bundled(), clock: clock, settings: settings, metrics: serverMetrics, logger: TestCluster.logger)
            let app = Application(router: buildRouter(deps), configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                                  logger: TestCluster.logger)
            try await app.test(setup) { client in
                try await body(AppFixture(client: client, db: db, clock: clock, deps: deps))
            }
        }
    }

    /// The routes of the real router and the served OpenAPI text (no database needed to list them).
    static func routes() async throws -> [(path: String, method: HTTPRequest.Method)] {
        var out: [(String, HTTPRequest.Method)] = []
        try await TestCluster.withDatabase { db, location in
            let deps = AppDependencies.compose(
                pool: DatabasePool(db), keyer: try DeviceKeyer(secret: "api-test-secret-0123456789"),
                database: DatabaseMonitor(client: try location.configuration(), logger: TestCluster.logger),
                migrator: try Migrator.bundled(), clock: SystemClock(), settings: AppSettings(), metrics: nil, logger: TestCluster.logger)
            return buildRouter(deps).routes.map { ("\($0.path)", $0.method) }
        }.forEach { out.append($0) }
        return out
    }

    static func document() async throws -> String {
        let box = TextBox()
        try await run { f in
            let r = try await f.client.execute(uri: "/openapi.yaml", method: .get)
            box.set(String(buffer: r.body))
        }
        return box.get()
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
let adminToken = "admin-token-for-tests-0123456789"

final class TextBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value = ""
    func set(_ v: String) { lock.withLock { value = v } }
    func get() -> String { lock.withLock { value } }
}
