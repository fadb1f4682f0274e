/// From live places to what readers may see.
extension PrivacyPolicy {
    /// Places with established people, as readers may see them. Places of `k` or more keep
    /// their id and show their anchor on the fine grid; smaller ones are merged per ~100 m
    /// cell into one entry with no id, no breakdown and the cell centre as position.
    /// Everything downstream (radius and area selection, clustering, centroids, hulls)
    /// sees only these positions, so probing with radius, ε or area edges finds cells.
    public func publish(_ places: [LivePlace]) -> [PublishedPlace] {
        var out: [PublishedPlace] = []
        out.reserveCapacity(places.count)
        var cells: [CellKey: Int] = [:]
        for p in places where p.stats.people > 0 {
            if !isSmall(people: p.stats.people) {
                out.append(PublishedPlace(
                    id: p.id, position: refine(p.anchor), isCell: false, people: p.stats.people,
                    lastActivity: coarsen(p.lastActivity), messageCount: p.messageCount, sources: [p.id],
                    raw: p.stats, mix: p.mix))
                continue
            }
            let centre = coarsen(p.anchor)
            let key = CellKey(centre)
            // A cell holding one person would show their ping rhythm to the minute: a quarter
            // of an hour is enough to say whether the spot is alive.
            let active = isOriginal ? p.lastActivity : p.lastActivity.floored(toMultipleOf: 900)
            if let i = cells[key] {
                out[i].people += p.stats.people
                out[i].messageCount += p.messageCount
                out[i].lastActivity = max(out[i].lastActivity, active)
                out[i].sources.append(p.id)
            } else {
                cells[key] = out.count
                out.append(PublishedPlace(
                    id: nil, position: centre, isCell: true, people: p.stats.people,
                    lastActivity: active, messageCount: p.messageCount, sources: [p.id],
                    raw: nil, mix: 0))
            }
        }
        return out
    }

    /// Whether a place may be read by its id (detail, messages, legacy getMessage): only a
    /// place of `k` or more established people has a public id.
    public func isPublished(_ place: LivePlace) -> Bool {
        !isSmall(people: place.stats.people)
    }

    /// Messages as a reader sees them: only a published place is named; a small group's
    /// message shows its cell's entry and no place.
    /// - Parameters:
    ///   - messages: from the store.
    ///   - published: the ids of the places the answer shows by id.
    public func messages(_ messages: [Message], naming published: Set<Int64>) -> [Message] {
        messages.map { m in
            var m = m
            if let id = m.placeID, !published.contains(id) { m.placeID = nil }
            m.createdAt = coarsen(m.createdAt)
            return m
        }
    }
}

/// A cell centre, exactly (cells are computed, so equal centres are bit-equal).
private struct CellKey: Hashable {
    let lat: UInt64
    let lon: UInt64
    init(_ c: Coordinate) {
        lat = c.latitude.bitPattern
        lon = c.longitude.bitPattern
    }
}
