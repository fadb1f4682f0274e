extension KeyedEncodingContainer {
    /// `value`, or an explicit `null` when it is nil. The contract has keys that are always
    /// present and sometimes null (`"id": null` for a cell of small groups, `"stats": null`
    /// when withheld); synthesized conformances would leave such keys out.
    mutating func encodeOrNull(_ value: (some Encodable)?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
}
