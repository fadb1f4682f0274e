import FollaStore
import FollaTestSupport
import Foundation
import PostgresNIO
import Synchronization
import Testing

/// A database that answers but will not do the work now is an outage to the client (503 with
/// `Retry-After`), not a hang or a 500. Before (an outside probe, session 26): a table lock
/// held by someone else held every request that met it for as long as it lasted, and once
/// they filled the pool, every request; a read-only database answered every write 500
/// while `/readyz` said ready.
@Suite struct DatabaseRefusalTests {
    /// Runs `body` with a real server on a fresh test database, and the database's client.
    static func withServer(_ body: @Sendable @escaping (Int, PostgresClient, String) async throws -> Void) async throws {
        try await TestCluster.withDatabase { client, location in
            let server = try ServerProcess.on(location, ["--new-devices-per-network", "0"])
            defer { Task { await server.stop() } }
            let port = try await server.ready()
            try await body(port, client, location.databaseName)
        }
    }

    static func checkIn(_ port: Int, _ n: Int) async throws -> CurlAnswer {
        try await CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/checkins", method: "POST",
                                   json: #"{"device_id":"\#(String(format: "%040x", n))","lat":44.4938,"lon":11.343}"#)
    }

    // Four minutes: the lock alone is held 30 s, and with every suite starting at once on a
    // slow two-core machine the set-up took ~120 s (a CI run in session 40 hit two).
    @Test(.timeLimit(.minutes(4))) func aLockHeldLongIsA503NotAHang() async throws {
        try await Self.withServer { port, client, _ in
            #expect(try await Self.checkIn(port, 1).status == 200)
            // Someone else holds the device table for 30 s (longer than curl's 20 s).
            let locked = Mutex(false)
            let held = Task {
                try await client.withConnection { c in
                    _ = try await c.query("BEGIN", logger: TestCluster.logger)
                    _ = try await c.query("LOCK TABLE device IN ACCESS EXCLUSIVE MODE", logger: TestCluster.logger)
                    locked.withLock { $0 = true }
                    try? await Task.sleep(for: .seconds(30))
                    _ = try await c.query("ROLLBACK", logger: TestCluster.logger)
                }
            }
            defer { held.cancel() }
            while !locked.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
            let answer = try await CurlAnswer.fetch("http://127.0.0.1:\(port)/v1/devices/\(String(format: "%040x", 1))",
                                                    method: "DELETE")
            #expect(answer.status == 503 && answer.seconds < 12, "\(answer.status) after \(answer.seconds) s")
            #expect(answer.headers.lowercased().contains("retry-after:"), "\(answer.headers)")
            // A check-in (group-committed) meets it too.
            let checkIn = try await Self.checkIn(port, 2)
            #expect(checkIn.status == 503 && checkIn.seconds < 12, "\(checkIn.status) after \(checkIn.seconds) s")
        }
    }

    @Test(.timeLimit(.minutes(2))) func aReadOnlyDatabaseRefusesWritesWith503AndIsNotReady() async throws {
        try await Self.withServer { port, client, database in
            _ = try await client.query(PostgresQuery(unsafeSQL: "ALTER DATABASE \(database) SET default_transaction_read_only = on"),
                                       logger: TestCluster.logger).collect()
            // Every session of the server's starts again, read-only.
            _ = try await client.query("""
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid()
                """, logger: TestCluster.logger).collect()
            var answer = try await Self.checkIn(port, 2)
            let end = ContinuousClock.now + .seconds(20)
            // (The first answers may meet the connections being cut: a 503 too.)
            while answer.status == 503 && ContinuousClock.now < end {
                try await Task.sleep(for: .milliseconds(200))
                let ready = try await CurlAnswer.fetch("http://127.0.0.1:\(port)/readyz")
                if ready.status == 503 && ready.body.contains("read-only") { break }
                answer = try await Self.checkIn(port, 2)
            }
            #expect(answer.status == 503, "a write to a read-only database: \(answer.status) \(answer.body)")
            let ready = try await CurlAnswer.fetch("http://127.0.0.1:\(port)/readyz")
            #expect(ready.status == 503 && ready.body.contains("read-only"), "\(ready.status) \(ready.body)")
            #expect(try await Self.checkIn(port, 3).status == 503)
        }
    }
}
