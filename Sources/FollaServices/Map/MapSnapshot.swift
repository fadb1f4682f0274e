import FollaCore
import FollaGeo
import Foundation

/// The map's read model at one moment: every published entry city-wide (public places and
/// cells of small groups, as `PrivacyPolicy.publish` gives them) and their zoom-level
/// clusters. Built from one read of the live places; served until it is older than the
/// staleness bound.
public struct MapSnapshot: Sendable {
    public let entries: [PublishedPlace]
    public let index: ClusterIndex
    public let privacy: PrivacyPolicy

    /// - Parameters:
    ///   - places: the live places (every one with established people).
    ///   - privacy: decides what is published and how small clusters show.
    ///   - now: the time of the read (the map shows no activity times, so it changes nothing).
    public init(places: [LivePlace], privacy: PrivacyPolicy, at now: Date = Date()) {
        // Sorted by key: the clustering is greedy in input order, so the same places give
        // the same clusters and ids on every instance.
        let published = privacy.publish(places, at: now).sorted { Self.key(of: $0) < Self.key(of: $1) }
        entries = published
        self.privacy = privacy
        index = ClusterIndex(points: published.map { e in
            let m = ClusterIndex.mercator(e.position)
            return ClusterIndex.Point(x: m.x, y: m.y, weight: e.people, key: Self.key(of: e))
        })
    }

    /// A public place's id; for a cell, 2^44 plus its centre on a 1e-4° lattice (the cell
    /// is public already; the key says nothing more).
    static func key(of e: PublishedPlace) -> Int64 {
        if let id = e.id { return id }
        let a = Int64(((e.position.latitude + 90) * 1e4).rounded())
        let b = Int64(((e.position.longitude + 180) * 1e4).rounded())
        return (1 << 44) + (a << 22) + b
    }

    /// A node of the index as the map shows it.
    func cluster(_ node: ClusterIndex.Node, zoom: Int) -> MapCluster {
        if let i = node.point {
            let e = entries[i]
            return MapCluster(clusterID: nil, placeID: e.id, position: e.position, people: e.people, places: 1,
                              isCoarsened: e.isCell, expansionZoom: nil)
        }
        let id = ClusterIndex.id(seed: node.seed, zoom: zoom)
        var position = ClusterIndex.coordinate(x: node.x, y: node.y)
        // A cluster is no finer than its people allow: fewer than k show at their cell.
        let small = privacy.isSmall(people: node.weight)
        if small { position = privacy.coarsen(position) }
        return MapCluster(clusterID: id, placeID: nil, position: position, people: node.weight, places: node.points,
                          isCoarsened: small, expansionZoom: index.expansionZoom(of: id))
    }
}
