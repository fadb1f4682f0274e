import FollaCore
import Foundation

/// The JSON answer to a check-in (snake_case, ISO 8601 UTC), written by hand so that the
/// shape is exactly the documented one and costs no reflection on the hot path.
enum CheckInJSON {
    /// A place smaller than k shows its grid cell, no breakdown and no distance to its anchor
    /// (the device knows where it is: anchor distance would give the founder's spot away).
    static func encode(_ r: CheckInResult, privacy: PrivacyPolicy) -> String {
        let stats = r.place.stats
        let small = privacy.isSmall(people: stats.people)
        let anchor = small ? privacy.coarsen(r.place.anchor) : r.place.anchor
        let visible = small ? nil : privacy.visibleStats(stats)
        var place = [
            "\"id\":\(r.place.id)",
            "\"lat\":\(number(anchor.latitude))",
            "\"lon\":\(number(anchor.longitude))",
            "\"coarsened\":\(small)",
            "\"people\":\(stats.people)",
        ]
        place.append("\"stats\":" + (visible.map(statsJSON) ?? "null"))
        let members = [
            "\"outcome\":\"\(r.outcome.rawValue)\"",
            "\"place\":{" + place.joined(separator: ",") + "}",
            "\"previous_place_id\":\(r.previousPlaceID.map(String.init) ?? "null")",
            "\"distance_m\":\(small ? "null" : number((r.distanceToAnchor * 100).rounded() / 100))",
            "\"message_id\":\(r.messageID.map(String.init) ?? "null")",
            "\"checked_in_at\":\"\(iso8601(r.at))\"",
        ]
        return "{" + members.joined(separator: ",") + "}"
    }

    static func statsJSON(_ s: PlaceStats) -> String {
        let avg = s.averageAge.map { number(($0 * 10).rounded() / 10) } ?? "null"
        return "{\"reported\":\(s.reporters),\"avg_age\":\(avg),\"male\":\(s.male),\"female\":\(s.female)}"
    }

    static func number(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(format: "%.1f", d) : "\(d)"
    }

    static func iso8601(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
