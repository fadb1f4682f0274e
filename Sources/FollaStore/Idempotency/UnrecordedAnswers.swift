import Synchronization

/// Answers of idempotent requests whose write committed but whose answer the database could
/// not record (it went away between the two): ``IdempotencyStore`` replays them to retries
/// from here and records them once the database is back. In memory: a process that dies
/// first loses them (the key is then taken over after ``IdempotencyStore/abandonedAfter``).
final class UnrecordedAnswers: Sendable {
    struct Entry: Sendable {
        var key: IdempotencyStore.Key
        var request: [UInt8]
        var answer: IdempotencyStore.Answer
        var kept = ContinuousClock.now
    }

    private struct State {
        var entries: [[UInt8]: Entry] = [:]
        /// Whether a loop is recording them.
        var recording = false
    }

    private let state = Mutex(State())

    /// The kept answer for the key with this hash, if any.
    func answer(for hash: [UInt8]) -> Entry? {
        state.withLock { $0.entries[hash] }
    }

    /// Keeps `entry`; true when the caller should start the loop that records them.
    func keep(_ entry: Entry) -> Bool {
        state.withLock { s in
            s.entries[entry.key.hash] = entry
            let start = !s.recording
            s.recording = true
            return start
        }
    }

    /// What is left to record; nil (and the loop ends) when nothing is. An answer kept for
    /// ``IdempotencyStore/abandonedAfter`` is given up (a retry may have taken its key over
    /// by then, and a closed pool would keep the loop going for good).
    func pending() -> [Entry]? {
        state.withLock { s in
            let limit = ContinuousClock.now - .seconds(IdempotencyStore.abandonedAfter)
            s.entries = s.entries.filter { $0.value.kept > limit }
            guard !s.entries.isEmpty else {
                s.recording = false
                return nil
            }
            return Array(s.entries.values)
        }
    }

    /// Drops the answer for the key with this hash: recorded.
    func forget(_ hash: [UInt8]) {
        _ = state.withLock { $0.entries.removeValue(forKey: hash) }
    }
}
