import FollaServices
import FollaStore
import Logging
import ServiceLifecycle
import Synchronization

/// Carries message changes between instances: every instance LISTENs on `folla_messages`
/// (a trigger NOTIFYs it at the commit of any statement that adds, hides or deletes
/// messages, through whichever instance), drops its cached walls and wakes its wall
/// streams. A message posted through instance A reaches a screen streaming from instance B
/// in milliseconds, and a hidden one leaves every wall at the next read.
///
/// Notifications arriving within `coalesce` of each other are applied once: a busy city's
/// messages cost each venue's wall at most one read per `coalesce`, not one per message.
/// With a read replica, the walls are dropped only once the replica has replayed the
/// change (up to `replicaWait`), so the next read sees it.
public final class MessageFeed: Service, Sendable {
    /// The channel the `message_changed` trigger notifies (migration 0011).
    public static let channel = "folla_messages"
    let listener: NotificationListener
    let walls: WallService
    let changes: WallChanges
    let reads: ReadDatabase
    let coalesce: Duration
    let replicaWait: Duration
    private let pending = Mutex(false)

    /// - Parameters:
    ///   - listener: listens on `folla_messages` on the primary.
    ///   - deps: the walls, their streams' bell and the reads.
    public init(listener: NotificationListener, deps: AppDependencies, coalesce: Duration = .milliseconds(50),
                replicaWait: Duration = .milliseconds(500)) {
        self.listener = listener
        self.walls = deps.walls
        self.changes = deps.wallChanges
        self.reads = deps.reads
        self.coalesce = coalesce
        self.replicaWait = replicaWait
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            await self.listener.run { _ in await self.changed() }
        }
    }

    /// Schedules one application for every notification that arrives before it starts.
    private func changed() async {
        let first = pending.withLock { p in defer { p = true }; return !p }
        guard first else { return }
        Task { [self] in
            try? await Task.sleep(for: coalesce)
            pending.withLock { $0 = false }
            await reads.catchUp(within: replicaWait)
            await walls.invalidate()
            changes.ring()
        }
    }
}
