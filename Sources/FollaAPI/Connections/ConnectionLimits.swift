import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// What one client connection may hold, whatever it sends (or does not send).
///
/// A connection that never finishes its request head used to stay open without limit, and
/// 1 100 of them exhausted a 1024-descriptor limit so that `/healthz` stopped answering.
public struct ConnectionLimits: Sendable {
    /// From the first byte of a request (or the opening of the connection) to the end of its head.
    public var headTimeout: Duration = .seconds(10)
    /// From the end of a request's head to the end of its body (then 408 and close).
    public var bodyTimeout: Duration = .seconds(10)
    /// The largest body any route accepts (``RequestLimits/maxBodyBytes``): a `Content-Length`
    /// over it is refused at the head.
    public var maxBodyBytes: Int = RequestLimits().maxBodyBytes
    /// A keep-alive connection with no request in progress is closed after this long, and so
    /// is one whose client reads none of its answers for this long.
    public var idleTimeout: Duration = .seconds(60)
    /// Open connections at most; beyond it the server stops accepting until one closes.
    public var maxConnections: Int = 1000
    /// The request line (method, URL, version) at most: beyond it, 414.
    public var maxRequestLineBytes: Int = 8 * 1024
    /// The whole request head at most: beyond it, 431.
    public var maxHeadBytes: Int = 32 * 1024

    public init() {}

    /// The HTTP/1.1 server with these limits.
    public func server() -> HTTPServerBuilder {
        // NIO's own header limits sit above ours, so that ours answer first, with a problem.
        let decoder = HTTP1Channel.Configuration.DecoderConfiguration(
            maxHeaderFieldSize: 2 * maxHeadBytes, maxHeaderListSize: 2 * maxHeadBytes, maxHeaderFieldCount: 1000)
        let limits = self
        let configuration = HTTP1Channel.Configuration(
            additionalChannelHandlers: [RequestHeadMarker(limits: limits)],
            idleTimeout: .init(idleTimeout), httpDecoderConfiguration: decoder)
        return HTTPServerBuilder { responder in
            OnItsEventLoop(inner: HTTP1Channel(responder: responder, configuration: configuration))
        }
    }

    /// The cap on open connections, for `ApplicationConfiguration`.
    public func connectionCap(logger: Logger) -> any AvailableConnectionsDelegate {
        MaximumAvailableConnections(maxConnections, logger: logger)
    }
}
