import Hummingbird
import NIOCore

/// The request context of every route: Hummingbird's basics plus the peer's address, from
/// which the client network is derived for the budgets of new devices and fresh messages.
public struct FollaRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    /// Values a handler returns the Hummingbird way go through the one JSON encoder.
    public var responseEncoder: AnswerEncoder { AnswerEncoder() }

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The client's network: the /24 of an IPv4 address, the /48 of an IPv6 one (what one
    /// subscriber or one site usually holds). nil when the peer is not an IP socket.
    public var clientNetwork: String? { Self.network(of: remoteAddress) }

    static func network(of address: SocketAddress?) -> String? {
        guard let address else { return nil }
        switch address {
        case .v4(let a):
            let b = withUnsafeBytes(of: a.address.sin_addr.s_addr) { Array($0) }
            return "v4:\(b[0]).\(b[1]).\(b[2])"
        case .v6(let a):
            let b = withUnsafeBytes(of: a.address.sin6_addr) { Array($0) }
            // IPv4-mapped (::ffff:a.b.c.d): the IPv4 network.
            if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff {
                return "v4:\(b[12]).\(b[13]).\(b[14])"
            }
            return "v6:" + b[0..<6].map { String(format: "%02x", $0) }.joined()
        default:
            return nil
        }
    }
}
