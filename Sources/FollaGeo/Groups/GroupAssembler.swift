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
        if let eps = query.clusterEpsilon {
            let plane = try LocalProjection(centre: query.centre)
            var points: [PlanarPoint] = []
            points.reserveCapacity(places.count)
            for p in places { points.append(try plane.forward(p.anchor)) }
            members = try Clustering.partition(points, epsilon: eps, context: GeometryContext())
        } else {
            members = places.indices.map { [$0] }
        }
        let footprints = query.clusterEpsilon == nil ? nil : FootprintBuilder()
        var groups: [Group] = []
        groups.reserveCapacity(members.count)
        for cluster in members {
            let parts = cluster.map { places[$0] }
            let people = parts.reduce(0) { $0 + $1.stats.people }
            guard query.admits(people: people) else { continue }
            groups.append(try group(of: parts, people: people, footprints: footprints))
        }
        switch query.sort {
        case .distance: groups.sort { ($0.distance, $0.id) < ($1.distance, $1.id) }
        case .people: groups.sort { ($1.people, $0.distance, $0.id) < ($0.people, $1.distance, $1.id) }
        }
        return Array(groups.prefix(query.limit))
    }

    private func group(of parts: [LivePlace], people: Int, footprints: FootprintBuilder?) throws(GeoError) -> Group {
        let stats = parts.dropFirst().reduce(parts[0].stats) { s, p in
            PlaceStats(people: s.people + p.stats.people, reporters: s.reporters + p.stats.reporters,
                       ageSum: s.ageSum + p.stats.ageSum, male: s.male + p.stats.male, female: s.female + p.stats.female)
        }
        var position = parts[0].anchor
        var hull: [Coordinate]? = nil
        if parts.count > 1 {
            position = try weightedCentroid(parts)
        }
        if let footprints {
            hull = try footprints.footprint(of: parts.map(\.anchor)).ring
        }
        let small = privacy.isSmall(people: people)
        if small {
            position = privacy.coarsen(position)
            hull = nil
        }
        let line = Geodesic.wgs84.inverse(from: query.centre, to: position)
        let ids = parts.map(\.id).sorted()
        return Group(
            id: ids[0], position: position, isCoarsened: small, distance: line.distance, bearing: line.initialBearing,
            people: people, stats: small ? nil : privacy.visibleStats(stats),
            lastActivity: parts.map(\.lastActivity).max()!, messageCount: parts.reduce(0) { $0 + $1.messageCount },
            messages: [], memberPlaceIDs: ids, hull: hull)
    }

    /// People-weighted centroid, computed in a plane centred on the first member.
    private func weightedCentroid(_ parts: [LivePlace]) throws(GeoError) -> Coordinate {
        let plane = try LocalProjection(centre: parts[0].anchor)
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
