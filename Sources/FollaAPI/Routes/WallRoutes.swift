import FollaCore
import FollaServices
import FollaStore
import Foundation
import Hummingbird

/// Public walls for venue screens: `GET /v1/venues/{slug}/wall`, `GET /v1/wall?lat&lon&radius`.
/// Cheap to poll: micro-cached reads, strong ETags with 304, `Cache-Control: public`.
struct WallRoutes {
    let deps: AppDependencies

    func register(on groups: RouteGroups) {
        // Held, as area walls are: a message change drops the cached walls, so a venue wall
        // answered from the cache or from a fresh read told by its time when messages changed
        // elsewhere (hidden ones too, before `MessageFeed` let those drop nothing); and its
        // places are found by anchor within a margin of the venue's edge before they are kept
        // by their published cell.
        groups.held.get("venues/:slug/wall") { request, context in
            let slug = try context.pathParameter("slug")
            let fields = try request.queryFields()
            try fields.rejectUnknown(allowed: ["after", "format"])
            let format = try ResponseFormat.negotiate(request, fields: fields, offered: ResponseFormat.wall)
            guard let data = try await deps.walls.data(for: .venue(slug)) else {
                throw Problem.notFound("no venue \(slug)")
            }
            let wall = WallSnapshot(id: "venue:\(slug)", title: data.name ?? slug, data: data, privacy: deps.privacy)
            return try render(wall.after(after(fields)), format, request, selfPath: "/v1/venues/\(slug)/wall")
        }

        // Held for its first answer (a cached read or a fresh one); the stream holds each
        // of its passes on the grid to the same floor (`WallStream`).
        groups.heldQueryFree.get("venues/:slug/wall/events") { request, context in
            try await WallStream(deps: deps, interval: deps.wallStreamInterval, maxDuration: deps.wallStreamDuration)
                .response(slug: try context.pathParameter("slug"), request: request, network: context.clientNetwork ?? "unknown")
        }

        // Held: the area's edge is the caller's to move, and the places a disc takes in are
        // found by their anchors (then kept by their published cell), so without the floor
        // the time of an identical answer told when the edge's margin reached a small
        // place's anchor (an outside attack timed 0.16–0.19 ms of difference).
        groups.held.get("wall") { request, _ in
            let fields = try request.queryFields()
            try fields.rejectUnknown(allowed: ["lat", "lon", "radius", "after", "format"])
            let format = try ResponseFormat.negotiate(request, fields: fields, offered: ResponseFormat.wall)
            let centre = try Coordinate(validatingLatitude: fields.requiredDouble("lat"), longitude: fields.requiredDouble("lon"))
            let radius = try fields.double("radius") ?? 200
            guard (15.0...5000.0).contains(radius) else { throw FieldError("radius", "must be between 15 and 5000 metres") }
            // Rounded so that screens asking for nearly the same area share a cache entry.
            let snapped = Coordinate(latitude: (centre.latitude * 1e5).rounded() / 1e5, longitude: (centre.longitude * 1e5).rounded() / 1e5)
            let data = try await deps.walls.data(for: .circle(snapped, radius: radius.rounded())) ?? WallData(name: nil, entries: [], messages: [])
            let id = "area:\(snapped.latitude),\(snapped.longitude),\(Int(radius.rounded()))"
            let wall = WallSnapshot(id: id, title: "Around \(snapped.latitude), \(snapped.longitude)", data: data, privacy: deps.privacy)
            return try render(wall.after(after(fields)), format, request, selfPath: "/v1/wall")
        }
    }

    private func after(_ fields: Fields) throws -> Int64? {
        try fields.integer("after", in: 0...Int.max).map(Int64.init)
    }

    private func render(_ wall: WallSnapshot, _ format: ResponseFormat, _ request: Request, selfPath: String) throws -> Response {
        let body: String
        switch format {
        case .xml: body = WallXML.wall(wall)
        case .atom: body = WallXML.atom(wall, selfPath: selfPath)
        default: body = try AnswerEncoder().text(WallDocument(wall))
        }
        return ConditionalGET.respond(body: body, contentType: format.mediaType, request: request, maxAge: deps.wallCacheSeconds)
    }
}
