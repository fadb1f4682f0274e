import FollaCore
import FollaServices
import FollaStore
import Hummingbird
import NIOCore

/// The write path of presence: `POST /v1/checkins` and `DELETE /v1/devices/{device_id}`.
struct CheckInRoutes {
    let deps: AppDependencies

    /// Both held to the timing floor: what a check-in or check-out does depends on who is near.
    func register(on groups: RouteGroups) {
        groups.held.post("checkins") { request, context in
            // Search parameters are checked before anything is written.
            let search = try request.queryFields()
            try search.rejectUnknown(allowed: ["include", "radius", "min", "max", "limit", "sort", "messages", "cluster"])
            let include = try search.string("include")
            guard include == nil || include == "groups" else { throw FieldError("include", "must be groups") }
            var request = request
            let checkIn = try CheckInRequest(fields: try await request.decodeFields(limit: deps.limits.maxBodyBytes, xmlRoot: "checkin"))
            var query = GroupQuery(centre: checkIn.position)
            try query.apply(search)
            let answer = try await deps.checkIns.checkIn(checkIn, network: context.clientNetwork)
            var document = CheckInDocument(answer, privacy: deps.privacy)
            if include == "groups" {
                // The check-in is committed: a failing search must not turn it into an
                // error (a retry would post the message twice). Answer it without groups.
                do {
                    document.groups = .found(try await deps.groups.groups(for: query).map(GroupDTO.init))
                } catch {
                    context.logger.error("groups after a committed check-in failed", metadata: ["error": "\(error)"])
                    document.groups = .failed
                }
            }
            return Answer.respond(body: ByteBuffer(bytes: CheckInJSON.encode(document)), contentType: Answer.json)
        }

        groups.heldQueryFree.delete("devices/:device_id") { _, context in
            let device = try DeviceID(try context.pathParameter("device_id"))
            guard try await deps.checkIns.checkOut(device) else {
                throw Problem.notFound("no such device is checked in")
            }
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }
}
