import NIOCore
import NIOHTTP1

/// Keeps a connection open after a response only when the request's version and its
/// `Connection` header allow it (RFC 9112 §9.3), and answers an HTTP/1.0 request in HTTP/1.0.
///
/// Hummingbird closes only after `Connection: close`, so an HTTP/1.0 client without
/// keep-alive, which reads its answer until the connection closes, used to wait out the
/// idle timeout; and a streamed answer went out chunked, which HTTP/1.0 does not know
/// (answered in 1.0, NIO's encoder delimits it by the close instead). This handler sits
/// between NIO's HTTP/1 decoder and Hummingbird's HTTP-types codec, the last place the
/// request's version is known. Written by hand: NIO leaves persistence to the server, and
/// Hummingbird's codec drops the version.
final class ConnectionPersistence: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The version and persistence of the request being answered. Requests may be
    /// pipelined, so they queue until their response's head is written.
    private var requests: CircularBuffer<(version: HTTPVersion, keepAlive: Bool)> = []
    private var closeAfterResponse = false
    /// Whether the head just read has the `Host` fields its version requires (RFC 9112 §3.2:
    /// exactly one in HTTP/1.1, at most one before). Hummingbird's codec keeps only the first
    /// as the request's authority, so ``RequestHeadMarker`` asks here, as that head reaches it.
    private(set) var hostIsValid = true
    /// Whether the head just read is HTTP/1.0 (no `100 Continue` for it).
    private(set) var isHTTP10 = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            requests.append((head.version, head.isKeepAlive))
            isHTTP10 = head.version == .http1_0
            let hosts = head.headers["host"].count
            hostIsValid = hosts == 1 || (hosts == 0 && head.version.major == 1 && head.version.minor == 0)
        }
        context.fireChannelRead(data)
    }

    /// Set by a graceful shutdown (NIO's quiesce event): Hummingbird closes the connection
    /// once the answers in flight are written, so they say `Connection: close` (RFC 9112
    /// §9.6). Without it, a keep-alive client sent its next request into the closing socket
    /// and got a reset, with no way to tell whether a POST had been done (an outside probe,
    /// session 26: 23 of 24 clients).
    private var quiescing = false

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent { quiescing = true }
        context.fireUserInboundEventTriggered(event)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where head.status.code >= 200:
            let request = requests.popFirst() ?? (.http1_1, true)
            closeAfterResponse = !request.keepAlive || quiescing
            if request.version == .http1_0 {
                head.version = .http1_0
                // A 1.0 client knows where a body ends only by its length or by the close.
                if !head.headers.contains(name: "content-length") { closeAfterResponse = true }
                head.headers.replaceOrAdd(name: "Connection", value: closeAfterResponse ? "close" : "keep-alive")
            } else if closeAfterResponse {
                head.headers.replaceOrAdd(name: "Connection", value: "close")
            }
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end where closeAfterResponse:
            let written = context.eventLoop.makePromise(of: Void.self)
            if let promise { written.futureResult.cascade(to: promise) }
            context.write(data, promise: written)
            context.closeLingering(after: written.futureResult)
        default:
            context.write(data, promise: promise)
        }
    }
}
