import FollaCore
import Foundation
import Synchronization
import Testing

/// Blocking work on `DedicatedThread` leaves the tasks their threads. On Linux, Swift's
/// tasks share Dispatch's global pool (as many threads as CPUs); blocking work queued
/// there stalled the whole test run for minutes and once hung it for good.
@Suite struct DedicatedThreadTests {
    /// A gate that blocks threads until someone opens it, and remembers who did first.
    final class Gate: @unchecked Sendable {
        private let condition = NSCondition()
        private var opener: String?

        /// Opens the gate; true when this call was the first.
        func open(by who: String) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            guard opener == nil else { return false }
            opener = who
            condition.broadcast()
            return true
        }

        func wait() {
            condition.lock()
            while opener == nil { condition.wait() }
            condition.unlock()
        }
    }

    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    /// Many more blocked calls than CPUs, and a task started after them still runs before any
    /// is released: it is the task that opens their gate. A watchdog opens it after 10 s so
    /// that a broken implementation fails instead of hanging (on Dispatch's pool the task
    /// waited about a second for each blocked call beyond the CPU count, or for good).
    @Test func blockedCallsLeaveTheTasksTheirThreads() async throws {
        let gate = Gate()
        let blockers = 3 * ProcessInfo.processInfo.activeProcessorCount + 16
        let started = Counter()
        Thread {
            Thread.sleep(forTimeInterval: 10)
            _ = gate.open(by: "the watchdog")
        }.start()
        let calls = (0..<blockers).map { _ in
            Task.detached { await DedicatedThread.run { started.value.add(1, ordering: .relaxed); gate.wait() } }
        }
        while started.value.load(ordering: .relaxed) < blockers {
            try await Task.sleep(for: .milliseconds(10))
        }
        let taskWasFirst = await Task.detached { gate.open(by: "a task") }.value
        for call in calls { await call.value }
        #expect(taskWasFirst, "the task ran only after the watchdog released the blocked calls")
    }

    @Test func resultsAndErrorsComeBack() async throws {
        struct Refused: Error, Equatable {}
        #expect(await DedicatedThread.run { 6 * 7 } == 42)
        await #expect(throws: Refused()) { try await DedicatedThread.run { () throws -> Int in throw Refused() } }
    }
}
