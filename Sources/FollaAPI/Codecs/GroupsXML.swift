import FollaCore
import Foundation

/// The groups answer as XML: the same fields as the JSON, element per field.
enum GroupsXML {
    static func encode(_ doc: GroupsDocument) -> String {
        var w = XMLWriter()
        w.open("groups", [("xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance"), ("count", "\(doc.count)"),
                          ("lat", "\(doc.centre.lat)"), ("lon", "\(doc.centre.lon)"), ("radius_m", "\(doc.radiusM)")])
        for g in doc.groups { write(g, into: &w) }
        w.close("groups")
        return w.text
    }

    static func encodeSingle(_ g: GroupDTO) -> String {
        var w = XMLWriter()
        write(g, into: &w, namespace: true)
        return w.text
    }

    static func write(_ g: GroupDTO, into w: inout XMLWriter, namespace: Bool = false) {
        w.open("group", (namespace ? [("xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance")] : []) + (g.id.map { [("id", "\($0)")] } ?? []))
        w.element("lat", "\(g.lat)")
        w.element("lon", "\(g.lon)")
        w.element("coarsened", "\(g.coarsened)")
        w.element("distance_m", "\(g.distanceM)")
        w.element("bearing_deg", "\(g.bearingDeg)")
        w.element("people", "\(g.people)")
        stats(g.stats, into: &w)
        w.element("last_activity", g.lastActivity.iso8601())
        w.element("message_count", "\(g.messageCount)")
        w.open("messages")
        for m in g.messages {
            w.open("message", [("id", "\(m.id)")] + (m.placeId.map { [("place_id", "\($0)")] } ?? []))
            w.element("text", m.text)
            w.element("created_at", m.createdAt.iso8601())
            w.close("message")
        }
        w.close("messages")
        w.open("place_ids")
        for id in g.placeIds { w.element("place_id", "\(id)") }
        w.close("place_ids")
        if let hull = g.hull {
            w.open("hull")
            for p in hull { w.empty("point", [("lon", "\(p[0])"), ("lat", "\(p[1])")]) }
            w.close("hull")
        }
        w.close("group")
    }

    /// `<stats>` with the breakdown, or `xsi:nil` when it is withheld.
    static func stats(_ s: StatsDTO?, into w: inout XMLWriter) {
        guard let s else { return w.element("stats", nil) }
        w.open("stats")
        w.element("reported", "\(s.reported)")
        w.element("avg_age", s.avgAge.map { "\($0)" })
        w.element("male", "\(s.male)")
        w.element("female", "\(s.female)")
        w.close("stats")
    }

}
