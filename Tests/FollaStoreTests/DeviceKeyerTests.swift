import FollaCore
import FollaStore
import Testing

/// The keys a database holds must not change with how they are computed: a server
/// restarted on the same data dir and secret has to find its devices again.
@Suite struct DeviceKeyerTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// HMAC-SHA256 as any other implementation computes it (the figures are Python's
    /// `hmac.new(secret, text, hashlib.sha256)`).
    @Test func keysAreHMACSHA256OfTheSecret() throws {
        let keyer = try DeviceKeyer(secret: "a-secret-of-at-least-16")
        let device = try DeviceID("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00")
        #expect(Self.hex(keyer.key(for: device)) == "117cf213c2cf3ec715f9128defa833be19a93b27aac4d60e082c425bbabc8a55")
        #expect(Self.hex(keyer.networkKey("10.1.2")) == "77553a5e32a1f26a0ee5f3b62e3ddf9dd5c9bc22c27e19f401a744fac31ba12f")
    }

    /// One keyer, shared by every request at once, gives each the same keys it gives alone.
    @Test func oneKeyerServesManyTasksAtOnce() async throws {
        let keyer = try DeviceKeyer(secret: "a-secret-of-at-least-16")
        let ids = try (0..<64).map { try DeviceID(String(format: "%040x", $0 * 7919)) }
        let alone = ids.map { Self.hex(keyer.key(for: $0)) }
        let together = await withTaskGroup(of: (Int, String).self) { group in
            for round in 0..<8 {
                for (i, id) in ids.enumerated() { group.addTask { (i, Self.hex(keyer.key(for: id))) } }
                _ = round
            }
            var seen: [(Int, String)] = []
            for await pair in group { seen.append(pair) }
            return seen
        }
        #expect(together.count == ids.count * 8)
        #expect(together.allSatisfy { alone[$0.0] == $0.1 })
    }
}
