/// A page of a place's messages, newest first (`GET /v1/places/{id}/messages`).
/// `next_before` is the id to ask before for the next page, null on the last one (a page
/// shorter than the limit).
package struct MessagePage: Encodable, Sendable {
    package var messages: [MessageDTO]
    package var nextBefore: Int64?

    package init(_ messages: [MessageDTO], limit: Int) {
        self.messages = messages
        nextBefore = messages.count == limit ? messages.last?.id : nil
    }

    enum CodingKeys: String, CodingKey {
        case messages
        case nextBefore = "next_before"
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(messages, forKey: .messages)
        try c.encodeOrNull(nextBefore, forKey: .nextBefore)
    }
}
