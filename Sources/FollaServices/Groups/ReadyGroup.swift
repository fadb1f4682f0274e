import FollaCore
import Foundation

/// A published entry and its own group, built once when the read model publishes it
/// (`PublishedPlaces`). A class: a cell's array holds one reference per entry, so the copy a
/// change makes of a cell that a walk still holds (`ReadyPicks`) is one retain per entry, where
/// copying the two values would be several (each holds arrays).
final class ReadyGroup: Sendable {
    let entry: PublishedPlace
    /// With as many messages as a query may inline.
    let group: Group

    init(entry: PublishedPlace, group: Group) {
        self.entry = entry
        var group = group
        // Answers copy it and change only its distance, bearing and messages shown.
        group.encodings = EncodingMemo()
        self.group = group
    }

    /// The same entry and group showing `lastActivity` (the clock turned it), with nothing
    /// encoded yet.
    func stamped(_ lastActivity: Date) -> ReadyGroup {
        var entry = entry, group = group
        entry.lastActivity = lastActivity
        group.lastActivity = lastActivity
        return ReadyGroup(entry: entry, group: group)
    }
}
