import Dispatch
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

    /// Work that ignores cancellation and ends only when `gate` opens.
    static func stubborn(_ gate: DispatchSemaphore, _ ran: Count) async -> Int {
        ran.add()
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                gate.wait()
                continuation.resume()
            }
        }
        return 1
    }

    struct TooLate: Error {}

    @Test func aRivalAnswersWhileTheWorkIgnoresCancellation() async throws {
        let gate = DispatchSemaphore(value: 0)
        let ran = Count()
        defer { gate.signal() }
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
        let gate = DispatchSemaphore(value: 0)
        let ran = Count()
        defer { gate.signal() }
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
