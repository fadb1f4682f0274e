import FollaCore
import Foundation

/// The JSON answer to a check-in (snake_case, ISO 8601 UTC), written from the policy's
/// `CheckInAnswer`: the acknowledgement always; the outcome and the exact place only at
/// k = 1 (the original's answer), where they are present and not null.
enum CheckInJSON {
    static func encode(_ a: CheckInAnswer, privacy: PrivacyPolicy) -> String {
        var w = JSONWriter(capacity: 320)
        w.object { o in
            o.member("checked_in_at") { $0.date(a.at) }
            o.member("counted") { $0.bool(a.counted) }
            if let r = a.detail {
                o.member("distance_m") { $0.number((r.distanceToAnchor * 100).rounded() / 100) }
            }
            o.member("message_id") { w in if let id = a.messageID { w.integer(id) } else { w.null() } }
            if let r = a.detail {
                let stats = privacy.stats(r.place.stats, mix: 0).map(StatsDTO.init)
                o.member("outcome") { $0.string(r.outcome.rawValue) }
                o.member("place") { w in w.object { p in
                    p.member("coarsened") { $0.bool(false) }
                    p.member("id") { $0.integer(r.place.id) }
                    p.member("lat") { $0.number(r.place.anchor.latitude) }
                    p.member("lon") { $0.number(r.place.anchor.longitude) }
                    p.member("people") { $0.integer(r.place.stats.people) }
                    p.member("stats") { StatsJSON.write(stats, &$0) }
                } }
                o.member("previous_place_id") { w in if let id = r.previousPlaceID { w.integer(id) } else { w.null() } }
            }
        }
        return w.text
    }
}

/// The age/sex breakdown as JSON, or null when the privacy policy withholds it.
enum StatsJSON {
    static func write(_ s: StatsDTO?, _ w: inout JSONWriter) {
        guard let s else { return w.null() }
        w.object { so in
            so.member("avg_age") { w in if let a = s.avgAge { w.number(a) } else { w.null() } }
            so.member("female") { $0.integer(s.female) }
            so.member("male") { $0.integer(s.male) }
            so.member("reported") { $0.integer(s.reported) }
        }
    }
}
