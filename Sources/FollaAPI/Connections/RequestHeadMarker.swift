import HTTPTypes
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
/// - a `Content-Length` over ``ConnectionLimits/maxBodyBytes`` (413 at the head: a client
///   waiting for `100 Continue` before sending it used to get a 408 instead);
/// - `CONNECT` (405: NIO's parser stops parsing after one, and its answer went out unframed);
/// - a transfer coding other than chunked (501, RFC 9112 §6.1: NIO read `gzip, chunked` as chunked);
/// - an `Expect` other than `100-continue` (417, RFC 9110 §10.1.1: it was processed as if
///   absent, so a client that made its request conditional on it got it done regardless);
/// - HTTP that NIO's parser cannot read outside a body (400 with a problem, 431 for too many
///   header fields; Hummingbird's own answer has an empty body). Inside a body the error
///   reaches the route, which answers it, unless the route has answered already: then the
///   connection closes, with no second answer.
///
/// It also answers `Expect: 100-continue` (curl waited a second for it before every body
/// over 1 KiB).
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
    private var persistence: ConnectionPersistence?
    private var dropping = false
    /// A response can be written before its request's body has all arrived (an early 413,
    /// a 503 from the database gate); what still arrives is that body, not the next head. So
    /// the next head is waited for only once both the request and the response have ended.
    private var requestOpen = false
    /// Request heads passed on whose response has not ended; they are answered in order.
    private var unanswered = 0
    /// A response head is written and its end is not: nothing else may be written meanwhile.
    private var responseInFlight = false
    private var bodyTimer: Scheduled<Void>?
    /// A refusal waiting for the responses owed before it.
    private var pending: Refusal?
    /// A refusal has been written: whatever the routes still write is dropped.
    private var outputDone = false
    /// The open request's body stalled and was refused (408): its route is failed at the close.
    private var bodyStalled = false
    /// Dropping a response that answers no request (Hummingbird's empty 400 for a body that
    /// did not parse, after the route had answered without reading it).
    private var unsolicited = false

    private enum Refusal {
        /// A problem answered once every request before is answered.
        case answer(Problem)
        /// The open request's body stalled: 408, once the requests before it are answered.
        case bodyTooSlow
        /// The open request is answered (or being answered) and its body went wrong: close
        /// once the answer is out.
        case close
    }

    init(limits: ConnectionLimits) {
        self.limits = limits
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let headGuard = RequestHeadGuard(limits: limits)
        self.headGuard = headGuard
        headGuard.onRefusal = { [weak self, weak context] problem in
            if let self, let context { self.refuse(.answer(problem), context) }
        }
        let pipeline = context.pipeline.syncOperations
        try? pipeline.addHandler(headGuard, position: .first)
        // The request's HTTP version is known only before Hummingbird's codec drops it.
        if let codec = try? pipeline.context(handlerType: HTTP1ToHTTPServerCodec.self) {
            let persistence = ConnectionPersistence()
            try? pipeline.addHandler(persistence, position: .before(codec.handler))
            self.persistence = persistence
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        bodyTimer?.cancel()
        bodyTimer = nil
        headGuard?.onRefusal = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !dropping else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard let headGuard else { break }
            // The head as sent: request line, then "name: value\r\n" per field, then a blank line.
            // The request line up to its "\r" (as `RequestHeadGuard` counts it per read).
            let line = head.method.rawValue.utf8.count + (head.path?.utf8.count ?? 0) + 11
            let size = line + 1 + head.headerFields.reduce(2) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 }
            guard headGuard.headArrived(size: size, requestLine: line) else { return }  // refused: see onRefusal
            if let refusal = refusal(of: head) {
                return refuse(.answer(refusal), context)
            }
            requestOpen = true
            unanswered += 1
            // (Never to HTTP/1.0, which has no 100 Continue. Any other expectation was refused.)
            if unanswered == 1, head.headerFields[.expect] != nil, persistence?.isHTTP10 != true {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
            }
        case .end:
            requestOpen = false
            bodyTimer?.cancel()
            bodyTimer = nil
            nextHeadIfIdle()
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    /// What no route should see: CONNECT, a transfer coding other than chunked, a body declared
    /// over the limit, and a `Host` missing from an HTTP/1.1 request or given twice.
    private func refusal(of head: HTTPRequest) -> Problem? {
        if persistence?.hostIsValid == false {
            return .malformedRequest("an HTTP/1.1 request needs exactly one Host header (at most one in HTTP/1.0)")
        }
        if head.method == .connect {
            return .methodNotAllowed("CONNECT is not supported: this server is not a proxy",
                                     allow: "GET, HEAD, POST, PUT, DELETE, OPTIONS")
        }
        // NIO's parser reads `gzip, chunked` as chunked and hands on the gzip bytes as the body.
        if let coding = head.headerFields[.transferEncoding], coding.lowercased() != "chunked" {
            return Problem(.notImplemented, type: "unsupported-transfer-coding", title: "Transfer coding not supported",
                           detail: "only Transfer-Encoding: chunked is supported")
        }
        // (Repeated fields arrive joined with commas: `100-continue` sent twice is still one.)
        if let expect = head.headerFields[.expect],
           !expect.lowercased().split(separator: ",", omittingEmptySubsequences: false)
               .allSatisfy({ $0.trimmingCharacters(in: .whitespaces) == "100-continue" }) {
            return Problem(.expectationFailed, type: "expectation-failed", title: "Expectation not supported",
                           detail: "the only expectation supported is Expect: 100-continue; got \(Problem.bounded(expect, 64))")
        }
        if let declared = head.headerFields[.contentLength].flatMap({ Int($0) }), declared > limits.maxBodyBytes {
            return .bodyTooLarge("the request body must be at most \(limits.maxBodyBytes) bytes; Content-Length says \(declared)")
        }
        return nil
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Armed here, not at the head: a request without a body ends in the same read, and
        // so costs no timer.
        if requestOpen, bodyTimer == nil, !dropping { armBodyTimer(context) }
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError else { return context.fireErrorCaught(error) }
        if dropping { return }
        // Bytes after a request that asked for the close: the connection is closing, and
        // they get no answer.
        if parseError == .closedConnection { return dropping = true }
        if requestOpen {
            // Inside a body: the route reads the error and answers it, if it has not answered.
            // (If it answers without reading the body, Hummingbird's own answer to the error
            // follows, answering no request: `write` drops it.)
            if unanswered == 0 || (unanswered == 1 && responseInFlight) { return refuse(.close, context) }
            bodyTimer?.cancel()
            bodyTimer = nil
            return context.fireErrorCaught(error)
        }
        // Not forwarded: Hummingbird would answer it again, with an empty 400.
        let problem = parseError == .headerOverflow
            ? Problem.headersTooLarge("the request head has too many header fields")
            : Problem.unreadable(parseError)
        refuse(.answer(problem), context)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        if outputDone { return promise?.fail(ChannelError.outputClosed) ?? () }
        if case .head(let head) = part, head.status.kind != .informational, unanswered == 0 {
            unsolicited = true
        }
        if unsolicited {
            promise?.succeed(())
            if case .end = part {
                unsolicited = false
                dropping = true
                context.flush()
                context.closeLingering(after: context.eventLoop.makeSucceededVoidFuture())
            }
            return
        }
        switch part {
        case .head(let head) where head.status.kind != .informational:
            responseInFlight = true
        case .end:
            responseInFlight = false
            unanswered -= 1
            nextHeadIfIdle()
            if pending != nil {
                let written = context.eventLoop.makePromise(of: Void.self)
                if let promise { written.futureResult.cascade(to: promise) }
                context.write(data, promise: written)
                return refuseWhenDue(context, after: written.futureResult)
            }
        default:
            break
        }
        context.write(data, promise: promise)
    }

    /// Once the request has ended and every request is answered, what comes next is a head.
    /// (An answer can come before the end of its request's body: an early 413, a 503 from the
    /// database gate; what still arrives is that body, not the next head.)
    private func nextHeadIfIdle() {
        if !requestOpen && unanswered == 0 { headGuard?.responseEnded() }
    }

    /// Drops what else arrives, and delivers `refusal` once it is due.
    private func refuse(_ refusal: Refusal, _ context: ChannelHandlerContext) {
        dropping = true
        pending = refusal
        refuseWhenDue(context, after: nil)
    }

    /// Delivers the pending refusal if the responses owed before it are all written.
    /// - Parameter written: the write of the last response, when called as it ends.
    private func refuseWhenDue(_ context: ChannelHandlerContext, after written: EventLoopFuture<Void>?) {
        let ready = written ?? context.eventLoop.makeSucceededVoidFuture()
        switch pending {
        case .answer(let problem) where unanswered == 0:
            pending = nil
            outputDone = true
            headGuard?.write(problem)
        case .bodyTooSlow where unanswered == 1 && responseInFlight:
            // Its answer is being written: the close waits for its end.
            pending = .close
        case .close where unanswered == 0, .bodyTooSlow where unanswered == 0:
            // The request has its answer: nothing more to say.
            pending = nil
            context.flush()
            context.closeLingering(after: ready)
        case .bodyTooSlow where unanswered == 1:
            pending = nil
            outputDone = true
            headGuard?.write(.tooSlow("body", within: limits.bodyTimeout))
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
            marker.refuse(.bodyTooSlow, context)
            marker.bodyStalled = true
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        // The route waiting for the rest of a stalled body must fail, not go on with the part
        // it has: once the connection closed, its body simply ended, and a part that was a
        // whole request (a `Content-Length` never filled, chunks without their last) was
        // written after its 408 (an outside probe, session 39). At the close, not when the
        // 408 is written: a route that fails closes the connection at once, with no linger,
        // and a client still sending would get a reset that could cost it the 408. The same
        // refusal, so that its access-log line says 408 too (its answer goes nowhere).
        if bodyStalled {
            bodyStalled = false
            context.fireErrorCaught(Problem.tooSlow("body", within: limits.bodyTimeout))
        }
        context.fireChannelInactive()
    }
}
