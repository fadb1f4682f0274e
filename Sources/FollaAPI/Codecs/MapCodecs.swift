import FollaCore
import Foundation

/// The clusters of a viewport (`/v1/groups?bbox=&zoom=`) and a cluster's children, as JSON,
/// GeoJSON (RFC 7946, properties named as supercluster names them) and XML.
enum MapCodecs {
    /// A tile's one representation.
    static let tileMediaType = "application/vnd.mapbox-vector-tile"

    struct Document {
        var bbox: [Double]
        var zoom: Int
        var clusters: [MapCluster]
        /// For `/v1/clusters/{id}/children`: the cluster's id and expansion zoom.
        var parent: (id: Int64, expansionZoom: Int)? = nil
    }

    static func round(_ d: Double) -> Double { (d * 1e7).rounded() / 1e7 }

    static func json(_ doc: Document) -> String {
        var w = JSONWriter(capacity: 256 + doc.clusters.count * 160)
        w.object { o in
            o.member("bbox") { w in w.array(doc.bbox) { w, d in w.number(d) } }
            if let parent = doc.parent {
                o.member("cluster_id") { $0.integer(parent.id) }
            }
            o.member("clusters") { w in w.array(doc.clusters) { w, c in write(c, &w) } }
            o.member("count") { $0.integer(doc.clusters.count) }
            if let parent = doc.parent {
                o.member("expansion_zoom") { $0.integer(parent.expansionZoom) }
            }
            o.member("people") { $0.integer(doc.clusters.reduce(0) { $0 + $1.people }) }
            o.member("zoom") { $0.integer(doc.zoom) }
        }
        return w.text
    }

    static func write(_ c: MapCluster, _ w: inout JSONWriter) {
        w.object { o in
            o.member("cluster") { $0.bool(c.isCluster) }
            o.member("cluster_id") { $0.integer(orNull: c.clusterID) }
            o.member("coarsened") { $0.bool(c.isCoarsened) }
            o.member("expansion_zoom") { w in if let z = c.expansionZoom { w.integer(z) } else { w.null() } }
            o.member("lat") { $0.number(round(c.position.latitude)) }
            o.member("lon") { $0.number(round(c.position.longitude)) }
            o.member("people") { $0.integer(c.people) }
            o.member("place_id") { $0.integer(orNull: c.placeID) }
            o.member("places") { $0.integer(c.places) }
        }
    }

    static func geoJSON(_ doc: Document) -> String {
        var w = JSONWriter(capacity: 256 + doc.clusters.count * 220)
        w.object { o in
            o.member("bbox") { w in w.array(doc.bbox) { w, d in w.number(d) } }
            o.member("features") { w in w.array(doc.clusters) { w, c in
                w.object { f in
                    f.member("geometry") { w in w.object { g in
                        g.member("coordinates") { w in w.array([round(c.position.longitude), round(c.position.latitude)]) { w, d in w.number(d) } }
                        g.member("type") { $0.string("Point") }
                    } }
                    f.member("properties") { w in w.object { p in
                        p.member("cluster") { $0.bool(c.isCluster) }
                        p.member("cluster_id") { $0.integer(orNull: c.clusterID) }
                        p.member("coarsened") { $0.bool(c.isCoarsened) }
                        p.member("expansion_zoom") { w in if let z = c.expansionZoom { w.integer(z) } else { w.null() } }
                        p.member("people") { $0.integer(c.people) }
                        p.member("place_id") { $0.integer(orNull: c.placeID) }
                        p.member("point_count") { $0.integer(c.places) }
                    } }
                    f.member("type") { $0.string("Feature") }
                }
            } }
            o.member("type") { $0.string("FeatureCollection") }
        }
        return w.text
    }

    static func xml(_ doc: Document) -> String {
        var w = XMLWriter()
        w.open("clusters", [("bbox", doc.bbox.map { "\($0)" }.joined(separator: ",")), ("zoom", "\(doc.zoom)"),
                            ("count", "\(doc.clusters.count)")]
               + (doc.parent.map { [("cluster_id", "\($0.id)"), ("expansion_zoom", "\($0.expansionZoom)")] } ?? []))
        for c in doc.clusters {
            var attributes: [(String, String)] = [("cluster", "\(c.isCluster)")]
            if let id = c.clusterID { attributes.append(("cluster_id", "\(id)")) }
            if let id = c.placeID { attributes.append(("place_id", "\(id)")) }
            w.open("cluster", attributes)
            w.element("lat", "\(round(c.position.latitude))")
            w.element("lon", "\(round(c.position.longitude))")
            w.element("people", "\(c.people)")
            w.element("places", "\(c.places)")
            w.element("coarsened", "\(c.isCoarsened)")
            if let z = c.expansionZoom { w.element("expansion_zoom", "\(z)") }
            w.close("cluster")
        }
        w.close("clusters")
        return w.text
    }
}
