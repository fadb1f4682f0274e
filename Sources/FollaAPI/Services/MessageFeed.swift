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
/// Notifications are judged as they come (`shows`), those that arrived meanwhile together
/// in one read, and only a shown change reaches the loop that applies the changes; judged
/// after its wait, a hidden message opened the loop's window, and a visible one posted
/// within it was pushed that much sooner (an outside probe timed hidden posts to ~1 ms by
/// the push of its own, session 23; since `SQL/0026` new messages are announced only when
/// shown, at a sweep after their minute). Judged one read each, the ~2 000 messages of a
/// minute of a 40 000-phone evening, shown and announced together, held the database pool
/// for ~0.3 s each minute. Changes that arrive while the loop works are folded into its
/// next pass (a buffer of one), after waiting `coalesce` for more: a busy city's messages
/// cost each venue's wall at most one read per pass, not one per message.
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
    private let unjudged = UnjudgedChanges()
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
                    // What arrived while a judgement was read waits for the next, all of it in
                    // one read.
                    let (arrivals, arrived) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
                    await withDiscardingTaskGroup { judging in
                        judging.addTask {
                            for await _ in arrivals {
                                let batch = unjudged.takeAll()
                                guard !batch.isEmpty, await Self.shows(batch, places: places, privacy: privacy) else { continue }
                                pending.mark()
                                signal.yield()
                            }
                        }
                        for await payload in announced {
                            unjudged.add(payload)
                            arrived.yield()
                        }
                        arrived.finish()
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

    /// Whether a wall could show any of the changes these notifications announce: a message
    /// of a place with a public id (`PlaceReads.anyPublic`), or anything (a `nil` payload)
    /// after a reconnection. Places that cannot be read now count as shown (a wall kept
    /// stale is worse than a read).
    static func shows(_ payloads: [String?], places: PlaceReads, privacy: PrivacyPolicy) async -> Bool {
        var ids: [Int64] = []
        for payload in payloads {
            guard let id = payload.flatMap({ Int64($0) }) else { return true }
            ids.append(id)
        }
        return (try? await places.anyPublic(ids, under: privacy)) ?? true
    }

    private func apply() async {
        await walls.invalidate()
        changes.ring()
    }
}
