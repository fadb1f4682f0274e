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
        // The disc skips Karney's inverse for what is clearly out of range; the lines of
        // what is in range are kept, a single place's group reuses its own.
        let disc = GeodesicDisc(centre: query.centre, radius: query.radius)
        var visible: [PublishedPlace] = []
        var lines: [GeodesicLine] = []
        for entry in privacy.publish(places) where disc.mayContain(entry.position) {
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
        var memberIndices: [[Int]] = []
        groups.reserveCapacity(members.count)
        for cluster in members {
            let parts = cluster.map { visible[$0] }
            let people = parts.reduce(0) { $0 + $1.people }
            guard query.admits(people: people) else { continue }
            groups.append(try group(of: parts, people: people, plane: plane, line: parts.count == 1 ? lines[cluster[0]] : nil))
            memberIndices.append(cluster)
        }
        // Order plain keys rather than the groups: reading `groups[i]` inside the comparator
        // copied a whole Group (arrays and all) per comparison, 5 % of the server's CPU in a
        // dense evening.
        let keys = groups.indices.map { i in
            (index: i, people: groups[i].people, distance: groups[i].distance, id: groups[i].id ?? Int64.max)
        }
        let sorted: [(index: Int, people: Int, distance: Double, id: Int64)]
        switch query.sort {
        case .distance: sorted = keys.sorted { ($0.distance, $0.id) < ($1.distance, $1.id) }
        case .people: sorted = keys.sorted { ($1.people, $0.distance, $0.id) < ($0.people, $1.distance, $1.id) }
        }
        let order = sorted.map(\.index)
        var answer = order.prefix(query.limit).map { groups[$0] }
        // Hulls only for the groups that are answered: they are the costly part.
        if let plane {
            let builder = FootprintBuilder()
            for (i, g) in order.prefix(query.limit).enumerated() where !answer[i].isCoarsened {
                answer[i].hull = try builder.footprint(of: memberIndices[g].map { visible[$0].position }, in: plane).ring
            }
        }
        return answer
    }

    /// - Parameter line: from the centre to the only part, when there is one (already measured).
    private func group(of parts: [PublishedPlace], people: Int, plane: LocalProjection?, line known: GeodesicLine?
    ) throws(GeoError) -> Group {
        var position = parts[0].position
        if parts.count > 1 {
            let centroidPlane: LocalProjection
            if let plane { centroidPlane = plane } else { centroidPlane = try LocalProjection(centre: position) }
            position = try weightedCentroid(parts, in: centroidPlane)
        }
        // A single cell, or a cluster still smaller than k, shows only a cell.
        let coarsened = parts.count == 1 ? parts[0].isCell : privacy.isSmall(people: people)
        if coarsened && parts.count > 1 { position = privacy.coarsen(position) }
        let line = known ?? Geodesic.wgs84.inverse(from: query.centre, to: position)
        let ids = parts.compactMap(\.id).sorted()
        return Group(
            id: coarsened ? nil : ids.first, position: position, isCoarsened: coarsened, distance: line.distance,
            bearing: line.initialBearing, people: people, stats: coarsened ? nil : privacy.stats(of: parts),
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
