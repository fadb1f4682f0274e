import Foundation
import NIOCore
import NIOHTTPTypes

/// Bounds the time and the bytes a client takes to send a request head, and the time it
/// may leave its answers unread.
///
/// Hummingbird's idle timeout only sees parsed requests; a head that is never finished is
/// not one. So this handler sits in front of the HTTP decoder and sees raw bytes: the head's
/// clock starts with the connection, and again with the first read after each response,
/// and stops when the decoder has produced the head (``RequestHeadMarker`` tells it). A
/// head whose first bytes came in the same read as the request before it, or while that
/// request's answer was still owed, is not timed here: Hummingbird's idle timeout (from
/// the answer's end) bounds it. A
/// head too slow gets 408, a request line too long 414, a head too large 431: each a
/// problem+json written here (no request exists yet for the router to answer), then close.
/// ``RequestHeadMarker`` installs it, and asks it to refuse the other requests no route
/// sees: a body too slow (408) and HTTP that does not parse (400).
/// Written by hand: neither NIO nor Hummingbird has a request-head deadline.
final class RequestHeadGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let limits: ConnectionLimits
    /// `limits.headTimeout`, as the event loop counts time.
    private let headTimeout: TimeAmount
    private var waitingForHead = true
    private var headBytes = 0
    private var sawLineEnd = false
    private var refused = false
    private var written = false
    /// Set by ``RequestHeadMarker``: a refusal goes there, to wait for the answers owed to the
    /// requests pipelined before it, and comes back to ``write(_:)``.
    var onRefusal: ((Problem) -> Void)?
    /// When the head now awaited started (the connection's start, or the first read after a
    /// response); nil from when the head is produced until that read.
    private var headStarted: NIODeadline?
    /// Fires at the awaited head's deadline, or earlier: then it sets itself again for the
    /// head now awaited, if any. Not cancelled when a head arrives: scheduling and cancelling
    /// a task per request was ~1.3 % of a dense groups answer's CPU and ~2.3 % of `/healthz`'s
    /// (perf, session 34); this way a busy connection's timer fires once per head timeout.
    private var timer: Scheduled<Void>?
    /// Runs while the client reads none of what it is sent (the channel stays unwritable):
    /// a client that stopped reading held its connection for good, its answers queued in the
    /// kernel (3.8 MB for 270 s in an outside test), since the idle timeout does not run
    /// while a response is being written.
    private var stallTimer: Scheduled<Void>?
    /// Ours from `handlerAdded` to `handlerRemoved`, used on the channel's event loop only.
    private var context: ChannelHandlerContext?

    init(limits: ConnectionLimits) {
        self.limits = limits
        self.headTimeout = TimeAmount(limits.headTimeout)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { startHead(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        startHead(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        stallTimer?.cancel()
        stallTimer = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        stallTimer?.cancel()
        self.context = nil
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stallTimer?.cancel()
            stallTimer = nil
        } else if stallTimer == nil {
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            stallTimer = context.eventLoop.scheduleTask(in: .init(limits.idleTimeout)) { loopBound.value.close(promise: nil) }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        let buffer = unwrapInboundIn(data)
        let counting = waitingForHead
        if counting {
            if headStarted == nil { startHead(context) }
            headBytes += buffer.readableBytes
            if !sawLineEnd {
                if let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
                    sawLineEnd = true
                    if headBytes - buffer.readableBytes + (newline - buffer.readerIndex) > limits.maxRequestLineBytes {
                        return stop(uriTooLong)
                    }
                } else if headBytes > limits.maxRequestLineBytes {
                    return stop(uriTooLong)
                }
            }
        }
        context.fireChannelRead(data)
        // Checked after the decoder has read the bytes: if they completed the head (the
        // marker said so), what followed was body, not head.
        if counting, waitingForHead, headBytes > limits.maxHeadBytes {
            stop(headersTooLarge)
        }
    }

    /// The decoder produced a request head of `size` bytes, `requestLine` of them its request
    /// line: the clock stops. Returns false when the line or the head is too long (they came
    /// in a read with what went before, a pipelined request's, so the byte count could not
    /// tell): the 414 or 431 is on its way and the request must go no further.
    func headArrived(size: Int, requestLine: Int) -> Bool {
        waitingForHead = false
        headStarted = nil
        guard requestLine <= limits.maxRequestLineBytes else {
            stop(uriTooLong)
            return false
        }
        guard size <= limits.maxHeadBytes else {
            stop(headersTooLarge)
            return false
        }
        return true
    }

    /// The request and its response are both complete: the next head's clock starts with the
    /// next read.
    func responseEnded() {
        waitingForHead = true
        headBytes = 0
        sawLineEnd = false
    }

    /// The clock starts for a head: now.
    private func startHead(_ context: ChannelHandlerContext) {
        let started = NIODeadline.now()
        headStarted = started
        if timer == nil { armTimer(context, at: started + headTimeout) }
    }

    private func armTimer(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) {
            let handler = loopBound.value
            handler.timer = nil
            // (A task cancelled by another of the same tick still runs: nothing to do once refused or closed.)
            guard !handler.refused, handler.waitingForHead, let started = handler.headStarted,
                  let context = handler.context, context.channel.isActive
            else { return }
            let due = started + handler.headTimeout
            if NIODeadline.now() >= due {
                handler.stop(handler.tooSlow)
            } else {
                handler.armTimer(context, at: due)  // a head that started after this timer was set
            }
        }
    }

    private var tooSlow: Problem { .tooSlow("head", within: limits.headTimeout) }

    private var uriTooLong: Problem {
        Problem(.uriTooLong, type: "uri-too-long", title: "URI too long",
                detail: "the request line must be at most \(limits.maxRequestLineBytes) bytes")
    }

    private var headersTooLarge: Problem {
        .headersTooLarge("the request head must be at most \(limits.maxHeadBytes) bytes")
    }

    /// Stops reading, and refuses with `problem` once the answers owed before it are out.
    private func stop(_ problem: Problem) {
        guard !refused else { return }
        refused = true
        timer?.cancel()
        timer = nil
        if let onRefusal { onRefusal(problem) } else { write(problem) }
    }

    /// Writes `problem` as a whole HTTP/1.1 response and closes the connection: the answer
    /// to what no route sees (a head too slow or too large, HTTP that does not parse, a body
    /// too slow). Written here, as raw bytes, it needs no request (there may be none) and no
    /// state of the encoder; the marker makes sure that no other response is half written.
    func write(_ problem: Problem) {
        guard !written, let context else { return }
        written = true
        refused = true
        timer?.cancel()
        timer = nil
        let body = problem.jsonBody()
        var out = context.channel.allocator.buffer(capacity: 256 + body.readableBytes)
        out.writeString("HTTP/1.1 \(problem.status.code) \(problem.status.reasonPhrase)\r\n")
        out.writeString("Content-Type: application/problem+json\r\nContent-Length: \(body.readableBytes)\r\n")
        // The problem's own fields (`Allow` for a 405, `Retry-After`), then ours.
        for field in problem.headers { out.writeString("\(field.name.rawName): \(field.value)\r\n") }
        out.writeString("Cache-Control: no-store\r\nConnection: close\r\n\r\n")
        out.writeImmutableBuffer(body)
        context.closeLingering(after: context.writeAndFlush(wrapOutboundOut(out)))
    }
}
