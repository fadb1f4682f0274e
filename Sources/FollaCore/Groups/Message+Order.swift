import Foundation

/// The one order of messages, newest first: by their stored minute, then by their opaque
/// ids (`SQL/0023`). So no order tells more than the minute. Ordered by posting, a message
/// that shows only once its place reaches k fell, on a wall, between messages an attacker
/// posted every few seconds, and so told its time to a few seconds (an outside probe,
/// session 23). The store's queries sort the same way (`MessageRow.newestFirst`).
extension Message {
    /// Whether `self` comes before `other` newest first.
    public func isNewer(than other: Message) -> Bool {
        (createdAt, id) > (other.createdAt, other.id)
    }

    /// Whether `self` is of `cursor`'s minute or later, and not `cursor` itself: what a
    /// poller that has seen `cursor` is sent again. Messages of the cursor's own minute come
    /// again (their order within it says nothing of which were posted after it).
    public func isDue(after cursor: Message) -> Bool {
        createdAt >= cursor.createdAt && id != cursor.id
    }
}
