@testable import FollaStore
import Synchronization
import Testing

/// The batching itself, with a statement the test controls: what arrives during a batch
/// goes together in the next, each caller gets its own reply, a cancelled caller is left
/// out, a failed batch fails every caller in it.
@Suite struct GroupCommitTests {
    /// A statement that records its batches and holds each one until released.
    final class Gate: Sendable {
        let batches = Mutex<[[Int]]>([])
        let held = Mutex<[CheckedContinuation<Void, Never>]>([])
        let failing: Bool
        init(failing: Bool = false) { self.failing = failing }

        func execute(_ items: [Int]) async throws -> [Int] {
            batches.withLock { $0.append(items) }
            await withCheckedContinuation { c in held.withLock { $0.append(c) } }
            // A batch cancelled while held fails (as a cancelled lease does).
            try Task.checkCancellation()
            if failing { throw Failure() }
            return items.map { $0 * 10 }
        }

        /// Lets the oldest held batch finish, once it is held (or gives up once the test is
        /// cancelled, by its time limit).
        func release() async {
            while !Task.isCancelled {
                let next = held.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                if let next { next.resume(); return }
                await Task.yield()
            }
        }

        var sizes: [Int] { batches.withLock { $0.map(\.count) } }
    }

    struct Failure: Error {}

    /// Returns once `condition` holds, or the test is cancelled (by its time limit: the
    /// expectations after the wait then fail, rather than the run hanging).
    static func waitUntil(_ condition: () -> Bool) async {
        while !condition() && !Task.isCancelled { await Task.yield() }
    }

    @Test func whatArrivesDuringABatchGoesInTheNextOne() async throws {
        let gate = Gate()
        let writes = GroupCommit<Int, Int>(lanes: 1, maxBatch: 32) { try await gate.execute($0) }
        try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            group.addTask { (0, try await writes.submit(0, lane: 0)) }
            await Self.waitUntil { gate.sizes == [1] }
            for i in 1...10 { group.addTask { (i, try await writes.submit(i, lane: 0)) } }
            await Self.waitUntil { writes.queued(lane: 0) == 10 }
            await gate.release()
            await gate.release()
            var replies: [Int: Int] = [:]
            for try await (item, reply) in group { replies[item] = reply }
            #expect(replies == Dictionary(uniqueKeysWithValues: (0...10).map { ($0, $0 * 10) }))
        }
        #expect(gate.sizes == [1, 10])
    }

    @Test func aBatchHoldsAtMostMaxBatch() async throws {
        let gate = Gate()
        let writes = GroupCommit<Int, Int>(lanes: 1, maxBatch: 4) { try await gate.execute($0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { _ = try await writes.submit(0, lane: 0) }
            await Self.waitUntil { gate.sizes == [1] }
            for i in 1...10 { group.addTask { _ = try await writes.submit(i, lane: 0) } }
            await Self.waitUntil { writes.queued(lane: 0) == 10 }
            for _ in 0..<4 { await gate.release() }
            try await group.waitForAll()
        }
        #expect(gate.sizes == [1, 4, 4, 2])
    }

    /// An idle lane with a linger holds its first write for more; a full batch goes at once,
    /// without waiting out the linger (an hour here: the test ends long before).
    @Test(.timeLimit(.minutes(1))) func anIdleLaneLingersUntilItsBatchIsFull() async throws {
        let gate = Gate()
        let writes = GroupCommit<Int, Int>(lanes: 1, maxBatch: 3, linger: .seconds(3600)) { try await gate.execute($0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { _ = try await writes.submit(0, lane: 0) }
            await Self.waitUntil { writes.queued(lane: 0) == 1 }
            group.addTask { _ = try await writes.submit(1, lane: 0) }
            await Self.waitUntil { writes.queued(lane: 0) == 2 }
            #expect(gate.sizes.isEmpty)
            group.addTask { _ = try await writes.submit(2, lane: 0) }
            await Self.waitUntil { !gate.sizes.isEmpty }
            await gate.release()
            try await group.waitForAll()
        }
        #expect(gate.sizes == [3])
    }

    /// A lone write goes once the linger is over (not before: the timer never fires early),
    /// and a lane that is idle again lingers again.
    @Test(.timeLimit(.minutes(1))) func aLoneWriteGoesWhenItsLingerIsOver() async throws {
        let gate = Gate()
        let writes = GroupCommit<Int, Int>(lanes: 1, maxBatch: 32, linger: .milliseconds(100)) { try await gate.execute($0) }
        for i in 0..<2 {
            await Self.waitUntil { !writes.isBusy(lane: 0) }
            let start = ContinuousClock.now
            async let reply = writes.submit(i, lane: 0)
            await Self.waitUntil { gate.sizes.count == i + 1 }
            #expect(ContinuousClock.now - start >= .milliseconds(100))
            await gate.release()
            #expect(try await reply == i * 10)
        }
        #expect(gate.sizes == [1, 1])
    }

    @Test func lanesRunTheirBatchesSideBySide() async throws {
        let gate = Gate()
        let writes = GroupCommit<Int, Int>(lanes: 2, maxBatch: 32) { try await gate.execute($0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { _ = try await writes.submit(1, lane: 0) }
            group.addTask { _ = try await writes.submit(2, lane: 1) }
            // Both batches are in flight before either is released.
            await Self.waitUntil { gate.sizes == [1, 1] }
            await gate.release()
            await gate.release()
            try await group.waitForAll()
        }
    }

    @Test func aCancelledCallerIsLeftOutOfTheNextBatch() async throws {
        let gate = Gate()
        let writes = GroupCommit<Int, Int>(lanes: 1, maxBatch: 32) { try await gate.execute($0) }
        let first = Task { try await writes.submit(0, lane: 0) }
        await Self.waitUntil { gate.sizes == [1] }
        let cancelled = Task { try await writes.submit(1, lane: 0) }
        let kept = Task { try await writes.submit(2, lane: 0) }
        await Self.waitUntil { writes.queued(lane: 0) == 2 }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        await gate.release()
        await gate.release()
        #expect(try await first.value == 0)
        #expect(try await kept.value == 20)
        #expect(gate.batches.withLock { $0 } == [[0], [2]])
    }

    /// A batch whose callers have all left (an outage's 503 released them while it waited
    /// for a connection) is cancelled, and the lane goes on: before, the next write in the
    /// lane queued behind it for as long as the statement waited (here, an hour).
    @Test(.timeLimit(.minutes(1))) func aBatchAllOfWhoseCallersLeftIsCancelled() async throws {
        let started = Mutex(0)
        let stopped = Mutex(false)
        let writes = GroupCommit<Int, Int>(lanes: 1, maxBatch: 32) { items in
            if started.withLock({ $0 += 1; return $0 }) == 1 {
                // Like a lease on a pool whose database is gone: waits until cancelled.
                do { try await Task.sleep(for: .seconds(3600)) } catch {
                    stopped.withLock { $0 = true }
                    throw error
                }
            }
            return items.map { $0 * 10 }
        }
        let stuck = Task { try await writes.submit(1, lane: 0) }
        await Self.waitUntil { started.withLock { $0 } == 1 }
        stuck.cancel()
        await #expect(throws: CancellationError.self) { try await stuck.value }
        #expect(try await writes.submit(2, lane: 0) == 20)
        // The lane no longer waits for the cancelled statement to end: it ends on its own.
        await Self.waitUntil { stopped.withLock { $0 } }
    }

    /// A statement that never returns, cancelled or not (one on a connection whose server
    /// was killed), and its callers: the first batch parks in it for good.
    final class Hang: Sendable {
        let parked = Mutex<[CheckedContinuation<Void, Never>]>([])
        let calls = Mutex(0)

        func execute(_ items: [Int]) async throws -> [Int] {
            if calls.withLock({ $0 += 1; return $0 }) == 1 {
                await withCheckedContinuation { c in parked.withLock { $0.append(c) } }
            }
            return items.map { $0 * 10 }
        }

        /// Lets the parked statement return at last (the test's own clean-up).
        func end() { parked.withLock { p in defer { p.removeAll() }; return p }.forEach { $0.resume() } }
    }

    /// Once its callers have left, the lane goes on without the batch's statement: before,
    /// it waited for the statement, and a statement that never returned (kill -9 of the
    /// database under load) held every later check-in of its lane for good.
    @Test(.timeLimit(.minutes(1))) func aStatementThatNeverReturnsDoesNotHoldItsLane() async throws {
        let hang = Hang()
        defer { hang.end() }
        let writes = GroupCommit<Int, Int>(lanes: 1, maxBatch: 32) { try await hang.execute($0) }
        let stuck = Task { try await writes.submit(1, lane: 0) }
        await Self.waitUntil { hang.parked.withLock { $0.count } == 1 }
        stuck.cancel()
        await #expect(throws: CancellationError.self) { try await stuck.value }
        #expect(try await writes.submit(2, lane: 0) == 20)
    }

    /// A batch past its deadline fails its callers as an outage (503), and the lane goes on.
    @Test(.timeLimit(.minutes(1))) func aBatchPastItsDeadlineFailsItsCallersAndTheLaneGoesOn() async throws {
        let hang = Hang()
        defer { hang.end() }
        let writes = GroupCommit<Int, Int>(lanes: 1, maxBatch: 32, deadline: .milliseconds(200)) { try await hang.execute($0) }
        let waiting = Task { try await writes.submit(1, lane: 0) }
        await Self.waitUntil { hang.parked.withLock { $0.count } == 1 }
        let next = Task { try await writes.submit(2, lane: 0) }
        await #expect(throws: DatabaseUnavailable.self) { try await waiting.value }
        #expect(try await next.value == 20)
    }

    /// A batch's items are let go once it is answered: the hooks that cancel an abandoned
    /// batch held its slots in a cycle, and every check-in written stayed in memory.
    @Test func aBatchIsLetGoOnceAnswered() async throws {
        final class Item: Sendable {}
        weak var written: Item?
        let writes = GroupCommit<Item, Int>(lanes: 1, maxBatch: 32) { items in items.map { _ in 1 } }
        do {
            let item = Item()
            written = item
            #expect(try await writes.submit(item, lane: 0) == 1)
        }
        // The batch's task ends just after its caller is answered.
        for _ in 0..<1000 where written != nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(written == nil)
    }

    /// A batch with a caller still waiting runs on when another leaves.
    @Test func aBatchRunsOnForTheCallersStillWaiting() async throws {
        let gate = Gate()
        let writes = GroupCommit<Int, Int>(lanes: 1, maxBatch: 32) { try await gate.execute($0) }
        let first = Task { try await writes.submit(0, lane: 0) }
        await Self.waitUntil { gate.sizes == [1] }
        let leaving = Task { try await writes.submit(1, lane: 0) }
        let staying = Task { try await writes.submit(2, lane: 0) }
        await Self.waitUntil { writes.queued(lane: 0) == 2 }
        await gate.release()
        await Self.waitUntil { gate.sizes == [1, 2] }
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        await gate.release()
        #expect(try await first.value == 0)
        #expect(try await staying.value == 20)
    }

    @Test func aFailedBatchFailsEveryCallerInIt() async throws {
        let gate = Gate(failing: true)
        let writes = GroupCommit<Int, Int>(lanes: 1, maxBatch: 32) { try await gate.execute($0) }
        let first = Task { try await writes.submit(0, lane: 0) }
        await Self.waitUntil { gate.sizes == [1] }
        let others = (1...3).map { i in Task { try await writes.submit(i, lane: 0) } }
        await Self.waitUntil { writes.queued(lane: 0) == 3 }
        await gate.release()
        await gate.release()
        await #expect(throws: Failure.self) { try await first.value }
        for task in others { await #expect(throws: Failure.self) { try await task.value } }
        #expect(gate.sizes == [1, 3])
    }

    /// An error the next batches would meet too (a lock someone else holds) fails every
    /// caller waiting in the lane with it, at once: each batch in turn waited out its own
    /// `lock_timeout` before (an outside probe: the last of 300 callers had their 503 after 55 s).
    @Test func anErrorTheNextBatchesWouldMeetFailsTheLanesQueue() async throws {
        let gate = Gate(failing: true)
        let writes = GroupCommit<Int, Int>(lanes: 1, maxBatch: 2, failsQueue: { $0 is Failure }) { try await gate.execute($0) }
        let first = Task { try await writes.submit(0, lane: 0) }
        await Self.waitUntil { gate.sizes == [1] }
        let others = (1...5).map { i in Task { try await writes.submit(i, lane: 0) } }
        await Self.waitUntil { writes.queued(lane: 0) == 5 }
        await gate.release()
        await #expect(throws: Failure.self) { try await first.value }
        for task in others { await #expect(throws: Failure.self) { try await task.value } }
        #expect(gate.sizes == [1], "the queued callers ran batches of their own: \(gate.sizes)")
    }
}
