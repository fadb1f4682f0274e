/// The answer to an operator's hide or unhide (`POST /v1/admin/messages/{id}/hide`): the
/// message and its state now.
struct ModerationReceipt: Encodable, Sendable {
    var id: Int64
    var hidden: Bool
}
