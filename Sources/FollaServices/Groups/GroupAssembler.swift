import FollaCore
import FollaGeo
import Foundation

/// Turns published places around a point into the groups a reader sees: radius filter,
/// optional clustering (DBSCAN, minpoints 1, in a local metric plane), people-weighted
/// centroids, hulls, geodesic distance and bearing, stats, filters, order.
///
/// It sees only what `PrivacyPolicy.publish` let through (cells for small groups, fine-grid
/// positions for the others), so nothing here can reveal a real anchor. Owns GEOS/PROJ state
/// through its builders: one assembler per request.
public struct GroupAssembler {
    public let query: GroupQuery
    public let privacy: PrivacyPolicy
    /// The lines from the query's centre (distance and bearing of every group measured).
    private let fan: GeodesicFan

    public init(query: GroupQuery, privacy: PrivacyPolicy) {
        self.query = query
        self.privacy = privacy
        fan = GeodesicFan(centre: query.centre)
    }

    /// - Parameters:
    ///   - places: live places from the store, before the policy.
    ///   - now: the time of the answer (`PrivacyPolicy.publish`).
    public func assemble(_ places: [LivePlace], at now: Date) throws(GeoError) -> [Group] {
        try assemble(privacy.publish(places, at: now))
    }

    /// - Parameter entries: what the policy published around the centre (and possibly farther).
    public func assemble(_ entries: [PublishedPlace]) throws(GeoError) -> [Group] {
        let disc = GeodesicDisc(centre: query.centre, radius: query.radius)
        var (visible, lines) = within(disc, count: entries.count) { entries[$0].position }
        guard !visible.isEmpty else { return [] }
        guard let eps = query.clusterEpsilon else {
            return singles(visible, lines: lines, disc: disc, candidate: { Candidate(entries[$0]) }) { i in
                Self.single(entries[i], privacy: privacy)
            }
        }
        // The same entries in whatever order (a read model's or the database's) make the same
        // clusters to the last bit: centroids are sums, and DBSCAN numbers clusters as met.
        let sorted = visible.indices.sorted { a, b in
            let p = entries[visible[a]], q = entries[visible[b]]
            return (p.position.latitude, p.position.longitude, p.id ?? -1) < (q.position.latitude, q.position.longitude, q.id ?? -1)
        }
        visible = sorted.map { visible[$0] }
        lines = sorted.map { lines[$0] }
        // One plane per request, centred on the asker: PROJ set-up is the expensive part.
        let plane = try LocalProjection(centre: query.centre)
        var points: [PlanarPoint] = []
        points.reserveCapacity(visible.count)
        for i in visible { points.append(try plane.forward(entries[i].position)) }
        let members = try Clustering.partition(points, epsilon: eps, context: GeometryContext())
        var groups: [Group] = []
        var groupLines: [GeodesicFan.Ray?] = []
        var memberIndices: [[Int]] = []
        groups.reserveCapacity(members.count)
        for cluster in members {
            let parts = cluster.map { entries[visible[$0]] }
            let people = parts.reduce(0) { $0 + $1.people }
            guard query.admits(people: people) else { continue }
            let position = parts.count == 1 ? parts[0].position : try weightedCentroid(parts, in: plane)
            groups.append(Self.group(of: parts, people: people, at: position, privacy: privacy))
            groupLines.append(parts.count == 1 ? lines[cluster[0]] : nil)
            memberIndices.append(cluster)
        }
        let candidates = groups.map { Candidate(position: $0.position, people: $0.people, id: $0.id) }
        var order: [Int] = []
        var answered = answer(candidates, lines: groupLines, disc: disc) { c in
            order.append(c)
            return groups[c]
        }
        // Hulls only for the groups that are answered: they are the costly part.
        let builder = FootprintBuilder()
        for (i, g) in order.enumerated() where !answered[i].isCoarsened {
            answered[i].hull = try builder.footprint(of: memberIndices[g].map { entries[visible[$0]].position }, in: plane).ring
        }
        return answered
    }

    /// The read model's ready groups around the centre, for a query without clustering
    /// (clusters are built from the entries, `assemble(_:)`): the answer copies only the
    /// groups it answers (building one per entry in range was most of an answer's cost in a
    /// dense evening).
    func assemble(ready: ReadyPicks) throws(GeoError) -> [Group] {
        precondition(query.clusterEpsilon == nil, "clusters are built from the entries")
        let disc = GeodesicDisc(centre: query.centre, radius: query.radius)
        let picks = ready.picks
        let (visible, lines) = within(disc, count: picks.count) { picks[$0].position }
        return singles(visible, lines: lines, disc: disc,
                       candidate: { Candidate(position: picks[$0].position, people: picks[$0].people, id: picks[$0].id) }) { ready.copyOfGroup($0) }
    }

    /// The indices of the positions within the radius, with the line to those measured.
    /// A line (`GeodesicFan`) only where the disc's bounds cannot decide: at the radius's
    /// edge (and later for the groups that are answered or might be).
    private func within(_ disc: GeodesicDisc, count: Int, position: (Int) -> Coordinate) -> (indices: [Int], lines: [GeodesicFan.Ray?]) {
        var visible: [Int] = []
        var lines: [GeodesicFan.Ray?] = []
        for i in 0..<count {
            let p = position(i)
            if let bounds = disc.distanceBounds(to: p) {
                if bounds.lowerBound > query.radius { continue }
                if bounds.upperBound <= query.radius {
                    visible.append(i)
                    lines.append(nil)
                    continue
                }
            } else if !disc.mayContain(p) {
                continue
            }
            let line = fan.ray(to: p)
            guard line.distance <= query.radius else { continue }
            visible.append(i)
            lines.append(line)
        }
        return (visible, lines)
    }

    /// One group per entry, built (or copied) only for the entries answered.
    /// - Parameters:
    ///   - visible: the entries within the radius; `lines` the lines to them when measured.
    ///   - candidate: what ordering needs of entry `i`.
    ///   - group: entry `i`'s own group.
    private func singles(_ visible: [Int], lines: [GeodesicFan.Ray?], disc: GeodesicDisc,
                         candidate: (Int) -> Candidate, group: (Int) -> Group) -> [Group] {
        var candidates: [Candidate] = []
        var from: [Int] = []
        var candidateLines: [GeodesicFan.Ray?] = []
        for (v, i) in visible.enumerated() {
            let c = candidate(i)
            guard query.admits(people: c.people) else { continue }
            candidates.append(c)
            from.append(i)
            candidateLines.append(lines[v])
        }
        return answer(candidates, lines: candidateLines, disc: disc) { group(from[$0]) }
    }

    /// An entry's own group, as answered without clustering (distance and bearing still to be
    /// measured: zero). The read model keeps one per entry.
    public static func single(_ entry: PublishedPlace, privacy: PrivacyPolicy) -> Group {
        group(of: [entry], people: entry.people, at: entry.position, privacy: privacy)
    }

    /// What ordering needs of a group, without copying it.
    private struct Candidate {
        var position: Coordinate
        var people: Int
        /// nil for a cell (ordered last among equals).
        var id: Int64?

        init(position: Coordinate, people: Int, id: Int64?) {
            self.position = position
            self.people = people
            self.id = id
        }

        /// An entry's own group's.
        init(_ e: PublishedPlace) {
            self.init(position: e.position, people: e.people, id: e.idIfPlace)
        }
    }

    /// The groups answered, in order, each with its distance and bearing.
    /// - Parameters:
    ///   - lines: the line to each candidate when already measured.
    ///   - group: candidate `i`'s group, asked only for the candidates answered.
    private func answer(_ candidates: [Candidate], lines: [GeodesicFan.Ray?], disc: GeodesicDisc,
                        group: (Int) -> Group) -> [Group] {
        var lines = lines
        func line(_ i: Int) -> GeodesicFan.Ray {
            if let known = lines[i] { return known }
            let measured = fan.ray(to: candidates[i].position)
            lines[i] = measured
            return measured
        }
        return answerOrder(of: candidates, disc: disc, line: line).map { i in
            var g = group(i)
            let l = line(i)
            g.distance = l.distance
            g.bearing = l.initialBearing
            return g
        }
    }

    /// The indices of the groups answered, in order: the first `limit` by (distance, id) or by
    /// (people descending, distance, id), exactly as if every distance were measured, then
    /// by position (`Coordinate+Order`): cells have no id, and two at the same distance (a
    /// centre halfway between them) came out in the read model's order, where a touched cell
    /// moved to the end. An outside probe (session 24) read from it when a lone person's place
    /// was touched (pings to ~0.4 s, hidden posts to ~0.3 s) and, with a probe id that joined
    /// their place or founded its own, which 10 m sub-cell they stood in.
    ///
    /// By distance, only the groups that could be among the first `limit` are measured: those
    /// whose distance's lower bound is at most the `limit`-th smallest upper bound (every other
    /// group is certainly farther than `limit` groups).
    /// - Parameters:
    ///   - disc: the query's disc, for the bounds.
    ///   - line: the measured line from the centre to group `i` (measured once, on demand).
    private func answerOrder(of groups: [Candidate], disc: GeodesicDisc, line: (Int) -> GeodesicFan.Ray) -> [Int] {
        guard query.limit > 0 else { return [] }
        let id = { (i: Int) in groups[i].id ?? Int64.max }
        switch query.sort {
        case .people:
            let keys = groups.indices.map { i in
                (index: i, people: groups[i].people, distance: line(i).distance, id: id(i), at: groups[i].position)
            }
            return keys.sorted { ($1.people, $0.distance, $0.id, $0.at) < ($0.people, $1.distance, $1.id, $1.at) }
                .prefix(query.limit).map(\.index)
        case .distance:
            var candidates = Array(groups.indices)
            let bounds = groups.map { g in disc.distanceBounds(to: g.position) }
            let uppers = bounds.compactMap { $0?.upperBound }.sorted()
            if uppers.count > query.limit {
                // A group without bounds (a coarsened cluster's cell centre beyond the disc,
                // a disc outside the plane's domain) stays a candidate.
                let cut = uppers[query.limit - 1]
                candidates = candidates.filter { bounds[$0].map { $0.lowerBound <= cut } ?? true }
            }
            let keys = candidates.map { i in (index: i, distance: line(i).distance, id: id(i), at: groups[i].position) }
            return keys.sorted { ($0.distance, $0.id, $0.at) < ($1.distance, $1.id, $1.at) }.prefix(query.limit).map(\.index)
        }
    }

    /// A group with its distance and bearing still to be measured (zero).
    /// - Parameter position: the group's position before coarsening (for several parts,
    ///   their people-weighted centroid).
    private static func group(of parts: [PublishedPlace], people: Int, at position: Coordinate, privacy: PrivacyPolicy) -> Group {
        var position = position
        // A single cell, or a cluster still smaller than k, shows only a cell.
        let coarsened = parts.count == 1 ? parts[0].isCell : privacy.isSmall(people: people)
        if coarsened && parts.count > 1 { position = privacy.coarsen(position) }
        let ids = parts.compactMap(\.id).sorted()
        return Group(
            id: coarsened ? nil : ids.first, position: position, isCoarsened: coarsened, distance: 0,
            bearing: 0, people: people, stats: coarsened ? nil : privacy.stats(of: parts),
            lastActivity: parts.map(\.lastActivity).max()!, messageCount: parts.reduce(0) { $0 + $1.messageCount },
            messages: [], memberPlaceIDs: coarsened ? [] : ids, sources: parts.flatMap(\.sources), hull: nil)
    }

    /// People-weighted centroid, computed in a local metric plane.
    private func weightedCentroid(_ parts: [PublishedPlace], in plane: LocalProjection) throws(GeoError) -> Coordinate {
        var x = 0.0, y = 0.0, w = 0.0
        for p in parts {
            let q = try plane.forward(p.position)
            let weight = Double(max(p.people, 1))
            x += q.x * weight
            y += q.y * weight
            w += weight
        }
        return try plane.inverse(PlanarPoint(x: x / w, y: y / w))
    }
}
