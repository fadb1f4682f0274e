/// The answer to a report (`POST /v1/messages/{id}/reports`, 202): whether the message is
/// hidden now (this report reached the threshold).
struct ReportReceipt: Encodable, Sendable {
    var hidden: Bool
}
