import Foundation

/// From live places to what readers may see.
extension PrivacyPolicy {
    /// Places with established people, as readers may see them. Places of `k` or more keep
    /// their id and show their anchor on the fine grid; smaller ones are merged per ~100 m
    /// cell into one entry with no id, no breakdown and the cell centre as position.
    /// Everything downstream (radius and area selection, clustering, centroids, hulls)
    /// sees only these positions, so probing with radius, ε or area edges finds cells.
    /// - Parameters:
    ///   - places: live places from the store.
    ///   - now: the time of the answer: shown activity turns only at minutes (places) and
    ///     quarter hours (cells) of the clock (``shownActivity(newest:isCell:at:)``).
    public func publish(_ places: [LivePlace], at now: Date) -> [PublishedPlace] {
        var out: [PublishedPlace] = []
        out.reserveCapacity(places.count)
        var cells: [PublishedKey: Int] = [:]
        for p in places {
            switch publishedKey(of: p) {
            case nil:
                continue
            case .place:
                let breakdown = publishedBreakdown(of: p)
                out.append(PublishedPlace(
                    id: p.id, position: refine(p.anchor), isCell: false, people: p.stats.people,
                    lastActivity: shownActivity(of: p, isCell: false, at: now), messageCount: p.messageCount, sources: [p.id],
                    raw: breakdown?.stats, mix: Self.noiseMix(breakdown?.mix ?? 0, cell: coarsen(p.anchor))))
            case let key?:
                let active = shownActivity(of: p, isCell: true, at: now)
                // A cell shows no messages. Shown while their small place lived, they were a
                // membership oracle: an attacker's message posted where it pinged stayed after
                // it left if it had joined someone's place, and vanished if it had founded its
                // own (an outside attack located a lone person to 2.4 m in 24 pings, with one
                // established device at a time). A message shows once its place has k people.
                if let i = cells[key] {
                    out[i].people += p.stats.people
                    out[i].lastActivity = max(out[i].lastActivity, active)
                } else {
                    cells[key] = out.count
                    out.append(PublishedPlace(
                        id: nil, position: coarsen(p.anchor), isCell: true, people: p.stats.people,
                        lastActivity: active, messageCount: 0, sources: [], raw: nil, mix: 0))
                }
            }
        }
        return out
    }

    /// The last activity a place shows: a place of k or more, the minute of the newest ping of
    /// the people in it at the minute's showing, before that minute (`SQL/0030`); a cell of
    /// small groups, the start of the current quarter hour, whoever is in it.
    ///
    /// A cell shows only while someone in it counts (pinged within the TTL): its own time
    /// says little more than the clock, and everything it said beyond the clock was an
    /// oracle. Floored to its newest ping's step, the value turned at the first ping after
    /// each step: polling a cell every 0.5 s told that ping's time to ~0.2 s once a quarter
    /// (an outside probe, session 23). Shown as the newest activity before the current step
    /// (`SQL/0027`), a place founded in the step had none before and showed the step itself,
    /// so the cell's value told whether a ping had founded a place or joined one: an outside
    /// probe (session 26) with one established device located a lone person's 10 m sub-cell
    /// in 13 of 13 trials (median 3.9 m, 5–24 probes), and timed their moves within the cell
    /// to ~0.3 s. A public place's minute turns only when the clock enters a minute, whoever
    /// pings (it is public: its founding is no secret), and only for its people then: taken
    /// from the live row, it kept the ping of whoever came and left within a minute, and an
    /// attacker with k established devices silent in their own public place learnt that
    /// someone had pinged within its 10 m though the counts never showed them (an outside
    /// probe, session 26: 6 of 6). Posts are no activity (`SQL/0026`).
    /// - Parameters:
    ///   - place: the live place.
    ///   - isCell: whether it shows in a cell of small groups or on its own.
    ///   - now: the time of the answer.
    public func shownActivity(of place: LivePlace, isCell: Bool, at now: Date) -> Date {
        if isOriginal { return place.lastActivity }
        if isCell { return now.floored(toMultipleOf: Self.activityQuarter) }
        if let shown = place.shownActivity { return shown.floored(toMultipleOf: 60) }
        // Never shown as a place of k or more (a database on which no server has stored its
        // k): no later than the minute before.
        return min(place.lastActivity, now.floored(toMultipleOf: 60).addingTimeInterval(-60)).floored(toMultipleOf: 60)
    }

    /// The granularity of a cell's shown activity, seconds.
    public static let activityQuarter: TimeInterval = 900

    /// Which published entry a live place shows in: its own (k or more established people),
    /// its cell's (fewer), or none (nobody established). `publish` merges exactly the places
    /// of one key, so a reader that keeps published entries (the groups read model) can
    /// publish again only the keys a change touched.
    public func publishedKey(of place: LivePlace) -> PublishedKey? {
        guard place.stats.people > 0 else { return nil }
        guard isSmall(people: place.stats.people) else { return .place(place.id) }
        let centre = coarsen(place.anchor)
        return .cell(latitudeBits: centre.latitude.bitPattern, longitudeBits: centre.longitude.bitPattern)
    }

    /// Whether a place may be read by its id (detail, messages, legacy getMessage): only a
    /// place of `k` or more established people has a public id.
    public func isPublished(_ place: LivePlace) -> Bool {
        !isSmall(people: place.stats.people)
    }

    /// Messages as a reader sees them: only a published place is named (a message fetched for
    /// a public entry may come from a place that was small when it was posted, and is then
    /// named; a cell's entry shows none).
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
