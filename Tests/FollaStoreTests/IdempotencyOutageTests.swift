import FollaStore
import FollaTestSupport
import Foundation
import PostgresNIO
import Testing

/// An idempotent request whose write committed and whose answer the database could not record
/// (it died between the two). An outside probe (session 21) saw such a message answered 503,
/// its retries refused 409 for two minutes, and then written a second time by the retry that
/// took the key over. Now its answer is replayed to retries while the database is down and
/// recorded once it is back, so that another instance replays it too.
@Suite struct IdempotencyOutageTests {
    @Test(.timeLimit(.minutes(2))) func anAnswerTheDatabaseMissedIsReplayedAndRecordedLater() async throws {
        let root = NSTemporaryDirectory() + "folla-idem-\(UUID().uuidString)"
        let pg = EmbeddedPostgres(configuration: .init(dataDirectory: root + "/pg"), logger: TestCluster.logger)
        try await pg.whileAlive(removing: root) {
            let location = try await EmbeddedDatabase.bootstrap(pg, migrator: try Migrator.bundled(), logger: TestCluster.logger)
            try await PostgresClient.with(try location.configuration(), logger: TestCluster.logger) { client in
                let store = IdempotencyStore(pool: DatabasePool(client), logger: TestCluster.logger)
                let key = IdempotencyStore.Key("retry-me"), request = [UInt8](repeating: 1, count: 32)  // a SHA-256
                #expect(try await store.reserve(key, request: request, at: Date()) == .reserved)
                // The request's write has committed; the database dies before its answer is recorded.
                kill(try #require(pg.runningPID()), SIGQUIT)
                while pg.runningPID() != nil { try await Task.sleep(for: .milliseconds(20)) }
                let answer = IdempotencyStore.Answer(status: 201, contentType: "application/json", body: Array(#"{"id":7}"#.utf8))
                // As the server's database gate does for a request caught by an outage, the
                // recording is cancelled if it waits: when the pool had already seen its
                // connection close, the write waited for a new one, which only the restart
                // below could give (a ci-local run hung here for the whole time limit).
                await withTaskGroup(of: Void.self) { recording in
                    recording.addTask { await store.complete(key, request: request, with: answer) }
                    recording.addTask { try? await Task.sleep(for: .seconds(3)) }
                    await recording.next()
                    recording.cancelAll()
                }
                #expect(try await store.reserve(key, request: request, at: Date()) == .replay(answer))
                #expect(try await store.reserve(key, request: [UInt8](repeating: 9, count: 32), at: Date()) == .mismatch)
                try await pg.start()
                // Another instance, which never saw the answer, replays it once it is recorded.
                let other = IdempotencyStore(pool: DatabasePool(client), logger: TestCluster.logger)
                var seen: IdempotencyStore.Reservation?
                let deadline = ContinuousClock.now + .seconds(60)
                while ContinuousClock.now < deadline {
                    seen = try? await other.reserve(key, request: request, at: Date())
                    if seen == .replay(answer) { break }
                    try await Task.sleep(for: .milliseconds(200))
                }
                #expect(seen == .replay(answer))
            }
        }
    }
}
