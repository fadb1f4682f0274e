import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// The generator's HTTP/1.1 client: a fixed number of keep-alive connections to one
/// server, one request at a time on each, and a FIFO of requests waiting for a connection.
///
/// Written by hand because the general client could not produce the load: with thousands of
/// requests waiting behind 64 connections, AsyncHTTPClient's pool spent a whole core
/// removing timed-out requests from its queue by linear search (a 40 000-phone run played
/// 106 s in 7 minutes). Here every bit of state lives on one event loop (no locks), the
/// queue is a ring buffer, and a request that waited past the timeout is failed when it
/// reaches the head of the queue: O(1) per request whatever the backlog. One timer, set for
/// the head's deadline, makes sure that happens on time even when nothing else moves (a
/// server that stopped answering), not only at the next answer or closed connection.
///
/// It speaks HTTP/1.1 itself (`HTTPResponseReader`, `LeanHTTPClient+Request`) rather than
/// through NIO's HTTP handlers, for the generator's CPU (see the reader); an answer in flight
/// past the timeout is found by one sweep of the connections, not a timer per request.
public final class LeanHTTPClient: @unchecked Sendable {
    public struct Response: Sendable {
        public var status: Int
        /// The header section as received (read with `header(_:)`).
        var head: ByteBuffer
        public var body: ByteBuffer

        /// The value of the first header field named `name`, in any case.
        public func header(_ name: String) -> String? { HTTPResponseReader.field(name, in: head) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    struct Pending {
        /// The whole request as it goes on the wire.
        var request: ByteBuffer
        /// A HEAD request's answer has no body whatever its head says.
        var isHead: Bool
        var promise: EventLoopPromise<Response>
        var enqueued: NIODeadline
        /// False when the caller reads only the status and headers: the body's bytes are
        /// dropped as they arrive instead of gathered (a groups answer is ~24 KiB).
        var keepBody: Bool
    }

    /// One keep-alive connection; only touched on `loop` (hence unchecked).
    final class Connection: @unchecked Sendable {
        let channel: any Channel
        var current: Pending?
        /// When `current` was sent: the sweep closes the connection (failing it) once its
        /// answer has taken longer than the timeout.
        var sentAt = NIODeadline.now()
        var reader = HTTPResponseReader()
        /// When it last became idle (or connected).
        var idleSince = NIODeadline.now()
        /// Whether it has carried a request.
        var used = false
        /// What closed it from our side, if an error did (for the failure's description).
        var error: (any Error)?
        init(channel: any Channel) { self.channel = channel }
    }

    public let host: String
    public let port: Int
    let maxConnections: Int
    let timeout: TimeAmount
    /// The timeout in seconds, as failures name it.
    private let timeoutText: String
    let maxIdle: TimeAmount
    let maxFreshIdle: TimeAmount
    let group: MultiThreadedEventLoopGroup
    let loop: any EventLoop

    // Confined to `loop`.
    private var queue = CircularBuffer<Pending>(initialCapacity: 1024)
    private var idle: [Connection] = []
    private var open = 0
    /// Connections opened since the start (`openedConnections`).
    private var opened = 0
    private var connecting = 0
    private var shutDown = false
    /// Fires when the head of the queue has waited too long (set while the queue is not empty).
    private var expiry: Scheduled<Void>?
    /// Closes connections whose answer is overdue (started with the first connection).
    private var sweep: RepeatedTask?
    /// `Host: host:port` and its line end, the same for every request.
    let hostLine: String
    /// Read off the loop by `execute`: a request after shutdown fails at once (the loop
    /// would drop it, and its caller would wait for ever).
    private let stopped = Atomic<Bool>(false)
    /// Every open connection, to fail what is in flight at shutdown.
    private var connections: [ObjectIdentifier: Connection] = [:]

    /// - Parameters:
    ///   - base: `http://host:port` (plain HTTP only: the generator talks to a server it knows).
    ///   - connections: keep-alive connections at most.
    ///   - timeout: a request not sent within this long of being asked for fails; so does one
    ///     whose answer has not come this long after it was sent (its connection is closed),
    ///     found by a sweep every eighth of the timeout, and at least once a second.
    ///   - maxIdle: a connection idle for longer is closed rather than used. A server closes
    ///     a keep-alive connection idle for its own timeout (ours: 60 s by default), and a
    ///     request sent on it as it does so fails, never read: one groups request of a
    ///     40 000-phone run did, when the load fell and idle connections waited at the
    ///     bottom of the stack. Keep it well under the server's.
    ///   - maxFreshIdle: the same for a connection that has carried no request yet (opened
    ///     for a burst that other connections served). A server's head timeout runs from the
    ///     accept (ours: 10 s by default), and its 408 then, meeting a request sent on the
    ///     connection as it came, was taken for that request's answer: six check-ins of a
    ///     40 000-phone run.
    public init(base: String, connections: Int = 64, timeout: TimeAmount = .seconds(30),
                maxIdle: TimeAmount = .seconds(20), maxFreshIdle: TimeAmount = .seconds(4)) throws {
        guard let url = URLComponents(string: base), url.scheme == "http", let host = url.host,
              !host.isEmpty, host.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != UInt8(ascii: "/") })
        else {
            throw Failure(description: "expected a base URL like http://127.0.0.1:8080, got \(base)")
        }
        self.host = host
        self.port = url.port ?? 80
        self.maxConnections = max(1, connections)
        self.timeout = timeout
        self.timeoutText = "\(Double(timeout.nanoseconds) / 1e9) s"
        self.maxIdle = maxIdle
        self.maxFreshIdle = maxFreshIdle
        self.hostLine = "Host: \(host):\(port)\r\n"
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.loop = group.next()
    }

    /// Sends one request and returns the whole answer.
    ///
    /// - Parameters:
    ///   - method: the request's method.
    ///   - path: the path and query.
    ///   - headers: extra header fields.
    ///   - body: the request's body, if any (its `Content-Length` is set here).
    ///   - keepBody: false to get an empty body back (its bytes are read and dropped).
    public func execute(_ method: HTTPMethod = .GET, _ path: String, headers: [(String, String)] = [],
                        body: ByteBuffer? = nil, keepBody: Bool = true) async throws -> Response {
        let request = try Self.request(method, path, hostLine: hostLine, headers: headers, body: body)
        guard !stopped.load(ordering: .acquiring) else { throw Failure(description: "client shut down") }
        let promise = loop.makePromise(of: Response.self)
        let pending = Pending(request: request, isHead: method == .HEAD, promise: promise, enqueued: .now(), keepBody: keepBody)
        // A phone's task runs on the loop (`LoadRunner`): no pass through the loop's queue then.
        if loop.inEventLoop { enqueue(pending) } else { loop.execute { self.enqueue(pending) } }
        return try await promise.futureResult.get()
    }

    /// Closes every connection and stops the event loop.
    public func shutdown() async throws {
        // Once only: a second call would submit to a loop already gone, and wait for good.
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try await loop.submit {
            self.shutDown = true
            self.expiry?.cancel()
            self.expiry = nil
            self.sweep?.cancel()
            self.sweep = nil
            while let p = self.queue.popFirst() { p.promise.fail(Failure(description: "client shut down")) }
            for connection in self.connections.values {
                connection.current.map { $0.promise.fail(Failure(description: "client shut down")) }
                connection.current = nil
                connection.channel.close(promise: nil)
            }
            self.idle.removeAll()
        }.get()
        try await group.shutdownGracefully()
    }

    /// Opens one connection with nothing to send (as for a burst that others served) and
    /// returns its local port once it is idle. For tests.
    func openIdleConnection() async throws -> Int {
        try await loop.submit { self.connect() }.get()
        while true {
            let ports = try await loop.submit { self.idle.filter { !$0.used }.compactMap { $0.channel.localAddress?.port } }.get()
            if let port = ports.first { return port }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// How many connections the client has opened since it started. For tests: a port names
    /// a connection only until the kernel hands it out again.
    func openedConnections() async throws -> Int {
        try await loop.submit { self.opened }.get()
    }

    // MARK: - On the loop

    private func enqueue(_ pending: Pending) {
        guard !shutDown else { return pending.promise.fail(Failure(description: "client shut down")) }
        queue.append(pending)
        dispatch()
    }

    private func dispatch() {
        let now = NIODeadline.now()
        while let first = queue.first, now - first.enqueued > timeout {
            queue.removeFirst().promise.fail(Failure(description: "no connection within \(timeoutText)"))
        }
        while !queue.isEmpty, let connection = idle.popLast() {
            // (Closed, it leaves `open` when its close completes; that dispatches again. NIO
            // completes a close future a tick after the channel went inactive, and a request
            // sent on it meanwhile was lost unsent: skipped here.)
            guard connection.channel.isActive else { continue }
            if now - connection.idleSince > (connection.used ? maxIdle : maxFreshIdle) {
                connection.channel.close(promise: nil)
                continue
            }
            send(queue.removeFirst(), on: connection)
        }
        let wanted = min(queue.count, maxConnections - open - connecting)
        for _ in 0..<max(0, wanted) { connect() }
        if expiry == nil, !shutDown, let first = queue.first {
            expiry = loop.scheduleTask(deadline: first.enqueued + timeout + .milliseconds(1)) {
                self.expiry = nil
                self.dispatch()
            }
        }
    }

    private func connect() {
        guard !shutDown else { return }
        connecting += 1
        if sweep == nil {
            let every = TimeAmount.nanoseconds(min(TimeAmount.seconds(1).nanoseconds, max(timeout.nanoseconds / 8, 1_000_000)))
            sweep = loop.scheduleRepeatedTask(initialDelay: every, delay: every) { _ in self.closeOverdue() }
        }
        ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(5))
            .connect(host: host, port: port)
            .whenComplete { result in
                self.connecting -= 1
                switch result {
                case .success(let channel):
                    self.open += 1
                    self.opened += 1
                    let connection = Connection(channel: channel)
                    self.connections[ObjectIdentifier(connection)] = connection
                    try? channel.pipeline.syncOperations.addHandler(ResponseHandler(client: self, connection: connection))
                    channel.closeFuture.whenComplete { _ in self.closed(connection) }
                    if self.shutDown { channel.close(promise: nil) } else { self.ready(connection) }
                case .failure(let error):
                    // Nothing listens: fail what waits rather than retry forever.
                    if self.open == 0 && self.connecting == 0 {
                        while let p = self.queue.popFirst() { p.promise.fail(error) }
                    }
                }
            }
    }

    private func send(_ pending: Pending, on connection: Connection) {
        connection.current = pending
        connection.used = true
        connection.sentAt = .now()
        connection.reader.expect(keepBody: pending.keepBody, bodiless: pending.isHead)
        // A write that fails closes the channel without `errorCaught`: its error is kept.
        let written = loop.makePromise(of: Void.self)
        written.futureResult.whenFailure { connection.error = connection.error ?? $0 }
        connection.channel.writeAndFlush(pending.request, promise: written)
    }

    /// Closes each connection whose answer has taken longer than the timeout. Closed by us:
    /// its request's failure says so (it read "the server closed the connection", which sent
    /// a flaky test's reader looking for a signal to the server).
    private func closeOverdue() {
        let now = NIODeadline.now()
        for connection in connections.values where connection.current != nil && now - connection.sentAt > timeout {
            connection.error = connection.error ?? Failure(description: "no answer within \(timeoutText)")
            connection.channel.close(promise: nil)
        }
    }

    private func ready(_ connection: Connection) {
        if let next = queue.popFirst() {
            send(next, on: connection)
        } else {
            connection.idleSince = .now()
            idle.append(connection)
        }
        dispatch()
    }

    /// Bytes from the server. Bytes with no request in flight (a server's 408 to an idle
    /// connection) or that do not read as an answer put the connection out of step: closed.
    func received(_ bytes: inout ByteBuffer, on connection: Connection) {
        guard let pending = connection.current else { return connection.channel.close(promise: nil) }
        let answer: HTTPResponseReader.Answer?
        do {
            answer = try connection.reader.read(&bytes)
        } catch {
            connection.error = connection.error ?? error
            return connection.channel.close(promise: nil)
        }
        guard let answer else { return }
        connection.current = nil
        pending.promise.succeed(Response(status: answer.status, head: answer.head, body: answer.body))
        // Bytes past the answer are not an answer to anything sent.
        if answer.keepAlive && !shutDown && connection.reader.isIdle { ready(connection) } else { connection.channel.close(promise: nil) }
    }

    private func closed(_ connection: Connection) {
        open -= 1
        connections[ObjectIdentifier(connection)] = nil
        idle.removeAll { $0 === connection }
        if let pending = connection.current {
            connection.current = nil
            pending.promise.fail(Failure(description: connection.error.map { "the connection failed: \($0)" } ?? "the server closed the connection"))
        }
        if !shutDown { dispatch() }
    }
}
