import Synchronization

/// The message feed's notifications not judged yet: what arrives while a judgement is read
/// waits for the next one, all of it judged in one read (`MessageFeed`).
final class UnjudgedChanges: Sendable {
    private let payloads = Mutex<[String?]>([])

    /// Queues a notification's payload (nil: anything may have changed).
    func add(_ payload: String?) {
        payloads.withLock { $0.append(payload) }
    }

    /// Every payload queued since the last call, taken out of the queue.
    func takeAll() -> [String?] {
        payloads.withLock { queued in
            defer { queued.removeAll() }
            return queued
        }
    }
}
