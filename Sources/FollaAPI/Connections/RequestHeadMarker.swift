import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// The half of ``RequestHeadGuard`` that sees parsed HTTP: installs the guard in front of
/// the decoder (and ``ConnectionPersistence`` behind it), tells the guard when a head has
/// arrived and when a response has ended, and has it refuse the requests no route sees:
///
/// - a body that does not arrive within ``ConnectionLimits/bodyTimeout`` of its head (408):
///   a `Content-Length` the client never fills used to hold the connection and its request
///   task until the idle timeout;
/// - HTTP that NIO's parser cannot read outside a body (400 with a problem; Hummingbird's own
///   answer has an empty body). Inside a body the error reaches the route, which answers it.
///
/// Requests may be pipelined (Hummingbird has no pipelining handler), so a refusal waits
/// until the requests before it are answered: a parse error after them, a body too slow
/// after those ahead of it (its own, if already answered or half written, is closed instead).
final class RequestHeadMarker: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: ConnectionLimits
    private var headGuard: RequestHeadGuard?
    private var dropping = false
    /// A response can be written before its request's body has all arrived (an early 413,
    /// a 503 from the database gate); what still arrives is that body, not the next head. So
    /// the next head is waited for only once both the request and the response have ended.
    private var requestOpen = false
    private var responseOpen = false
    /// Request heads passed on whose response has not ended; they are answered in order.
    private var unanswered = 0
    /// A response head is written and its end is not: nothing else may be written meanwhile.
    private var responseInFlight = false
    private var bodyTimer: Scheduled<Void>?
    /// A refusal waiting for the responses owed before it.
    private var pending: Refusal?

    private enum Refusal {
        /// NIO's parser failed outside a body: 400, once every request before is answered.
        case unreadable(HTTPParserError)
        /// The open request's body stalled: 408, once the requests before it are answered.
        case bodyTooSlow
    }

    init(limits: ConnectionLimits) {
        self.limits = limits
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let headGuard = RequestHeadGuard(limits: limits)
        self.headGuard = headGuard
        let pipeline = context.pipeline.syncOperations
        try? pipeline.addHandler(headGuard, position: .first)
        // The request's HTTP version is known only before Hummingbird's codec drops it.
        if let codec = try? pipeline.context(handlerType: HTTP1ToHTTPServerCodec.self) {
            try? pipeline.addHandler(ConnectionPersistence(), position: .before(codec.handler))
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        bodyTimer?.cancel()
        bodyTimer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !dropping else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard let headGuard else { break }
            // The head as sent: request line, then "name: value\r\n" per field, then a blank line.
            let size = head.method.rawValue.utf8.count + (head.path?.utf8.count ?? 0) + 12
                + head.headerFields.reduce(2) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 }
            guard headGuard.headArrived(size: size) else {
                dropping = true
                return
            }
            requestOpen = true
            responseOpen = true
            unanswered += 1
        case .end:
            requestOpen = false
            bodyTimer?.cancel()
            bodyTimer = nil
            if !responseOpen { headGuard?.responseEnded() }
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Armed here, not at the head: a request without a body ends in the same read, and
        // so costs no timer.
        if requestOpen, bodyTimer == nil, !dropping { armBodyTimer(context) }
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if dropping { return }
        guard let parseError = error as? HTTPParserError, !requestOpen else {
            return context.fireErrorCaught(error)
        }
        // Not forwarded: Hummingbird would answer it again, with an empty 400.
        dropping = true
        pending = .unreadable(parseError)
        refuseWhenDue(context)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.kind != .informational:
            responseInFlight = true
        case .end:
            responseInFlight = false
            responseOpen = false
            unanswered -= 1
            if !requestOpen { headGuard?.responseEnded() }
            if pending != nil {
                context.write(data, promise: promise)
                return refuseWhenDue(context)
            }
        default:
            break
        }
        context.write(data, promise: promise)
    }

    /// Delivers the pending refusal if the responses owed before it are all written.
    private func refuseWhenDue(_ context: ChannelHandlerContext) {
        switch pending {
        case .unreadable(let error) where unanswered == 0:
            pending = nil
            headGuard?.refuse(.unreadable(error))
        case .bodyTooSlow where unanswered == 0 || (unanswered == 1 && responseInFlight):
            // The stalled request has its answer, whole or begun: nothing more to say.
            pending = nil
            context.close(promise: nil)
        case .bodyTooSlow where unanswered == 1:
            pending = nil
            headGuard?.refuse(.tooSlow("body", within: limits.bodyTimeout))
        default:
            break
        }
    }

    private func armBodyTimer(_ context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        bodyTimer = context.eventLoop.scheduleTask(in: .init(limits.bodyTimeout)) {
            let (marker, context) = loopBound.value
            marker.bodyTimer = nil
            guard marker.requestOpen, !marker.dropping else { return }
            marker.dropping = true
            marker.pending = .bodyTooSlow
            marker.refuseWhenDue(context)
        }
    }
}
