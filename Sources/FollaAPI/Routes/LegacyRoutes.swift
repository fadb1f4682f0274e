import FollaCore
import FollaServices
import Hummingbird

/// The original iPhone app's PHP endpoints, so that it keeps working unchanged:
/// form fields in (only forms, as the app sends and PHP's `$_POST` read), XML shaped like
/// PostgreSQL's `query_to_xml(…, false, false, '')` out.
struct LegacyRoutes {
    let deps: AppDependencies

    /// Both held to the timing floor (a check-in; a place's messages by id) and query-free.
    func register(on groups: RouteGroups) {
        let router = groups.heldQueryFree
        // udid, latitude, longitude, timestamp, sex, age, message, radius, min, max
        router.post("sendData.php") { request, context in
            var request = request
            let form = try await request.decodeFields(limit: deps.limits.maxBodyBytes, accepting: [.form])
            try form.rejectUnknown(allowed: ["udid", "latitude", "longitude", "timestamp", "sex", "age", "message", "radius", "min", "max"])
            var renamed = form.values
            renamed["device_id"] = renamed.removeValue(forKey: "udid")
            renamed["lat"] = renamed.removeValue(forKey: "latitude")
            renamed["lon"] = renamed.removeValue(forKey: "longitude")
            // The app's own clock is not trusted: the server's decides presence and expiry.
            renamed.removeValue(forKey: "timestamp")
            let search = renamed.filter { ["radius", "min", "max"].contains($0.key) }
            renamed = renamed.filter { !["radius", "min", "max"].contains($0.key) }
            let checkIn: CheckInRequest
            do {
                checkIn = try CheckInRequest(fields: Fields(renamed, source: form.source))
            } catch let error as FieldError {
                throw FieldError(Self.legacyName(error.field), error.reason)
            }
            var query = GroupQuery(centre: checkIn.position)
            try query.apply(Fields(search, source: form.source))
            // The same write path as /v1/checkins: every message rule and limit applies.
            do {
                _ = try await deps.checkIns.checkIn(checkIn, network: context.clientNetwork)
            } catch let refusal as CheckInRefusal {
                throw Problem.refused(refusal, field: "latitude")
            }
            let groups = try await deps.groups.groups(for: query)
            return Self.xml(LegacyXML.places(groups))
        }

        // id: the place whose last 10 messages to show.
        router.post("getMessage.php") { request, _ in
            var request = request
            let form = try await request.decodeFields(limit: deps.limits.maxBodyBytes, accepting: [.form])
            try form.rejectUnknown(allowed: ["id"])
            // 0 is what sendData.php names a cell of small groups by: no messages, like any
            // place with no public id (small, empty, unknown).
            guard let id = try form.integer("id", in: 0...Int(Int32.max)) else { throw FieldError("id", "is required") }
            let messages = try await deps.groups.messages(place: Int64(id), before: nil, limit: 10) ?? []
            return Self.xml(LegacyXML.messages(messages))
        }
    }

    static func legacyName(_ field: String) -> String {
        ["device_id": "udid", "lat": "latitude", "lon": "longitude"][field] ?? field
    }

    static func xml(_ text: String) -> Response {
        Answer.respond(text: text, contentType: "text/xml; charset=utf-8")
    }
}
