import FollaCore
import Foundation

/// A published entry and its own group, built once when the read model publishes it
/// (`PublishedPlaces`). A class: a groups answer takes a few hundred of them and answers a
/// hundred, and handing on a reference is one retain where copying the two values was
/// several (each holds arrays), ~11 % of a groups answer by profile.
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
