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

    public func assemble(_ places: [LivePlace]) throws(GeoError) -> [Group] {
        guard !places.isEmpty else { return [] }
        let members: [[Int]]
        // One plane per request, centred on the asker: PROJ set-up is the expensive part.
        var plane: LocalProjection? = nil
        if let eps = query.clusterEpsilon {
            let p = try LocalProjection(centre: query.centre)
            var points: [PlanarPoint] = []
            points.reserveCapacity(places.count)
            for place in places { points.append(try p.forward(place.anchor)) }
            members = try Clustering.partition(points, epsilon: eps, context: GeometryContext())
            plane = p
        } else {
            members = places.indices.map { [$0] }
        }
        var groups: [(group: Group, anchors: [Coordinate])] = []
        groups.reserveCapacity(members.count)
        for cluster in members {
            let parts = cluster.map { places[$0] }
            let people = parts.reduce(0) { $0 + $1.stats.people }
            guard query.admits(people: people) else { continue }
            groups.append((try group(of: parts, people: people, plane: plane), parts.map(\.anchor)))
        }
        switch query.sort {
        case .distance: groups.sort { ($0.group.distance, $0.group.id) < ($1.group.distance, $1.group.id) }
        case .people:
            groups.sort { ($1.group.people, $0.group.distance, $0.group.id) < ($0.group.people, $1.group.distance, $1.group.id) }
        }
        // Hulls only for the groups that are answered: they are the costly part.
        var answer = groups.prefix(query.limit).map(\.group)
        if let plane {
            let builder = FootprintBuilder()
            for (i, entry) in groups.prefix(query.limit).enumerated() where !entry.group.isCoarsened {
                answer[i].hull = try builder.footprint(of: entry.anchors, in: plane).ring
            }
        }
        return answer
    }

    private func group(of parts: [LivePlace], people: Int, plane: LocalProjection?) throws(GeoError) -> Group {
        let stats = parts.dropFirst().reduce(parts[0].stats) { s, p in
            PlaceStats(people: s.people + p.stats.people, reporters: s.reporters + p.stats.reporters,
                       ageSum: s.ageSum + p.stats.ageSum, male: s.male + p.stats.male, female: s.female + p.stats.female)
        }
        var position = parts[0].anchor
        if parts.count > 1 {
            let centroidPlane: LocalProjection
            if let plane { centroidPlane = plane } else { centroidPlane = try LocalProjection(centre: parts[0].anchor) }
            position = try weightedCentroid(parts, in: centroidPlane)
        }
        let small = privacy.isSmall(people: people)
        if small {
            position = privacy.coarsen(position)
        }
        let line = Geodesic.wgs84.inverse(from: query.centre, to: position)
        let ids = parts.map(\.id).sorted()
        return Group(
            id: ids[0], position: position, isCoarsened: small, distance: line.distance, bearing: line.initialBearing,
            people: people, stats: small ? nil : privacy.visibleStats(stats),
            lastActivity: parts.map(\.lastActivity).max()!, messageCount: parts.reduce(0) { $0 + $1.messageCount },
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
