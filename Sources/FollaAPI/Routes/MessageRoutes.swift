import FollaCore
import FollaStore
import Foundation
import Hummingbird

/// Anonymous messages: post where you are, page a place's messages, report, moderate.
struct MessageRoutes {
    let deps: AppDependencies

    func register(on groups: RouteGroups) {
        // Held: a post locks its place's row, so its wait told of others' pings there (and a
        // post from nowhere answered sooner than one from somewhere).
        groups.heldQueryFree.post("messages") { request, _ in
            var request = request
            let fields = try await request.decodeFields(limit: deps.limits.maxBodyBytes, xmlRoot: "message")
            try fields.rejectUnknown(allowed: ["device_id", "text"])
            let device = try DeviceID(fields.requiredString("device_id"))
            let text = try MessageText(fields.requiredString("text"), field: "text")
            guard let message = try await deps.checkIns.post(text, by: device) else {
                throw Problem(.conflict, type: "not-checked-in", title: "Not in a place",
                              detail: "this device is not in any place right now; check in first (messages go to the place where you are)")
            }
            return try Answer.respond(status: .created, value: MessageDTO(message))
        }

        // Held: a small place's id and an unknown one must answer alike, in time too.
        groups.held.get("places/:place_id/messages") { request, context in
            let fields = try request.queryFields()
            try fields.rejectUnknown(allowed: ["before", "limit"])
            try ResponseFormat.requireAccepted(request, Answer.json)
            let place = try context.positiveID("place_id")
            let limit = try fields.integer("limit", in: 1...100) ?? 20
            let before = try fields.integer("before", in: 1...Int.max).map(Int64.init)
            guard let page = try await deps.groups.messages(place: place, before: before, limit: limit) else {
                throw Problem.notFound("no public place \(place)")
            }
            return try Answer.respond(value: MessagePage(page.map(MessageDTO.init), limit: limit))
        }

        // Held: a hidden message and an unknown id must answer alike, in time too (the first
        // reads its place before it is refused).
        groups.heldQueryFree.post("messages/:message_id/reports") { request, context in
            let id = try context.positiveID("message_id")
            var request = request
            let fields = try await request.decodeFields(limit: deps.limits.maxBodyBytes, xmlRoot: "report")
            try fields.rejectUnknown(allowed: ["device_id"])
            let device = try DeviceID(fields.requiredString("device_id"))
            switch try await deps.checkIns.report(id, by: device) {
            // (.untrusted never arrives: the service refuses such a report as not established.)
            case .unknown, .untrusted: throw Problem.notFound("no visible message \(id)")
            case .duplicate:
                throw Problem(.conflict, type: "already-reported", title: "Already reported",
                              detail: "this device has already reported message \(id)")
            case .reported: return try Answer.respond(status: .accepted, value: ReportReceipt(hidden: false))
            case .hidden: return try Answer.respond(status: .accepted, value: ReportReceipt(hidden: true))
            }
        }
    }
}
