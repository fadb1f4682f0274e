import NIOCore

extension ChannelHandlerContext {
    /// Closes our half of the connection once `written` is out, and the whole of it a second
    /// later: a client still sending reads the answer rather than a reset (a full close with
    /// unread input makes the kernel reset the connection, and the answer can be lost with it).
    /// - Parameter written: the write of the last answer on this connection.
    func closeLingering(after written: EventLoopFuture<Void>) {
        let loopBound = NIOLoopBound(self, eventLoop: eventLoop)
        written.whenComplete { _ in
            let context = loopBound.value
            context.close(mode: .output, promise: nil)
            context.eventLoop.scheduleTask(in: .seconds(1)) { loopBound.value.close(promise: nil) }
        }
    }
}
