import Synchronization

/// Whether a shown message change was announced since the feed last applied the changes:
/// which ones does not matter (every cached wall is dropped and every stream woken), only
/// that some did, so that a signal whose change a pass already applied costs no second pass.
final class PendingChanges: Sendable {
    private let pending = Atomic(false)

    /// Records that a shown change was announced.
    func mark() {
        pending.store(true, ordering: .releasing)
    }

    /// Whether one was announced since the last call, forgotten here.
    func take() -> Bool {
        pending.exchange(false, ordering: .acquiringAndReleasing)
    }
}
