import FollaCore
@testable import FollaStore
import Testing

/// The answer floor's timer on the event loops: never early (the floor's whole point), ended
/// by cancellation (a cancelled request is not held), at once for a deadline passed.
@Suite struct EventLoopTimerTests {
    @Test(.timeLimit(.minutes(1))) func itNeverReturnsBeforeTheDeadline() async throws {
        let timer = EventLoopTimer()
        for wait in [1, 7, 30] {
            let deadline = ContinuousClock.now + .milliseconds(wait)
            try await timer.sleep(until: deadline)
            #expect(ContinuousClock.now >= deadline)
        }
    }

    /// A wait of 30 s (so that a cancellation that did nothing ends the test anyway) ends
    /// at once.
    @Test(.timeLimit(.minutes(1))) func cancellationEndsTheWait() async throws {
        let timer = EventLoopTimer()
        let start = ContinuousClock.now
        let wait = Task { try await timer.sleep(until: start + .seconds(30)) }
        try await Task.sleep(for: .milliseconds(20))
        wait.cancel()
        await #expect(throws: CancellationError.self) { try await wait.value }
        #expect(ContinuousClock.now - start < .seconds(20))
    }

    @Test(.timeLimit(.minutes(1))) func anAlreadyCancelledTaskDoesNotWait() async throws {
        let timer = EventLoopTimer()
        let start = ContinuousClock.now
        let wait = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await timer.sleep(until: start + .seconds(30))
        }
        await #expect(throws: CancellationError.self) { try await wait.value }
        #expect(ContinuousClock.now - start < .seconds(20))
    }

    /// The floor holds its answer for its duration on this timer as on `Task.sleep`.
    @Test(.timeLimit(.minutes(1))) func theFloorHoldsOnIt() async throws {
        let floor = AnswerFloor(.milliseconds(25), timer: EventLoopTimer())
        let start = ContinuousClock.now
        let value = try await floor.hold { 7 }
        #expect(value == 7)
        #expect(ContinuousClock.now - start >= .milliseconds(25))
    }
}
