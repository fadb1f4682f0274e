import FollaCore
import FollaStore
import FollaTestSupport
import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing

/// Nothing acknowledged is lost: 16 writers check in as fast as they can against a durable
/// PostgreSQL (fsync and synchronous_commit on), the server is crashed (immediate shutdown,
/// SIGQUIT: no checkpoint, no flush), restarted, and every check-in that was answered must be
/// there, with the invariant intact. Before the fix a check-in answered when its first row
/// arrived, ahead of its commit, and runs lost up to 8 acknowledged check-ins.
@Suite struct DurabilityTests {
    @Test func acknowledgedCheckInsSurviveACrash() async throws {
        let root = NSTemporaryDirectory() + "folla-crash-\(UUID().uuidString)"
        let pg = EmbeddedPostgres(configuration: .init(dataDirectory: root + "/pg"), logger: TestCluster.logger)
        try await pg.whileAlive(removing: root) {
            let location = try await EmbeddedDatabase.bootstrap(pg, migrator: try Migrator.bundled(), logger: TestCluster.logger)
            let keyer = try DeviceKeyer(secret: "crash-test-secret-0123456789")
            let acknowledged = Acknowledged()
            let stop = StopFlag()
            var config = try location.configuration()
            config.options.maximumConnections = 16
            try await PostgresClient.with(config, logger: TestCluster.logger) { client in
                let store = PresenceStore(pool: DatabasePool(client), keyer: keyer, logger: TestCluster.logger)
                // Writers are left running on their own: after the crash some may wait on the pool
                // for good (outages are another issue's business); only the answers they got count.
                var writers: [Task<Void, Never>] = []
                for worker in 0..<16 {
                    writers.append(Task {
                        var n = 0
                        while !stop.isSet {
                            guard let id = try? DeviceID(String(format: "%08x%032x", worker, n)) else { return }
                            n += 1
                            let spot = Coordinate(latitude: 44.49 + Double(worker) * 0.001, longitude: 11.34 + Double(n % 50) * 0.0002)
                            do {
                                _ = try await store.checkIn(CheckInRequest(device: id, position: spot), at: Date())
                                acknowledged.add(id)
                            } catch {
                                try? await Task.sleep(for: .milliseconds(20))  // the database is down: try again
                            }
                        }
                    })
                }
                // At least 1.5 s of writes, and enough of them to mean something (a loaded CI box
                // acknowledges fewer per second), before the crash.
                let patience = ContinuousClock.now + .seconds(20)
                try await Task.sleep(for: .milliseconds(1500))
                while acknowledged.all.count < 200 && ContinuousClock.now < patience { try await Task.sleep(for: .milliseconds(100)) }
                let pid = try #require(pg.runningPID())
                kill(pid, SIGQUIT)  // what `pg_ctl stop -m immediate` sends: a crash, as far as data goes
                while pg.runningPID() != nil { try await Task.sleep(for: .milliseconds(20)) }
                try await pg.start()
                try await Task.sleep(for: .milliseconds(1000))
                stop.set()
                writers.forEach { $0.cancel() }
            }
            let acked = acknowledged.all
            #expect(acked.count > 100, "too few check-ins to mean anything")
            try await PostgresClient.with(try location.configuration(), logger: TestCluster.logger) { client in
                let keys = acked.map { keyer.key(for: $0) }.map { ByteBuffer(bytes: $0) }
                var found = 0
                for chunk in stride(from: 0, to: keys.count, by: 500) {
                    let part = Array(keys[chunk..<min(chunk + 500, keys.count)])
                    let rows = try await client.query("SELECT count(*)::int FROM device WHERE device_key = ANY(\(part)::bytea[])",
                                                      logger: TestCluster.logger).collect()
                    found += try rows[0].decode(Int.self)
                }
                #expect(found == acked.count, "\(acked.count - found) acknowledged check-ins lost in the crash")
                let store = PresenceStore(pool: DatabasePool(client), keyer: keyer, logger: TestCluster.logger)
                #expect(try await store.invariantViolations().isEmpty)
            }
        }
    }
}

extension DurabilityTests {
    /// A check-in is answered only once its batch has committed: a commit that fails is an
    /// error to the caller, and nothing of the batch stays. A crash does not show this
    /// reliably (a killed process loses nothing it has already written to the kernel, and
    /// the window between a statement's rows and its implicit commit is short), so the commit
    /// is made to fail: a deferred constraint trigger raises at COMMIT for one device. A
    /// batch that answered before its commit (a statement run outside a transaction,
    /// committed at Sync: SQL/0034) answers that ping as founded.
    @Test func aCheckInWhoseCommitFailsIsNotAcknowledged() async throws {
        try await PresenceFixture.run { f in
            let logger = TestCluster.logger
            let refused = f.store.keyer.key(for: try DeviceID(udid(7)))
            _ = try await f.client.query(PostgresQuery(unsafeSQL: """
                CREATE FUNCTION test_fail_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW.device_key = '\\x\(refused.map { String(format: "%02x", $0) }.joined())'::bytea THEN
                        RAISE EXCEPTION 'refused at commit' USING ERRCODE = 'P0001';
                    END IF;
                    RETURN NULL;
                END $$
                """), logger: logger).collect()
            _ = try await f.client.query(PostgresQuery(unsafeSQL: """
                CREATE CONSTRAINT TRIGGER test_fail_at_commit AFTER INSERT ON device DEFERRABLE INITIALLY DEFERRED
                    FOR EACH ROW EXECUTE FUNCTION test_fail_at_commit();
                """), logger: logger).collect()
            // Another device commits: the trigger alone changes nothing.
            #expect(try await f.checkIn(udid(6), bologna).outcome == .founded)
            await #expect(throws: (any Error).self) { try await f.checkIn(udid(7), offset(bologna, bearing: 0, metres: 500)) }
            let rows = try await f.client.query("SELECT count(*)::int FROM device", logger: logger).collect()
            #expect(try rows[0].decode(Int.self) == 1, "only the committed device is stored")
        }
    }
}

extension DurabilityTests {
    /// A batch whose callers have all left while it waited for a lock is rolled back, not
    /// committed once it gets the lock: its callers were told the database did not answer.
    /// The batch's COMMIT is inside its own statement (SQL/0034), so only the backend's check
    /// for a client gone (`DatabasePool`) stops it; without the check the ping is stored.
    @Test func aBatchLeftWhileWaitingForALockIsRolledBack() async throws {
        try await PresenceFixture.run { f in
            let logger = TestCluster.logger
            let pool = DatabasePool(configuration: try f.location.configuration(), logger: logger)
            let maintained = Task { await pool.maintain() }
            defer { maintained.cancel() }
            let store = PresenceStore(pool: pool, keyer: f.store.keyer, logger: logger)
            try await f.client.withConnection { holder in
                // The ping's ~1 km area, as `folla_check_in_batch` locks it (SQL/0012).
                _ = try await holder.query("BEGIN", logger: logger).collect()
                _ = try await holder.query("SELECT pg_advisory_xact_lock(4449, 1134)", logger: logger).collect()
                let ping = Task {
                    try await store.checkIn(CheckInRequest(device: try DeviceID(udid(9)), position: bologna), at: PresenceFixture.start)
                }
                let waiting = try await f.checkInsWaitingForALock()
                ping.cancel()
                _ = await ping.result
                // Longer than the backend's check for a client gone.
                try await Task.sleep(for: .seconds(3))
                _ = try await holder.query("COMMIT", logger: logger).collect()
                #expect(waiting == 1, "the batch never waited for the area's lock")
            }
            try await Task.sleep(for: .seconds(1))
            #expect(try await f.count("SELECT count(*)::int FROM device") == 0, "the abandoned batch committed")
        }
    }
}

/// The device ids whose check-ins were answered, from every writer.
private final class Acknowledged: Sendable {
    private let ids = Mutex<[DeviceID]>([])
    func add(_ id: DeviceID) { ids.withLock { $0.append(id) } }
    var all: [DeviceID] { ids.withLock { $0 } }
}

private final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .relaxed) }
    var isSet: Bool { flag.load(ordering: .relaxed) }
}
