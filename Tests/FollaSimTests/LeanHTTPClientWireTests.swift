@testable import FollaSim
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

/// The generator's client against a server that misbehaves on the wire, which no HTTP
/// framework would: one that never answers, one that answers twice.
@Suite struct LeanHTTPClientWireTests {
    /// An answer that never comes fails the request once the timeout has passed (the sweep
    /// closes its connection); it does not wait for good.
    @Test func anAnswerThatNeverComesFails() async throws {
        try await RawServer.with(reply: { _ in nil }) { server in
            // 2 s: the timeout also bounds the wait for a connection, which a loaded box can make long.
            let http = try LeanHTTPClient(base: "http://127.0.0.1:\(server.port)", connections: 1, timeout: .seconds(2))
            // Whatever happens, the client shuts down after 20 s, failing what waits, so that
            // this test ends (a time limit does not end a wait on a future).
            let backstop = Task {
                try await Task.sleep(for: .seconds(20))
                try await http.shutdown()
            }
            let outcome: String
            do {
                _ = try await http.execute(.GET, "/silent")
                outcome = "answered"
            } catch {
                outcome = "\(error)"
            }
            backstop.cancel()
            #expect(outcome.contains("no answer within 2.0 s"), "\(outcome)")
            try await http.shutdown()
        }
    }

    /// Bytes past an answer are not an answer to the next request: the connection they came
    /// on is closed, and the next request goes out on a new one and gets its own answer.
    @Test func bytesPastAnAnswerCloseTheConnection() async throws {
        try await RawServer.with(reply: { n in
            n == 1 ? Self.answer("first") + Self.answer("stale") : Self.answer("request \(n)")
        }) { server in
            let http = try LeanHTTPClient(base: "http://127.0.0.1:\(server.port)", connections: 1)
            #expect(String(buffer: try await http.execute(.GET, "/a").body) == "first")
            #expect(String(buffer: try await http.execute(.GET, "/b").body) == "request 2")
            #expect(server.accepted == 2)
            try await http.shutdown()
        }
    }

    /// One connection carries many answers when each ends where its bytes do.
    @Test func keepsAConnectionInStep() async throws {
        try await RawServer.with(reply: { n in Self.answer("request \(n)") }) { server in
            let http = try LeanHTTPClient(base: "http://127.0.0.1:\(server.port)", connections: 1)
            for n in 1...5 { #expect(String(buffer: try await http.execute(.GET, "/\(n)").body) == "request \(n)") }
            #expect(server.accepted == 1)
            try await http.shutdown()
        }
    }

    static func answer(_ body: String) -> String {
        "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }
}

/// A TCP server that answers each request (one per read, numbered from 1 over the server's
/// life) with the bytes `reply` gives, or not at all for nil. One read per request holds for
/// these tests' requests: one write of under a hundred bytes each, on loopback, one at a time.
final class RawServer: Sendable {
    let port: Int
    private let counts = NIOLockedValueBox((accepted: 0, requests: 0))
    var accepted: Int { counts.withLockedValue { $0.accepted } }

    private init(port: Int) { self.port = port }

    static func with(reply: @escaping @Sendable (Int) -> String?, _ body: (RawServer) async throws -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let box = NIOLockedValueBox<RawServer?>(nil)
        let channel = try await ServerBootstrap(group: group)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    let server = box.withLockedValue { $0 }!
                    server.counts.withLockedValue { $0.accepted += 1 }
                    try child.pipeline.syncOperations.addHandler(Handler(server: server, reply: reply))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = RawServer(port: channel.localAddress!.port!)
        box.withLockedValue { $0 = server }
        let outcome: Result<Void, any Error>
        do {
            try await body(server)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        try? await channel.close()
        try await group.shutdownGracefully()
        try outcome.get()
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let server: RawServer
        let reply: @Sendable (Int) -> String?

        init(server: RawServer, reply: @escaping @Sendable (Int) -> String?) {
            self.server = server
            self.reply = reply
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let n = server.counts.withLockedValue { $0.requests += 1; return $0.requests }
            guard let bytes = reply(n) else { return }
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: bytes)), promise: nil)
        }
    }
}
