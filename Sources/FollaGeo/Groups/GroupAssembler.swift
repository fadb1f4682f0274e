import FollaCore
import Foundation

/// Turns the live places around a point into the groups a reader sees: optional
/// clustering (DBSCAN, minpoints 1, in a local metric plane), summed stats, people-weighted
/// centroids, hulls, geodesic distance and bearing, the privacy policy, filters, order.
///
/// Owns GEOS/PROJ state through its builders: one assembler per request.
public struct GroupAssembler {
    public let query: GroupQuery
    public let privacy: PrivacyPolicy

    public init(query: GroupQuery, privacy: PrivacyPolicy) {
        self.query = query
        self.privacy = privacy
    }

    /// How much further than the radius the store must look: a small place's coarsened
    /// position can lie up to half a cell diagonal from its real one.
    public var searchMargin: Double { privacy.k > 1 ? privacy.gridMetres : 0 }

    public func assemble(_ places: [LivePlace]) throws(GeoError) -> [Group] {
        // Everything below sees a small place only at its grid cell: the radius filter,
        // clustering, centroids and hulls. Otherwise probing with radius or cluster ε, or
        // subtracting answers, would pin its real anchor down.
        var visible: [(place: LivePlace, small: Bool)] = []
        visible.reserveCapacity(places.count)
        for var place in places {
            let small = privacy.isSmall(people: place.stats.people)
            if small { place.anchor = privacy.coarsen(place.anchor) }
            guard Geodesic.wgs84.distance(from: query.centre, to: place.anchor) <= query.radius else { continue }
            visible.append((place, small))
        }
        guard !visible.isEmpty else { return [] }
        let members: [[Int]]
        // One plane per request, centred on the asker: PROJ set-up is the expensive part.
        var plane: LocalProjection? = nil
        if let eps = query.clusterEpsilon {
            let p = try LocalProjection(centre: query.centre)
            var points: [PlanarPoint] = []
            points.reserveCapacity(visible.count)
            for entry in visible { points.append(try p.forward(entry.place.anchor)) }
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
            let people = parts.reduce(0) { $0 + $1.place.stats.people }
            guard query.admits(people: people) else { continue }
            groups.append(try group(of: parts, people: people, plane: plane))
            memberIndices.append(cluster)
        }
        // Order indices rather than moving the groups around.
        var order = Array(groups.indices)
        switch query.sort {
        case .distance: order.sort { (groups[$0].distance, groups[$0].id) < (groups[$1].distance, groups[$1].id) }
        case .people:
            order.sort { (groups[$1].people, groups[$0].distance, groups[$0].id) < (groups[$0].people, groups[$1].distance, groups[$1].id) }
        }
        var answer = order.prefix(query.limit).map { groups[$0] }
        // Hulls only for the groups that are answered: they are the costly part.
        if let plane {
            let builder = FootprintBuilder()
            for (i, g) in order.prefix(query.limit).enumerated() where !answer[i].isCoarsened {
                answer[i].hull = try builder.footprint(of: memberIndices[g].map { visible[$0].place.anchor }, in: plane).ring
            }
        }
        return answer
    }

    private func group(of parts: [(place: LivePlace, small: Bool)], people: Int, plane: LocalProjection?) throws(GeoError) -> Group {
        // Small members count as people but add nothing to the breakdown: otherwise the
        // cluster's stats minus its big members' stats would be theirs.
        let stats = PlaceStats.sum(parts.filter { !$0.small }.map(\.place.stats))
        var position = parts[0].place.anchor
        if parts.count > 1 {
            let centroidPlane: LocalProjection
            if let plane { centroidPlane = plane } else { centroidPlane = try LocalProjection(centre: position) }
            position = try weightedCentroid(parts.map(\.place), in: centroidPlane)
        }
        let small = privacy.isSmall(people: people)
        if small {
            position = privacy.coarsen(position)
        }
        let line = Geodesic.wgs84.inverse(from: query.centre, to: position)
        let ids = parts.map(\.place.id).sorted()
        return Group(
            id: ids[0], position: position, isCoarsened: small, distance: line.distance, bearing: line.initialBearing,
            people: people, stats: small ? nil : stats.flatMap(privacy.visibleStats),
            lastActivity: parts.map(\.place.lastActivity).max()!, messageCount: parts.reduce(0) { $0 + $1.place.messageCount },
            messages: [], memberPlaceIDs: ids, hull: nil)
    }

    /// People-weighted centroid, computed in a local metric plane.
    private func weightedCentroid(_ parts: [LivePlace], in plane: LocalProjection) throws(GeoError) -> Coordinate {
        var x = 0.0, y = 0.0, w = 0.0
        for p in parts {
            let q = try plane.forward(p.anchor)
            let weight = Double(max(p.stats.people, 1))
            x += q.x * weight
            y += q.y * weight
            w += weight
        }
        return try plane.inverse(PlanarPoint(x: x / w, y: y / w))
    }
}
