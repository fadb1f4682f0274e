import FollaCore
import FollaServices
import FollaStore
import Foundation
import Hummingbird

/// The read side: `GET /v1/groups` and `GET /v1/places/{id}`.
struct GroupRoutes {
    let deps: AppDependencies

    func register(on groups: RouteGroups) {
        // Not behind the gate: its services race the database themselves, when they need it.
        groups.fromMemory.get("groups") { request, _ in
            let fields = try request.queryFields()
            let format = try ResponseFormat.negotiate(request, fields: fields)
            // A viewport (map clients) rather than a point and a radius.
            if fields.values["bbox"] != nil || fields.values["zoom"] != nil {
                return try await MapRoutes.viewport(fields, format: format, deps: deps)
            }
            let query = try GroupQuery(parameters: fields)
            let groups = try await deps.groups.groups(for: query)
            return GroupsResponse.render(GroupsDocument(query: query, groups: groups), as: format)
        }

        // Held: a small place's id and an unknown one must answer alike, in time too.
        groups.held.get("places/:place_id") { request, context in
            let fields = try request.queryFields()
            let format = try ResponseFormat.negotiate(request, fields: fields)
            try fields.rejectUnknown(allowed: ["lat", "lon", "format"])
            let id = try context.positiveID("place_id")
            var from: Coordinate?
            if let lat = try fields.double("lat") {
                from = try Coordinate(validatingLatitude: lat, longitude: fields.requiredDouble("lon"))
            } else if try fields.double("lon") != nil {
                throw FieldError("lat", "is required with lon")
            }
            // Unknown, empty and small places answer alike: a small group has no public id.
            guard let (detail, centre) = try await deps.groups.place(id: id, from: from) else {
                throw Problem.notFound("no public place \(id)")
            }
            var doc = GroupsDocument(query: GroupQuery(centre: centre), groups: [detail])
            doc.radiusM = 0
            return GroupsResponse.render(doc, as: format, single: true)
        }
    }
}
