import FollaCore
import FollaServices
import FollaStore
import Logging
import ServiceLifecycle

/// Carries message changes between instances: every instance LISTENs on `folla_messages`
/// (triggers NOTIFY it, with the message's place, at the commit of anything that adds,
/// deletes, hides or shows a message, through whichever instance), and for a change a wall
/// could show (its place is published: `shows`) drops its cached walls and wakes its wall
/// streams. A message posted through instance A reaches a screen streaming from instance B
/// in milliseconds, and a hidden one leaves every wall at the next read. A message no wall
/// can show (posted in a small place) changes nothing: dropped for it, the cached walls told
/// an outside probe when each such message was posted, by showing its own device's move
/// before the cache period was over (session 22).
///
/// Each notification is judged on its own, as it comes, beside the others (`shows`); only a
/// shown one reaches the loop that applies the changes. Notifications that arrive while
/// it works are folded into its next pass (a buffer of one), after waiting `coalesce` for
/// more: a busy city's messages cost each venue's wall at most one read per pass, not one
/// per message, and nothing piles up. Judged after the wait, a hidden message opened the
/// window: a visible one posted within `coalesce` after it was pushed that much sooner, and
/// an outside probe timed hidden posts to ~1 ms by the push of its own (session 23).
///
/// With a read replica, the walls are dropped once the replica has
/// replayed the change (up to `replicaWait`); if it has not by then, they are dropped
/// again after another `replicaWait`, so a wall read from a lagging replica is not kept
/// for a whole cache period.
public struct MessageFeed: Service {
    /// The channel the message triggers notify (migration 0011).
    public static let channel = "folla_messages"

    let listener: NotificationListener
    let walls: WallService
    let places: PlaceReads
    let privacy: PrivacyPolicy
    private let pending = PendingChanges()
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
        self.places = deps.places
        self.privacy = deps.privacy
        self.changes = deps.wallChanges
        self.reads = deps.reads
        self.coalesce = coalesce
        self.replicaWait = replicaWait
    }

    public func run() async throws {
        let (signals, signal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let (announced, announce) = AsyncStream<String?>.makeStream()
        try? await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    // Also after each (re)connection: changes made meanwhile were not announced.
                    await listener.run { payload in announce.yield(payload) }
                    announce.finish()
                }
                group.addTask {
                    // Side by side: judged in turn, a hidden message's read would delay the
                    // judgement of the next notification.
                    await withDiscardingTaskGroup { judged in
                        for await payload in announced {
                            judged.addTask {
                                guard await Self.shows(payload, places: places, privacy: privacy) else { return }
                                pending.mark()
                                signal.yield()
                            }
                        }
                    }
                    signal.finish()
                }
                group.addTask {
                    for await _ in signals {
                        try? await Task.sleep(for: coalesce)
                        // Empty when this signal's changes were applied by the pass before.
                        guard pending.take() else { continue }
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

    /// Whether a wall could show the change a notification announces: a message of a place
    /// with a public id (`PlaceReads.isPublic`), or anything (`payload` nil) after a
    /// reconnection. A place that cannot be read now counts as shown (a wall kept stale is
    /// worse than a read).
    static func shows(_ payload: String?, places: PlaceReads, privacy: PrivacyPolicy) async -> Bool {
        guard let id = payload.flatMap({ Int64($0) }) else { return true }
        return (try? await places.isPublic(id, under: privacy)) ?? true
    }

    private func apply() async {
        await walls.invalidate()
        changes.ring()
    }
}
