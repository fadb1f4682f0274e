import FollaCore
import Foundation

/// The JSON answer to a check-in (snake_case, ISO 8601 UTC), through the same writer and
/// stats shape as the read side.
enum CheckInJSON {
    /// A place smaller than k shows its grid cell, no breakdown and no distance to its anchor
    /// (the device knows where it is: anchor distance would give the founder's spot away).
    static func encode(_ r: CheckInResult, privacy: PrivacyPolicy) -> String {
        let stats = r.place.stats
        let small = privacy.isSmall(people: stats.people)
        let anchor = small ? privacy.coarsen(r.place.anchor) : r.place.anchor
        let visible = small ? nil : privacy.visibleStats(stats).map(StatsDTO.init)
        var w = JSONWriter(capacity: 320)
        w.object { o in
            o.member("checked_in_at") { $0.string(iso8601(r.at)) }
            o.member("distance_m") { w in small ? w.null() : w.number((r.distanceToAnchor * 100).rounded() / 100) }
            o.member("message_id") { w in if let id = r.messageID { w.integer(id) } else { w.null() } }
            o.member("outcome") { $0.string(r.outcome.rawValue) }
            o.member("place") { w in w.object { p in
                p.member("coarsened") { $0.bool(small) }
                p.member("id") { $0.integer(r.place.id) }
                p.member("lat") { $0.number(anchor.latitude) }
                p.member("lon") { $0.number(anchor.longitude) }
                p.member("people") { $0.integer(stats.people) }
                p.member("stats") { StatsJSON.write(visible, &$0) }
            } }
            o.member("previous_place_id") { w in if let id = r.previousPlaceID { w.integer(id) } else { w.null() } }
        }
        return w.text
    }

    static func iso8601(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
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
