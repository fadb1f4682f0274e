import Crypto
import FollaCore
import Foundation

/// Turns a device id into the only thing the database ever holds: HMAC-SHA256 under the
/// server secret. Without the secret, a dump cannot be joined back to device ids, not even
/// by hashing every possible UDID.
public struct DeviceKeyer: Sendable {
    /// HMAC-SHA256 keyed with the secret once (the key's two padded blocks hashed): each MAC
    /// starts from a copy. Keying it for every MAC (a `SymmetricKey`, two pads, two hash
    /// states) was ~3 % of the server's CPU per check-in, which takes two MACs (device and
    /// network). Safe to share between threads although swift-crypto does not mark it
    /// `Sendable`: it is never mutated, and a copy's first update copies the shared hash
    /// state (swift-crypto's digests are copy-on-write).
    nonisolated(unsafe) private let keyed: HMAC<SHA256>

    public init(secret: String) throws(SecretError) {
        guard secret.utf8.count >= 16 else { throw SecretError.tooShort }
        self.keyed = HMAC<SHA256>(key: SymmetricKey(data: Array(secret.utf8)))
    }

    public func key(for device: DeviceID) -> [UInt8] { mac(device.rawValue) }

    /// A key for the device within one `scope` (e.g. one message's reports): stable for the
    /// same device and scope, unlinkable to `key(for:)` and across scopes.
    public func key(for device: DeviceID, scope: String) -> [UInt8] { mac(scope + "\u{0}" + device.rawValue) }

    /// The key of a client network (an address prefix): budgets are kept per network without
    /// ever storing an address.
    public func networkKey(_ prefix: String) -> [UInt8] { mac("network\u{0}" + prefix) }

    /// The key of the stats noise (see `PrivacyPolicy.noiseKey`), derived from the secret so
    /// that a database dump alone cannot reproduce the noise.
    public var noiseKey: UInt64 { mac("stats-noise").prefix(8).reduce(0) { $0 << 8 | UInt64($1) } }

    /// HMAC-SHA256 of `text` under the server secret.
    private func mac(_ text: String) -> [UInt8] {
        var hmac = keyed
        var text = text
        text.withUTF8 { hmac.update(data: UnsafeRawBufferPointer($0)) }
        return Array(hmac.finalize())
    }

    /// A fresh random secret (256 bits, hex).
    public static func generateSecret() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
    }
}

public enum SecretError: Error, CustomStringConvertible {
    case tooShort
    public var description: String { "the server secret must be at least 16 characters (FOLLA_SECRET / --secret)" }
}
