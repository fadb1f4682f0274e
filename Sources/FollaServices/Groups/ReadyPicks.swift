import FollaCore

/// What a walk of the read model found (`PublishedPlaces.around`), as the assembler reads it:
/// each entry's position, people and id copied out, and its ready group reached only if it
/// is answered.
///
/// Why not the groups themselves: a dense answer walks about twice the groups it answers,
/// and handing on each one was a retain, an atomic write to an object the other event loop
/// reads too (its cache line moving between the cores), ~9 % of the answer by profile
/// (session 37). The walked cells' arrays are held instead, one retain each, and they keep
/// every group in them alive after the model's lock is released: a change to a held cell
/// copies its array (copy-on-write) and leaves this one as it was.
struct ReadyPicks: Sendable {
    /// One entry found: the facts ordering needs, and where its group is.
    struct Pick: Sendable {
        let position: Coordinate
        let people: Int
        /// `PublishedPlace.idIfPlace`.
        let id: Int64?
        fileprivate let cell: Int32
        fileprivate let index: Int32
    }

    private(set) var picks: [Pick] = []
    /// The arrays of the cells a pick came from, held.
    private var held: [[PublishedPlaces.Shown.Entry]] = []

    var count: Int { picks.count }

    /// Starts the picks from a cell's entries: returns the number to pick them by.
    mutating func hold(_ entries: [PublishedPlaces.Shown.Entry]) -> Int32 {
        held.append(entries)
        return Int32(held.count - 1)
    }

    /// Picks entry `index` of the cell `hold` numbered `cell`.
    mutating func pick(_ index: Int, of cell: Int32) {
        // Field by field: the entry copied out would retain its group.
        let entries = held[Int(cell)]
        picks.append(Pick(position: entries[index].position, people: entries[index].people, id: entries[index].id,
                          cell: cell, index: Int32(index)))
    }

    /// Pick `i`'s ready group.
    func group(_ i: Int) -> ReadyGroup {
        held[Int(picks[i].cell)][Int(picks[i].index)].group
    }

    /// A copy of pick `i`'s group (an answered one), read in place (`group(_:)` would retain
    /// the ready group on the way).
    func copyOfGroup(_ i: Int) -> Group {
        let p = picks[i]
        return held[Int(p.cell)].withUnsafeBufferPointer { $0[Int(p.index)].group.group }
    }

    /// Every pick's published entry (clusters are built from them).
    var entries: [PublishedPlace] {
        picks.indices.map { group($0).entry }
    }
}
