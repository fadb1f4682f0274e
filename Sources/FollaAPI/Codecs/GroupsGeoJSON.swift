import FollaCore
import Foundation

/// `GroupsFeatureCollection` written with `JSONWriter` (the same JSON as its `Encodable`
/// conformance, checked against one literal; see `JSONWriter` for the figures): a Point
/// feature per group (its properties are the JSON fields without the hull) and, for
/// clustered groups, a Polygon feature for the hull.
package enum GroupsGeoJSON {
    package static func encode(_ doc: GroupsDocument) -> [UInt8] {
        var w = JSONWriter(capacity: 256 + doc.groups.count * 600)
        w.object { o in
            o.member("features") { w in
                w.raw("[")
                var first = true
                for (index, g) in doc.groups.enumerated() {
                    // A cell of small groups has no id; its feature id lasts one answer.
                    let fid = g.id.map { "group-\($0)" } ?? "cell-\(index)"
                    if !first { w.raw(",") }
                    first = false
                    w.object { f in
                        f.member("geometry") { w in w.object { geo in
                            geo.member("coordinates") { w in w.array([g.lon, g.lat]) { w, d in w.number(d) } }
                            geo.member("type") { $0.string("Point") }
                        } }
                        f.member("id") { $0.string(fid) }
                        f.member("properties") { GroupsJSON.write(g, &$0, includeHull: false) }
                        f.member("type") { $0.string("Feature") }
                    }
                    if let hull = g.hull {
                        w.raw(",")
                        w.object { f in
                            f.member("geometry") { w in w.object { geo in
                                // Cut at the antimeridian (RFC 7946 §3.1.9): a MultiPolygon of its two parts there.
                                let parts = AntimeridianCut.parts(of: hull)
                                let polygon = { (w: inout JSONWriter, ring: [[Double]]) in w.raw("["); GroupsJSON.ring(ring, &w); w.raw("]") }
                                geo.member("coordinates") { w in parts.count == 1 ? polygon(&w, hull) : w.array(parts, polygon) }
                                geo.member("type") { $0.string(parts.count == 1 ? "Polygon" : "MultiPolygon") }
                            } }
                            f.member("id") { $0.string("hull-\(fid)") }
                            f.member("properties") { w in w.object { p in
                                p.member("group_id") { $0.integer(orNull: g.id) }
                                p.member("kind") { $0.string("hull") }
                            } }
                            f.member("type") { $0.string("Feature") }
                        }
                    }
                }
                w.raw("]")
            }
            o.member("type") { $0.string("FeatureCollection") }
        }
        return w.bytes
    }
}
