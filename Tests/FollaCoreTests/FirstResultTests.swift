import FollaCore
import Foundation
import Synchronization
import Testing

/// `FirstResult.race`: the caller is answered by whichever party ends first, and never
/// waits for work that ignores cancellation (what a query on a frozen database does).
@Suite struct FirstResultTests {
    final class Count: Sendable {
        private let value = Mutex(0)
        func add() { value.withLock { $0 += 1 } }
        var now: Int { value.withLock { $0 } }
    }

    /// A wait that ignores cancellation and blocks no thread (a blocked thread would starve
    /// the two-thread pool that runs every test's tasks).
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
        func wait() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { s in
                    if !s.open { s.waiters.append(continuation) }
                    return s.open
                }
                if open { continuation.resume() }
            }
        }
        func open() {
            for waiter in state.withLock({ s in s.open = true; defer { s.waiters = [] }; return s.waiters }) { waiter.resume() }
        }
    }

    /// Work that ignores cancellation and ends only when `gate` opens.
    static func stubborn(_ gate: Gate, _ ran: Count) async -> Int {
        ran.add()
        await gate.wait()
        return 1
    }

    struct TooLate: Error {}

    @Test func aRivalAnswersWhileTheWorkIgnoresCancellation() async throws {
        let gate = Gate()
        let ran = Count()
        defer { gate.open() }
        await #expect(throws: TooLate.self) {
            try await FirstResult<Int>().race({ await Self.stubborn(gate, ran) },
                                             against: [FirstResult.after(.milliseconds(50)) { TooLate() }])
        }
        #expect(ran.now == 1)
    }

    @Test func theWorkWinsWhenItEndsFirst() async throws {
        let value = try await FirstResult<Int>().race({ 7 }, against: [FirstResult.after(.seconds(60)) { TooLate() }])
        #expect(value == 7)
    }

    @Test func cancellingTheWaiterReleasesIt() async throws {
        let gate = Gate()
        let ran = Count()
        defer { gate.open() }
        let waiter = Task { try await FirstResult<Int>().race { await Self.stubborn(gate, ran) } }
        while ran.now == 0 { try await Task.sleep(for: .milliseconds(5)) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
    }

    @Test func aResultGivenBeforeRunsNothing() async throws {
        let first = FirstResult<Int>()
        first.finish(.success(3))
        let ran = Count()
        let value = try await first.race { ran.add(); return 9 }
        #expect(value == 3)
        #expect(ran.now == 0)
    }
}
