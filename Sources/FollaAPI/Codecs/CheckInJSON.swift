import FollaCore
import Foundation

/// `CheckInDocument` written with `JSONWriter` (the check-in answer is on every ping of a
/// crowd: see `JSONWriter` for the measured difference).
package enum CheckInJSON {
    package static func encode(_ d: CheckInDocument) -> [UInt8] {
        var w = JSONWriter(capacity: 320)
        w.object { o in
            o.member("checked_in_at") { $0.date(d.checkedInAt) }
            o.member("counted") { $0.bool(d.counted) }
            if let r = d.detail {
                o.member("distance_m") { $0.number((r.distanceToAnchor * 100).rounded() / 100) }
            }
            switch d.groups {
            case .notAsked: break
            case .failed: o.member("groups") { $0.null() }
            case .found(let groups): o.member("groups") { w in w.array(groups) { w, g in GroupsJSON.write(g, &w) } }
            }
            o.member("message_id") { $0.integer(orNull: d.messageId) }
            if let r = d.detail, let p = d.place {
                o.member("outcome") { $0.string(r.outcome.rawValue) }
                o.member("place") { w in w.object { po in
                    po.member("coarsened") { $0.bool(false) }
                    po.member("id") { $0.integer(p.id) }
                    po.member("lat") { $0.number(p.lat) }
                    po.member("lon") { $0.number(p.lon) }
                    po.member("people") { $0.integer(p.people) }
                    po.member("stats") { StatsJSON.write(p.stats, &$0) }
                } }
                o.member("previous_place_id") { $0.integer(orNull: r.previousPlaceID) }
            }
        }
        return w.bytes
    }
}
