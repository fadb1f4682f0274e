import FollaCore
import FollaGeo
import FollaStore
import Foundation
import Hummingbird

/// The read side: `GET /v1/groups` and `GET /v1/places/{id}`.
struct GroupRoutes {
    let deps: AppDependencies

    func register(on group: RouterGroup<BasicRequestContext>) {
        group.get("groups") { request, _ in
            let format = try ResponseFormat.negotiate(request)
            let query = try GroupQuery(parameters: request.queryFields())
            let groups = try await deps.groups(for: query)
            return try GroupsResponse.render(GroupsDocument(query: query, groups: groups), as: format)
        }

        group.get("places/:place_id") { request, context in
            let format = try ResponseFormat.negotiate(request)
            let fields = try request.queryFields()
            try fields.rejectUnknown(allowed: ["lat", "lon", "format"])
            guard let id = Int64(try context.parameters.require("place_id")), id > 0 else {
                throw Problem(.badRequest, type: "invalid-field", title: "Invalid request field",
                              detail: "place_id must be a positive integer", field: "place_id")
            }
            guard let place = try await deps.places.place(id: id) else {
                throw Problem.notFound("no live place \(id)")
            }
            // With the asker's position the distance is from there; without, from the place as
            // readers may see it (its grid cell when small: from the real anchor, distance and
            // bearing to the cell would give the anchor away).
            let from: Coordinate
            if let lat = try fields.double("lat") {
                from = try Coordinate(validatingLatitude: lat, longitude: fields.requiredDouble("lon"))
            } else if try fields.double("lon") != nil {
                throw FieldError("lat", "is required with lon")
            } else {
                from = deps.privacy.isSmall(people: place.stats.people) ? deps.privacy.coarsen(place.anchor) : place.anchor
            }
            var query = GroupQuery(centre: from)
            query.radius = .greatestFiniteMagnitude  // the place was asked for by id: no radius
            query.messages = 10
            let assembled = try GroupAssembler(query: query, privacy: deps.privacy).assemble([place])
            guard var detail = assembled.first else { throw Problem.notFound("no live place \(id)") }
            detail.messages = try await deps.messages.page(place: place.id, before: nil, limit: 10)
            var doc = GroupsDocument(query: query, groups: [detail])
            doc.radiusM = 0
            return try GroupsResponse.render(doc, as: format, single: true)
        }
    }
}

extension AppDependencies {
    /// The live places around the query, assembled into groups, with their latest messages.
    func groups(for query: GroupQuery) async throws -> [Group] {
        let assembler = GroupAssembler(query: query, privacy: privacy)
        let places = try await places.nearby(query.centre, radius: query.radius + assembler.searchMargin)
        var groups = try assembler.assemble(places)
        if query.messages > 0 {
            // One query for every group: the newest N of each place, then the newest N per group.
            let ids = groups.filter { $0.messageCount > 0 }.flatMap(\.memberPlaceIDs)
            let perPlace = try await self.places.latestMessages(perPlace: query.messages, of: ids)
            for i in groups.indices {
                let merged = groups[i].memberPlaceIDs.flatMap { perPlace[$0] ?? [] }.sorted { $0.id > $1.id }
                groups[i].messages = Array(merged.prefix(query.messages))
            }
        }
        return groups
    }
}

/// Renders a groups document in the negotiated format.
enum GroupsResponse {
    static func render(_ doc: GroupsDocument, as format: ResponseFormat, single: Bool = false) throws -> Response {
        let body: String
        switch format {
        case .json: body = single ? GroupsJSON.group(doc.groups[0]) : GroupsJSON.document(doc)
        case .xml: body = single ? GroupsXML.encodeSingle(doc.groups[0]) : GroupsXML.encode(doc)
        case .geojson, .atom: body = GroupsGeoJSON.encode(doc)  // atom is never offered here
        }
        return Response(
            status: .ok,
            headers: [.contentType: format.mediaType, .cacheControl: "no-store", .vary: "Accept"],
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
