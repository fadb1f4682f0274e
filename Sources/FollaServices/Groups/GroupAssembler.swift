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

    public init(query: GroupQuery, privacy: PrivacyPolicy) {
        self.query = query
        self.privacy = privacy
    }

    /// - Parameter places: live places from the store, before the policy.
    public func assemble(_ places: [LivePlace]) throws(GeoError) -> [Group] {
        // Karney's inverse (~0.6 µs) only where the disc's bounds cannot decide: at the
        // radius's edge, and for the groups that are answered or might be.
        let disc = GeodesicDisc(centre: query.centre, radius: query.radius)
        var visible: [PublishedPlace] = []
        var lines: [GeodesicLine?] = []
        for entry in privacy.publish(places) {
            if let bounds = disc.distanceBounds(to: entry.position) {
                if bounds.lowerBound > query.radius { continue }
                if bounds.upperBound <= query.radius {
                    visible.append(entry)
                    lines.append(nil)
                    continue
                }
            } else if !disc.mayContain(entry.position) {
                continue
            }
            let line = Geodesic.wgs84.inverse(from: query.centre, to: entry.position)
            guard line.distance <= query.radius else { continue }
            visible.append(entry)
            lines.append(line)
        }
        guard !visible.isEmpty else { return [] }
        let members: [[Int]]
        // One plane per request, centred on the asker: PROJ set-up is the expensive part.
        var plane: LocalProjection? = nil
        if let eps = query.clusterEpsilon {
            let p = try LocalProjection(centre: query.centre)
            var points: [PlanarPoint] = []
            points.reserveCapacity(visible.count)
            for entry in visible { points.append(try p.forward(entry.position)) }
            members = try Clustering.partition(points, epsilon: eps, context: GeometryContext())
            plane = p
        } else {
            members = visible.indices.map { [$0] }
        }
        var groups: [Group] = []
        var groupLines: [GeodesicLine?] = []
        var memberIndices: [[Int]] = []
        groups.reserveCapacity(members.count)
        for cluster in members {
            let parts = cluster.map { visible[$0] }
            let people = parts.reduce(0) { $0 + $1.people }
            guard query.admits(people: people) else { continue }
            groups.append(try group(of: parts, people: people, plane: plane))
            groupLines.append(parts.count == 1 ? lines[cluster[0]] : nil)
            memberIndices.append(cluster)
        }
        func line(_ i: Int) -> GeodesicLine {
            if let known = groupLines[i] { return known }
            let measured = Geodesic.wgs84.inverse(from: query.centre, to: groups[i].position)
            groupLines[i] = measured
            return measured
        }
        let order = answerOrder(of: groups, disc: disc, line: line)
        var answer = order.map { i in
            var g = groups[i]
            let l = line(i)
            g.distance = l.distance
            g.bearing = l.initialBearing
            return g
        }
        // Hulls only for the groups that are answered: they are the costly part.
        if let plane {
            let builder = FootprintBuilder()
            for (i, g) in order.enumerated() where !answer[i].isCoarsened {
                answer[i].hull = try builder.footprint(of: memberIndices[g].map { visible[$0].position }, in: plane).ring
            }
        }
        return answer
    }

    /// The indices of the groups answered, in order: the first `limit` by (distance, id) or by
    /// (people descending, distance, id), exactly as if every distance were measured.
    ///
    /// By distance, only the groups that could be among the first `limit` are measured: those
    /// whose distance's lower bound is at most the `limit`-th smallest upper bound (every other
    /// group is certainly farther than `limit` groups). Order plain keys rather than the
    /// groups: reading `groups[i]` inside the comparator copied a whole Group per comparison.
    /// - Parameters:
    ///   - disc: the query's disc, for the bounds.
    ///   - line: the measured line from the centre to group `i` (measured once, on demand).
    private func answerOrder(of groups: [Group], disc: GeodesicDisc, line: (Int) -> GeodesicLine) -> [Int] {
        guard query.limit > 0 else { return [] }
        let id = { (i: Int) in groups[i].id ?? Int64.max }
        switch query.sort {
        case .people:
            let keys = groups.indices.map { i in (index: i, people: groups[i].people, distance: line(i).distance, id: id(i)) }
            return keys.sorted { ($1.people, $0.distance, $0.id) < ($0.people, $1.distance, $1.id) }
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
            let keys = candidates.map { i in (index: i, distance: line(i).distance, id: id(i)) }
            return keys.sorted { ($0.distance, $0.id) < ($1.distance, $1.id) }.prefix(query.limit).map(\.index)
        }
    }

    /// A group with its distance and bearing still to be measured (zero).
    private func group(of parts: [PublishedPlace], people: Int, plane: LocalProjection?) throws(GeoError) -> Group {
        var position = parts[0].position
        if parts.count > 1 {
            let centroidPlane: LocalProjection
            if let plane { centroidPlane = plane } else { centroidPlane = try LocalProjection(centre: position) }
            position = try weightedCentroid(parts, in: centroidPlane)
        }
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
