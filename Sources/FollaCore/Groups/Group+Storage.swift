import struct Foundation.Date

extension Group {
    /// What a group shares with its copies until one of them changes it (`Group` says why):
    /// all of it but the distance, bearing and messages.
    /// Mutated only through `Group.unique()`, that is only while one group holds it: its
    /// `Sendable` promise rests on that.
    final class Storage: @unchecked Sendable, Equatable {
        // First, beside the object's header: what a ready group's JSON reads besides its
        // distance and bearing, usually in the cache line that copying the group (a
        // retain) has just touched. In a city's worth of ready groups, each other line is a
        // likely miss. A `let`: read from a borrowed group, it needs no retain
        // (`Group.withEncoding`); a group given other encodings gets another box.
        let encodings: EncodingMemo?
        var isCoarsened: Bool
        var id: Int64?
        var position: Coordinate
        var people: Int
        var stats: PublishedStats?
        var lastActivity: Date
        var messageCount: Int
        var memberPlaceIDs: [Int64]
        var sources: [Int64]
        var hull: [Coordinate]?

        init(id: Int64?, position: Coordinate, isCoarsened: Bool, people: Int, stats: PublishedStats?, lastActivity: Date,
             messageCount: Int, memberPlaceIDs: [Int64], sources: [Int64], hull: [Coordinate]?,
             encodings: EncodingMemo?) {
            self.id = id
            self.position = position
            self.isCoarsened = isCoarsened
            self.people = people
            self.stats = stats
            self.lastActivity = lastActivity
            self.messageCount = messageCount
            self.memberPlaceIDs = memberPlaceIDs
            self.sources = sources
            self.hull = hull
            self.encodings = encodings
        }

        func copy() -> Storage {
            copy(replacingEncodings: encodings)
        }

        /// A copy with other encodings (nil: none).
        func copy(replacingEncodings encodings: EncodingMemo?) -> Storage {
            Storage(id: id, position: position, isCoarsened: isCoarsened, people: people, stats: stats,
                    lastActivity: lastActivity, messageCount: messageCount, memberPlaceIDs: memberPlaceIDs,
                    sources: sources, hull: hull, encodings: encodings)
        }

        static func == (a: Storage, b: Storage) -> Bool {
            a.id == b.id && a.position == b.position && a.isCoarsened == b.isCoarsened && a.people == b.people
                && a.stats == b.stats && a.lastActivity == b.lastActivity && a.messageCount == b.messageCount
                && a.memberPlaceIDs == b.memberPlaceIDs && a.sources == b.sources
                && a.hull == b.hull && a.encodings == b.encodings
        }
    }
}
