import Hummingbird

/// Operators hide and show messages: `POST /v1/admin/messages/{id}/hide` and `/unhide`
/// (registered behind `AdminAuth`). Hiding removes a message from every answer; the
/// message itself stays until retention deletes it.
struct ModerationRoutes {
    let deps: AppDependencies

    func register(on group: RouterGroup<FollaRequestContext>) {
        for (action, hidden) in [("hide", true), ("unhide", false)] {
            group.post("admin/messages/:message_id/\(action)") { _, context in
                let id = try context.positiveID("message_id")
                guard try await deps.messages.setHidden(id, hidden) else { throw Problem.notFound("no message \(id)") }
                return try Answer.respond(value: ModerationReceipt(id: id, hidden: hidden))
            }
        }
    }
}
