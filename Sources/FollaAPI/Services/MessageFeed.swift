import FollaServices
import FollaStore
import Logging
import ServiceLifecycle

/// Carries message changes between instances: every instance LISTENs on `folla_messages`
/// (triggers NOTIFY it at the commit of anything that adds, deletes, hides or shows a
/// message, through whichever instance), drops its cached walls and wakes its wall
/// streams. A message posted through instance A reaches a screen streaming from instance B
/// in milliseconds, and a hidden one leaves every wall at the next read.
///
/// One loop applies the changes; notifications that arrive while it works are folded into
/// its next pass (a buffer of one), after waiting `coalesce` for more: a busy city's
/// messages cost each venue's wall at most one read per pass, not one per message, and
/// nothing piles up. With a read replica, the walls are dropped once the replica has
/// replayed the change (up to `replicaWait`); if it has not by then, they are dropped
/// again after another `replicaWait`, so a wall read from a lagging replica is not kept
/// for a whole cache period.
public struct MessageFeed: Service {
    /// The channel the message triggers notify (migration 0011).
    public static let channel = "folla_messages"

    let listener: NotificationListener
    let walls: WallService
    let changes: WallChanges
    let reads: ReadDatabase
    let coalesce: Duration
    let replicaWait: Duration

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
        let (pending, signal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        try? await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    // Also after each (re)connection: changes made meanwhile were not announced.
                    await listener.run { _ in signal.yield() }
                    signal.finish()
                }
                group.addTask {
                    for await _ in pending {
                        try? await Task.sleep(for: coalesce)
                        let caughtUp = await reads.catchUp(within: replicaWait)
                        await apply()
                        if !caughtUp {
                            try? await Task.sleep(for: replicaWait)
                            await apply()
                        }
                    }
                }
            }
        }
    }

    private func apply() async {
        await walls.invalidate()
        changes.ring()
    }
}
