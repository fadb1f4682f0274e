import FollaCore
import FollaGeo
import FollaStore
import Foundation
import Hummingbird

/// Operators define venues: `POST /v1/admin/venues`, `PUT` / `DELETE /v1/admin/venues/{slug}`
/// (registered behind `AdminAuth`).
struct VenueAdminRoutes {
    let deps: AppDependencies

    func register(on group: RouterGroup<FollaRequestContext>) {
        group.post("admin/venues") { request, _ in
            var request = request
            let venue = try await VenueBody.decode(&request, slug: nil, limit: deps.limits.maxBodyBytes)
            switch try await deps.venues.save(venue, replace: false, at: deps.clock.now()) {
            case .exists:
                throw Problem(.conflict, type: "venue-exists", title: "Venue exists",
                              detail: "a venue with slug \(venue.slug) exists; PUT /v1/admin/venues/\(venue.slug) replaces it")
            default: return try Answer.respond(status: .created, value: VenueDocument(venue))
            }
        }

        group.put("admin/venues/:slug") { request, context in
            var request = request
            let venue = try await VenueBody.decode(&request, slug: try context.pathParameter("slug"), limit: deps.limits.maxBodyBytes)
            let outcome = try await deps.venues.save(venue, replace: true, at: deps.clock.now())
            return try Answer.respond(status: outcome == .created ? .created : .ok, value: VenueDocument(venue))
        }

        group.delete("admin/venues/:slug") { _, context in
            let slug = try context.pathParameter("slug")
            guard try await deps.venues.delete(slug) else { throw Problem.notFound("no venue \(slug)") }
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }
}
