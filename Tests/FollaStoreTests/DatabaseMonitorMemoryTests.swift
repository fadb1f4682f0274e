import FollaStore
import FollaTestSupport
import PostgresNIO
import Synchronization
import Testing

/// `DatabaseMonitor.answer(fromMemory:orWhileAvailable:)`: an answer from memory skips the
/// outage race, but not the outage itself.
@Suite struct DatabaseMonitorMemoryTests {
    @Test func memoryAnswersWhileTheDatabaseIsAvailableAndTheDatabaseOtherwise() async throws {
        try await TestCluster.withDatabase { _, location in
            let monitor = DatabaseMonitor(client: try location.configuration(), logger: TestCluster.logger)
            let watching = Task { await monitor.watch() }
            defer { watching.cancel() }
            let start = ContinuousClock.now
            while !monitor.isAvailable, ContinuousClock.now - start < .seconds(30) { try await Task.sleep(for: .milliseconds(10)) }
            let ran = Atomic(0)
            let fromMemory = try await monitor.answer(fromMemory: { 1 }, orWhileAvailable: { ran.add(1, ordering: .relaxed); return 2 })
            #expect(fromMemory == 1)
            #expect(ran.load(ordering: .relaxed) == 0)
            let through = try await monitor.answer(fromMemory: { nil }, orWhileAvailable: { ran.add(1, ordering: .relaxed); return 2 })
            #expect(through == 2)
            #expect(ran.load(ordering: .relaxed) == 1)
        }
    }

    /// While the monitor knows the database is down, memory does not answer either: the
    /// caller gets the outage's 503, as from every stored route (a read model a moment old
    /// would otherwise answer through the first second of an outage).
    @Test func anOutageIsAnOutageEvenWithAnAnswerInMemory() async throws {
        // Nothing listens on port 1: every probe fails at once.
        let nowhere = PostgresClient.Configuration(host: "127.0.0.1", port: 1, username: "folla", password: nil, database: "folla", tls: .disable)
        let monitor = DatabaseMonitor(client: nowhere, logger: TestCluster.logger)
        let watching = Task { await monitor.watch() }
        defer { watching.cancel() }
        // Until the first probe has failed (30 s at most: then the expectation below fails).
        let start = ContinuousClock.now
        while monitor.unavailableReason == "the database has not been reached yet", ContinuousClock.now - start < .seconds(30) {
            try await Task.sleep(for: .milliseconds(10))
        }
        await #expect(throws: DatabaseUnavailable.self) {
            try await monitor.answer(fromMemory: { 1 }, orWhileAvailable: { 2 })
        }
    }
}
