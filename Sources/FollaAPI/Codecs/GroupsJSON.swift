import Foundation

/// `GroupsDocument` and `GroupDTO` written with `JSONWriter`: the same JSON as their
/// `Encodable` conformances give (AnswerDocumentTests checks both against one literal),
/// several times faster on the hottest read (see `JSONWriter` for the figures).
package enum GroupsJSON {
    package static func document(_ doc: GroupsDocument) -> [UInt8] {
        var w = JSONWriter(capacity: 256 + doc.groups.count * 400)
        w.object { o in
            o.member("centre") { w in w.object { c in
                c.member("lat") { $0.number(doc.centre.lat) }
                c.member("lon") { $0.number(doc.centre.lon) }
            } }
            o.member("count") { $0.integer(doc.count) }
            o.member("groups") { w in w.array(doc.groups) { w, g in write(g, &w) } }
            o.member("radius_m") { $0.number(doc.radiusM) }
        }
        return w.bytes
    }

    package static func group(_ g: GroupDTO) -> [UInt8] {
        var w = JSONWriter(capacity: 512)
        write(g, &w)
        return w.bytes
    }

    static func write(_ g: GroupDTO, _ w: inout JSONWriter, includeHull: Bool = true) {
        w.object { o in
            o.member("bearing_deg") { $0.number(g.bearingDeg) }
            o.member("coarsened") { $0.bool(g.coarsened) }
            o.member("distance_m") { $0.number(g.distanceM) }
            // A ready group's other members are the same in every answer that shows as many
            // of its messages: rendered once (EncodingMemo says why).
            let variant = g.messagesShown * 2 + (includeHull ? 1 : 0)
            let kept: Void? = g.withEncoding(variant, make: { JSONWriter.members { shared(g, &$0, includeHull: includeHull) } }) {
                o.members($0)
            }
            if kept == nil { shared(g, &o, includeHull: includeHull) }
        }
    }

    /// The members after `distance_m`: all but the asker's distance and bearing.
    private static func shared(_ g: GroupDTO, _ o: inout JSONWriter.ObjectWriter, includeHull: Bool) {
        if includeHull {
            o.member("hull") { w in
                if let hull = g.hull { ring(hull, &w) } else { w.null() }
            }
        }
        o.member("id") { $0.integer(orNull: g.id) }
        o.member("last_activity") { $0.date(g.lastActivity) }
        o.member("lat") { $0.number(g.lat) }
        o.member("lon") { $0.number(g.lon) }
        o.member("message_count") { $0.integer(g.messageCount) }
        o.member("messages") { w in w.array(g.messages) { w, m in
            w.object { mo in
                mo.member("created_at") { $0.date(m.createdAt) }
                mo.member("id") { $0.integer(m.id) }
                mo.member("place_id") { $0.integer(orNull: m.placeId) }
                mo.member("text") { $0.string(m.text) }
            }
        } }
        o.member("people") { $0.integer(g.people) }
        o.member("place_ids") { w in w.array(g.placeIds) { w, id in w.integer(id) } }
        o.member("stats") { StatsJSON.write(g.stats, &$0) }
    }

    static func ring(_ points: [[Double]], _ w: inout JSONWriter) {
        w.array(points) { w, p in w.array(p) { w, d in w.number(d) } }
    }
}
