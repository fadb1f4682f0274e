import FollaCore
import NIOCore
import NIOPosix
import Synchronization

/// Group commit: writes that arrive while a batch is in the database wait and go together
/// in the next batch, one statement and one transaction for all of them, and each caller
/// is answered only once that transaction has committed.
///
/// A busy lane batches as much as arrived during its previous batch. A write that finds its
/// lane idle goes at once (alone), unless the lane lingers: then it waits up to `linger`
/// for more (less, once a full batch has come) and they go together. Without a linger a
/// quiet server keeps one round trip of latency; with one, a moderately busy server stops
/// paying a transaction, a commit and their thread wake-ups per write (check-ins, whose
/// answers wait for the answer floor anyway, linger a quarter of it). Writes are spread over `lanes` writers by a key the caller
/// picks (`submit(_:lane:)`); a lane runs one batch at a time (but does not wait for a batch
/// nobody waits on, or one past its deadline: such a statement may still be running, or
/// commit, beside the lane's next batch; its callers had a 503). Writes that touch the same
/// rows should share a lane: two batches in flight that lock rows in opposite orders
/// deadlock (the statement should run such a batch again: it was rolled back whole).
///
/// Hand-written because nothing in our dependencies batches async calls (PostgresNIO runs
/// one statement per round trip and has no pipelining).
public final class GroupCommit<Item: Sendable, Reply: Sendable>: Sendable {
    /// Runs one batch; returns one reply per item, in order, once committed.
    public typealias Execute = @Sendable ([Item]) async throws -> [Reply]

    private struct Lane {
        var queue: [Slot] = []
        var running = false
        typealias Lingering = (wake: CheckedContinuation<Void, Never>, timer: Scheduled<Void>)
        /// The idle lane's first batch waiting for more writes, and its timer.
        var lingering: Lingering?
        /// Counts the lane's lingers, so that a timer a full batch beat ends no later one.
        var lingers = 0
    }

    private let execute: Execute
    private let failsQueue: @Sendable (any Error) -> Bool
    private let maxBatch: Int
    private let deadline: Duration
    private let linger: Duration
    private let lanes: Mutex<[Lane]>
    /// How many lanes (fixed).
    public let laneCount: Int

    /// - Parameters:
    ///   - lanes: writers running batches at the same time.
    ///   - maxBatch: the most items in one batch.
    ///   - deadline: a batch not answered within this long fails its callers with
    ///     ``DatabaseUnavailable`` and its lane goes on (see `run`). A backstop for a statement
    ///     that never returns while its callers still wait, long enough for a busy box: with
    ///     every test running at once, 10 s cut off live batches (503 where 200 was due).
    ///   - failsQueue: whether a batch's error fails, with it, every caller then waiting in
    ///     the lane: one the next batches would meet as well (a lock someone else holds: each
    ///     batch in turn waited out its own `lock_timeout`, and the last callers of a busy
    ///     lane had their 503 after 55 s, an outside probe found). None by default.
    ///   - linger: how long an idle lane waits for more writes before its first batch
    ///     (zero: it goes at once). It goes sooner once a full batch is waiting.
    ///   - execute: the batch's statement.
    public init(lanes: Int, maxBatch: Int, deadline: Duration = .seconds(60), linger: Duration = .zero,
                failsQueue: @escaping @Sendable (any Error) -> Bool = { _ in false }, execute: @escaping Execute) {
        precondition(lanes >= 1 && maxBatch >= 1)
        self.execute = execute
        self.linger = linger
        self.failsQueue = failsQueue
        self.maxBatch = maxBatch
        self.deadline = deadline
        self.lanes = Mutex(Array(repeating: Lane(), count: lanes))
        self.laneCount = lanes
    }

    /// Writes `item` in the next batch of lane `lane % lanes` and returns its reply once the
    /// batch has committed. A cancelled caller stops waiting at once; its item is left out of
    /// the batch if the batch has not started yet (otherwise it may still be written, as
    /// any statement cut off by a closed connection may have been). A started batch whose
    /// callers have all left is cancelled, and so is one that has run past the deadline
    /// (its callers get ``DatabaseUnavailable``): either way, its lane goes on.
    public func submit(_ item: Item, lane: Int) async throws -> Reply {
        let slot = Slot(item)
        let index = ((lane % laneCount) + laneCount) % laneCount  // also for negative keys
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Reply, any Error>) in
                guard slot.wait(continuation) else { return }
                let (start, full) = lanes.withLock { lanes -> (Bool, Lane.Lingering?) in
                    lanes[index].queue.append(slot)
                    if lanes[index].running {
                        guard lanes[index].queue.count >= maxBatch, let lingering = lanes[index].lingering else { return (false, nil) }
                        lanes[index].lingering = nil
                        return (false, lingering)
                    }
                    lanes[index].running = true
                    return (true, nil)
                }
                if let full {
                    full.timer.cancel()
                    full.wake.resume()
                }
                if start { Task { await self.drain(lane: index) } }
            }
        } onCancel: {
            slot.finish(.failure(CancellationError()))
            slot.left()
        }
    }

    /// Items waiting for the lane's next batch (for tests).
    func queued(lane: Int) -> Int { lanes.withLock { $0[lane].queue.count { !$0.isFinished } } }

    /// Whether the lane is running or lingering (for tests).
    func isBusy(lane: Int) -> Bool { lanes.withLock { $0[lane].running } }

    /// Runs the lane's batches until its queue is empty.
    private func drain(lane: Int) async {
        if linger > .zero { await lingerBeforeFirstBatch(lane: lane) }
        while true {
            let batch = lanes.withLock { lanes -> [Slot]? in
                lanes[lane].queue.removeAll { $0.isFinished }
                guard !lanes[lane].queue.isEmpty else {
                    lanes[lane].running = false
                    return nil
                }
                let n = min(maxBatch, lanes[lane].queue.count)
                defer { lanes[lane].queue.removeFirst(n) }
                return Array(lanes[lane].queue.prefix(n))
            }
            guard let batch else { return }
            await run(batch, lane: lane)
        }
    }

    /// Waits `linger`, or until the lane holds a full batch. The timer is an event loop's
    /// (its epoll wakes for it anyway): `Task.sleep` is timed by Dispatch's timer thread,
    /// which then wakes a worker thread to resume the task, two more thread switches per
    /// batch on a box where they were the cost (`Entry`).
    private func lingerBeforeFirstBatch(lane: Int) async {
        await withCheckedContinuation { (wake: CheckedContinuation<Void, Never>) in
            let loop = MultiThreadedEventLoopGroup.singleton.any()
            // The timer is set under the lock, with the lingering it ends: set outside, it could
            // fire before it was stored and end nothing (the singleton's loops never shut
            // down, so a timer always fires or is cancelled).
            let full = lanes.withLock { lanes -> Bool in
                if lanes[lane].queue.count >= maxBatch { return true }
                lanes[lane].lingers += 1
                let round = lanes[lane].lingers
                let timer = loop.scheduleTask(in: TimeAmount(linger)) {
                    let due = self.lanes.withLock { lanes -> Lane.Lingering? in
                        guard lanes[lane].lingers == round, let lingering = lanes[lane].lingering else { return nil }
                        lanes[lane].lingering = nil
                        return lingering
                    }
                    due?.wake.resume()
                }
                lanes[lane].lingering = (wake, timer)
                return false
            }
            if full { wake.resume() }
        }
    }

    /// Runs one batch. The lane waits for it only while someone does, and at most
    /// `deadline`: once every caller has left (an outage's 503 released them), or the
    /// deadline has passed, the batch is cancelled and the lane goes on without waiting for
    /// its statement to return. A statement on a connection whose server was killed was seen
    /// never to return, cancelled or not: the lane waited for it for good, and every later
    /// check-in in its half of the map hung, while the other lane and `/readyz` were fine.
    /// (Before the callers' leaving cancelled the batch, a batch waiting on the pool of a
    /// database gone away held its lane until the pool reconnected: 9.4 s on CI.)
    private func run(_ batch: [Slot], lane: Int) async {
        let items = batch.map(\.item)
        let outcome = FirstResult<[Reply]>()
        let deadline = self.deadline
        let abandoned: @Sendable () -> Void = {
            if batch.allSatisfy(\.isFinished) { outcome.finish(.failure(CancellationError())) }
        }
        for slot in batch { slot.onLeave(abandoned) }
        // The hooks hold the batch: cleared, or each batch's slots would hold one another for good.
        defer {
            for slot in batch { slot.onLeave(nil) }
        }
        abandoned()  // any that left before the hooks were set
        do {
            let replies = try await outcome.race({ [execute] in try await execute(items) }, against: [
                FirstResult.after(deadline, timer: EventLoopTimer()) {
                    DatabaseUnavailable(reason: "the database did not answer a batch of writes within \(deadline)",
                                        retryAfterSeconds: 2)
                },
            ])
            guard replies.count == batch.count else {
                throw GroupCommitError.replies(expected: batch.count, got: replies.count)
            }
            for (slot, reply) in zip(batch, replies) { slot.finish(.success(reply)) }
        } catch {
            for slot in batch { slot.finish(.failure(error)) }
            guard failsQueue(error) else { return }
            let queued = lanes.withLock { lanes in
                defer { lanes[lane].queue.removeAll() }
                return lanes[lane].queue
            }
            for slot in queued { slot.finish(.failure(error)) }
        }
    }

    /// One caller's item and its way back, answered exactly once.
    private final class Slot: Sendable {
        private enum State {
            case pending
            case waiting(CheckedContinuation<Reply, any Error>)
            case finished(Result<Reply, any Error>?)
        }

        let item: Item
        private let state = Mutex<State>(.pending)
        /// Called when the caller stops waiting (set once its batch has started).
        private let leave = Mutex<(@Sendable () -> Void)?>(nil)

        init(_ item: Item) { self.item = item }

        var isFinished: Bool {
            state.withLock { if case .finished = $0 { true } else { false } }
        }

        /// Registers the caller; false (and the caller answered) when it was already cancelled.
        func wait(_ continuation: CheckedContinuation<Reply, any Error>) -> Bool {
            let early: Result<Reply, any Error>?? = state.withLock { s in
                switch s {
                case .pending:
                    s = .waiting(continuation)
                    return .none
                case .finished(let result):
                    s = .finished(nil)
                    return .some(result)
                case .waiting:
                    preconditionFailure("a slot is waited on once")
                }
            }
            guard case .some(let result) = early else { return true }
            continuation.resume(with: result ?? .failure(CancellationError()))
            return false
        }

        func onLeave(_ action: (@Sendable () -> Void)?) { leave.withLock { $0 = action } }

        /// The caller stopped waiting (cancelled).
        func left() { leave.withLock { $0 }?() }

        func finish(_ result: Result<Reply, any Error>) {
            let waiter: CheckedContinuation<Reply, any Error>? = state.withLock { s in
                switch s {
                case .pending:
                    s = .finished(result)
                    return nil
                case .waiting(let continuation):
                    s = .finished(nil)
                    return continuation
                case .finished:
                    return nil
                }
            }
            waiter?.resume(with: result)
        }
    }
}

/// The batch's statement broke its contract.
public enum GroupCommitError: Error, CustomStringConvertible {
    case replies(expected: Int, got: Int)

    public var description: String {
        switch self {
        case let .replies(expected, got): "a batch of \(expected) writes came back with \(got) replies"
        }
    }
}
