import FollaStore
import PostgresNIO
import FollaTestSupport
import Foundation
import Testing

/// A database outage, played for real against the debug build: PostgreSQL crashed
/// (SIGQUIT, what `pg_ctl stop -m immediate` sends), absent at start, or dying under the
/// embedded default. Before the database monitor, check-ins hung 11–62 s and then answered
/// 500, `/readyz` took about 60 s, and a start without a database never bound.
@Suite(.serialized) struct OutageTests {
    static func checkIn(_ port: Int, _ n: Int) async throws -> CurlAnswer {
        try await CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/checkins", method: "POST",
                                   json: #"{"device_id":"\#(String(format: "%040x", n))","lat":44.4938,"lon":11.3430}"#)
    }

    /// A cluster of its own, outside the test cluster, that the test may crash.
    static func externalCluster() -> (EmbeddedPostgres, root: String) {
        let root = NSTemporaryDirectory() + "folla-outage-\(UUID().uuidString)"
        // Durable: these tests crash PostgreSQL, and without synchronous_commit a crash just
        // after the start lost the last migration (seen: check-ins then failed with "function
        // folla_check_in_batch(…) does not exist", the server having seen it applied).
        var config = EmbeddedPostgres.Configuration(dataDirectory: root + "/pg")
        config.durable = true
        return (EmbeddedPostgres(configuration: config, logger: TestCluster.logger), root)
    }

    static func serveExternal(_ pg: EmbeddedPostgres) throws -> ServerProcess {
        try ServerProcess(["--database-url", "postgres://postgres@localhost/folla?host=\(pg.dataDirectory)",
                           "--secret", "outage-test-secret-0123456789", "--new-devices-per-network", "0"])
    }

    static func createDatabase(_ pg: EmbeddedPostgres) async throws {
        try await EmbeddedDatabase.createDatabaseIfMissing(
            "folla", at: .socket(path: pg.socketPath, user: EmbeddedPostgres.superuser, database: "postgres"),
            logger: TestCluster.logger)
    }

    /// A server on a cluster of its own, started, ready and with one check-in written;
    /// `body` plays the outage.
    static func withServedCluster(_ body: (EmbeddedPostgres, ServerProcess, Int) async throws -> Void) async throws {
        let (pg, root) = externalCluster()
        try await pg.whileAlive(removing: root) {
            try await pg.start()
            try await createDatabase(pg)
            let server = try serveExternal(pg)
            let port = try await server.port()
            #expect(try await secondsUntilServed(within: 30) { try await CurlAnswer.fetch("http://127.0.0.1:\(port)/readyz") } < 30)
            #expect(try await checkIn(port, 1).status == 200)
            try await body(pg, server, port)
        }
    }

    /// Polls until `answer` is 200; returns the seconds it took.
    static func secondsUntilServed(within limit: Double, _ answer: () async throws -> CurlAnswer) async throws -> Double {
        let start = Date()
        while Date().timeIntervalSince(start) < limit {
            if try await answer().status == 200 { return Date().timeIntervalSince(start) }
            try await Task.sleep(for: .milliseconds(50))
        }
        return .infinity
    }

    /// - Parameter outage: seconds the database stays down. After 30 s PostgresNIO's own pool
    ///   would wait about 6 s before its next attempt (its backoff grows 1.25× per failure):
    ///   the server must not wait for it.
    @Test(arguments: [0.0, 30.0])
    func crashedDatabaseAnswers503QuicklyAndServiceResumes(outage: Double) async throws {
        try await Self.withServedCluster { pg, server, port in
            kill(try #require(pg.runningPID()), SIGQUIT)
            while pg.runningPID() != nil { try await Task.sleep(for: .milliseconds(20)) }
            for n in 2...6 {
                let answer = try await Self.checkIn(port, n)
                #expect(answer.status == 503, "check-in \(n) during the outage: \(answer.status)")
                #expect(answer.seconds <= 2, "check-in \(n) took \(answer.seconds) s")
                #expect(answer.header("Retry-After") != nil, "\(answer.headers)")
            }
            let ready = try await CurlAnswer.fetch("http://127.0.0.1:\(port)/readyz")
            #expect(ready.status == 503 && ready.seconds <= 1, "readyz: \(ready.status) in \(ready.seconds) s")
            let groups = try await CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/groups?lat=44.4938&lon=11.343")
            #expect(groups.status == 503 && groups.seconds <= 2)

            try await Task.sleep(for: .seconds(outage))
            try await pg.start()
            let resumed = try await Self.secondsUntilServed(within: 30) { try await Self.checkIn(port, 7) }
            #expect(resumed <= 5, "service resumed \(resumed) s after the database came back; the server's log:\n\(server.log.suffix(4000))")
            #expect(await server.stop() == 0)
            #expect(!server.log.contains("unhandled error"), "\(server.log)")
        }
    }

    /// A database that hangs (every PostgreSQL process stopped, its connections open): a
    /// check-in sent before the monitor knows waits on a statement that never answers. Once
    /// a probe is late (2 s) it is released with a 503; new ones are refused at once;
    /// service resumes with the database.
    @Test func hungDatabaseReleasesWhatWaitsOnIt() async throws {
        try await Self.withServedCluster { pg, server, port in
            let stopped = pg.processes()
            for pid in stopped { kill(pid, SIGSTOP) }
            // Readiness asked before the monitor sees the freeze answers within its deadline
            // (5 s), and the wall page at once once it has: both waited for as long as the
            // freeze (90 s in an outside test).
            let frozen = Date()
            async let readiness = CurlAnswer.fetch("http://127.0.0.1:\(port)/readyz")
            // In flight too, each on a statement of its own kind (a transaction, a read on a
            // leased connection, the read model's refresh): until session 19 they waited for
            // the end of the freeze, the gate's cancellation notwithstanding.
            let device = "http://127.0.0.1:\(port)/v1/devices/\(String(format: "%040x", 1))"
            async let checkOut = CurlAnswer.fetch(device, method: "DELETE")
            async let page = CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/places/1/messages")
            // The read model is kept fresh in the background (`GroupsModelRefresher`): a groups
            // read within its period answers from memory; one after it waits for the refresh
            // the freeze holds up, and is released.
            async let groupsAtOnce = CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/groups?lat=44.4938&lon=11.343")
            async let groups: CurlAnswer = {
                try await Task.sleep(for: .milliseconds(1500))
                return try await CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/groups?lat=44.4938&lon=11.344")
            }()
            // A map viewport on the groups route: the map's first snapshot waits on the database.
            async let viewport = CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/groups?bbox=11.2,44.4,11.5,44.6&zoom=12")
            let waiting = try await Self.checkIn(port, 2)
            let refused = try await Self.checkIn(port, 3)
            let ready = try await readiness
            let wall = try await CurlAnswer.fetch("http://127.0.0.1:\(port)/wall/piazza-maggiore")
            let inFlight = try await [("check-out", checkOut), ("messages", page), ("groups", groups), ("viewport", viewport)]
            // Frozen for 12 s at least: what waited for the freeze would take that long.
            try await Task.sleep(for: .seconds(max(0, 12 - Date().timeIntervalSince(frozen))))
            for pid in stopped { kill(pid, SIGCONT) }
            for (name, answer) in inFlight {
                #expect(answer.status == 503 && answer.seconds <= 8, "\(name): \(answer.status) after \(answer.seconds) s")
            }
            let atOnce = try await groupsAtOnce
            #expect([200, 503].contains(atOnce.status) && atOnce.seconds <= 8, "groups at once: \(atOnce.status) after \(atOnce.seconds) s")
            #expect(ready.status == 503 && ready.seconds <= 7, "readyz: \(ready.status) after \(ready.seconds) s")
            #expect(wall.status == 503 && wall.seconds <= 2, "wall page: \(wall.status) after \(wall.seconds) s")
            #expect(waiting.status == 503 && waiting.seconds <= 8, "waiting: \(waiting.status) after \(waiting.seconds) s")
            #expect(refused.status == 503 && refused.seconds <= 2, "refused: \(refused.status) after \(refused.seconds) s")
            #expect(refused.header("Retry-After") != nil)
            let resumed = try await Self.secondsUntilServed(within: 30) { try await Self.checkIn(port, 4) }
            #expect(resumed <= 10, "service resumed \(resumed) s after the database; the server's log:\n\(server.log.suffix(4000))")
            // Groups too: their read model's refresh is shared, and must not have been left
            // waiting on a connection closed under a cancelled request.
            let groupsBack = try await Self.secondsUntilServed(within: 30) {
                try await CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/groups?lat=44.4938&lon=11.343")
            }
            #expect(groupsBack <= 10, "groups resumed \(groupsBack) s after the database")
            #expect(await server.stop() == 0)
        }
    }

    /// A database that answers but cannot commit: every commit waits for a synchronous
    /// standby that does not exist (a lost standby; a stalled WAL flush is the same to the
    /// server). Reads answer, so a probe that only reads found it well, `/readyz` said ready,
    /// and writes waited without an answer (an outside probe, session 39: a backend frozen in
    /// its WAL flush held messages and check-outs for over 120 s). Now the probe commits:
    /// writes get a 503, `/readyz` says why, and service resumes with the commits.
    @Test func databaseThatCannotCommitIsAnOutage() async throws {
        try await Self.withServedCluster { pg, server, port in
            let admin = DatabaseLocation.socket(path: pg.socketPath, user: EmbeddedPostgres.superuser, database: "postgres")
            func setStandby(_ value: String?) async throws {
                try await PostgresClient.with(try admin.configuration(), logger: TestCluster.logger) { client in
                    let set = value.map { "ALTER SYSTEM SET synchronous_standby_names = '\($0)'" } ?? "ALTER SYSTEM RESET synchronous_standby_names"
                    _ = try await client.query(PostgresQuery(unsafeSQL: set), logger: TestCluster.logger)
                    _ = try await client.query("SELECT pg_reload_conf()", logger: TestCluster.logger)
                }
            }
            try await setStandby("nowhere")
            let stalled = try await Self.checkIn(port, 2)
            #expect(stalled.status == 503 && stalled.seconds <= 8, "check-in: \(stalled.status) after \(stalled.seconds) s\n\(server.log.suffix(3000))")
            let ready = try await CurlAnswer.fetch("http://127.0.0.1:\(port)/readyz")
            #expect(ready.status == 503 && ready.seconds <= 7, "readyz: \(ready.status) after \(ready.seconds) s")
            let refused = try await Self.checkIn(port, 3)
            #expect(refused.status == 503 && refused.seconds <= 2, "refused: \(refused.status) after \(refused.seconds) s")
            // The monitor reconnects every couple of seconds meanwhile; each abandoned backend
            // still waiting on its commit is ended from the next connection. Before, they piled
            // up (22 to 28 backends in 20 s): here the stalled check-in's and at most two of
            // the monitor's wait.
            try await Task.sleep(for: .seconds(10))
            let waiting = try await PostgresClient.with(try admin.configuration(), logger: TestCluster.logger) { client in
                try await client.query("SELECT count(*)::int FROM pg_stat_activity WHERE datname = 'folla' AND wait_event_type IN ('IPC', 'Lock')",
                                       logger: TestCluster.logger).collect()[0].decode(Int.self)
            }
            #expect(waiting <= 3, "\(waiting) backends wait on the stalled commits")
            try await setStandby(nil)
            let resumed = try await Self.secondsUntilServed(within: 30) { try await Self.checkIn(port, 4) }
            #expect(resumed <= 10, "service resumed \(resumed) s after the commits; the server's log:\n\(server.log.suffix(4000))")
            #expect(await server.stop() == 0)
        }
    }

    @Test func startWithoutDatabaseBindsAndRetries() async throws {
        let (pg, root) = Self.externalCluster()
        try await pg.whileAlive(removing: root) {
            try FileManager.default.createDirectory(atPath: pg.dataDirectory, withIntermediateDirectories: true)
            let server = try Self.serveExternal(pg)  // nothing listens on that socket yet
            let port = try await server.port(within: 30)
            #expect(try await CurlAnswer.fetch("http://127.0.0.1:\(port)/healthz").status == 200)
            let ready = try await CurlAnswer.fetch("http://127.0.0.1:\(port)/readyz")
            #expect(ready.status == 503 && ready.seconds <= 1)
            let refused = try await Self.checkIn(port, 1)
            #expect(refused.status == 503 && refused.header("Retry-After") != nil && refused.seconds <= 2)
            #expect(server.log.contains("warning") && server.log.contains("the database is unavailable"), "\(server.log)")

            try await pg.start()
            try await Self.createDatabase(pg)
            // The monitor retries with backoff (at most 2 s apart), then applies the migrations.
            let served = try await Self.secondsUntilServed(within: 30) { try await Self.checkIn(port, 2) }
            #expect(served < 30, "\(server.log)")
            #expect(try await CurlAnswer.fetch("http://127.0.0.1:\(port)/readyz").status == 200)
            #expect(await server.stop() == 0)
        }
    }

    @Test func embeddedPostgresThatDiesIsRestarted() async throws {
        let dir = NSTemporaryDirectory() + "folla-restart-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServerProcess(["--data-dir", dir, "--new-devices-per-network", "0"])
        let pg = EmbeddedPostgres(configuration: .init(dataDirectory: dir + "/pg"), logger: TestCluster.logger)
        defer { if let pid = pg.runningPID() { kill(pid, SIGQUIT) } }
        let port = try await server.port(within: 120)
        #expect(try await Self.checkIn(port, 1).status == 200)
        let first = try #require(pg.runningPID())

        kill(first, SIGQUIT)
        let resumed = try await Self.secondsUntilServed(within: 30) { try await Self.checkIn(port, 2) }
        #expect(resumed < 30, "\(server.log)")
        let second = pg.runningPID()
        #expect(second != nil && second != first)
        #expect(server.log.contains("restarting it"), "\(server.log)")
        #expect(await server.stop() == 0)
        #expect(pg.runningPID() == nil, "the embedded PostgreSQL outlived the server")
    }
}
