/// The RFC 9457 document: `type` (relative to `/problems/`), `title`, `status`, `detail`,
/// and `invalid_params` naming the field at fault, left out when no field is.
extension Problem: Encodable {
    enum CodingKeys: String, CodingKey {
        case type, title, status, detail
        case invalidParams = "invalid_params"
    }

    struct InvalidParam: Encodable {
        var name: String
        var reason: String
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(detail, forKey: .detail)
        if let field { try c.encode([InvalidParam(name: field, reason: detail)], forKey: .invalidParams) }
        try c.encode(Int(status.code), forKey: .status)
        try c.encode(title, forKey: .title)
        try c.encode("/problems/" + type, forKey: .type)
    }
}
