import Crypto
import FollaCore
import FollaServices
import FollaStore
import Foundation
import HTTPTypes
import Hummingbird

/// `Idempotency-Key` on POST (the IETF HTTPAPI draft): a phone on a flaky network that
/// retries a check-in with its message gets the first answer again, and the message is
/// posted once. The same key with the same request replays the stored answer; with a
/// different request it is a 422; while the first is still running, a 409. Only successful
/// answers are kept (for the retention window). A request refused for its content (a 4xx:
/// nothing was written) releases its key, so a corrected retry runs. Any other failure (an
/// outage, a 5xx, a cancelled request) may have happened after the write's commit: the key
/// stays reserved (409) until the store counts it abandoned. Without the header nothing changes.
struct IdempotencyMiddleware<Context: RequestContext>: RouterMiddleware {
    let store: IdempotencyStore
    let clock: any WallClock
    let maxBodyBytes: Int
    /// The answer floor of the routes behind it (zero for routes not held): a request's
    /// answer is recorded, or its key freed after a refusal, no sooner than the floor after
    /// it began. Recorded as soon as the work was done, a retry sent meanwhile saw the key
    /// turn from 409 to a replay at the moment the work ended, and so timed it (founding a
    /// place against joining one; a hidden message's report against an unknown id's).
    var floor = AnswerFloor(.zero)

    static var header: HTTPField.Name { HTTPField.Name("Idempotency-Key")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, let raw = request.headers[Self.header] else { return try await next(request, context) }
        let started = ContinuousClock.now
        guard request.headers[values: Self.header].count == 1 else {
            throw Problem(.badRequest, type: "invalid-idempotency-key", title: "Invalid Idempotency-Key",
                          detail: "send one Idempotency-Key header, not several")
        }
        let key = try Self.validate(raw)
        var request = request
        let body = try await request.collectBody(limit: maxBodyBytes)
        let fingerprint = Self.fingerprint(request, body: body)
        switch try await store.reserve(key, request: fingerprint, at: clock.now()) {
        case .replay(let answer):
            var headers: HTTPFields = [.cacheControl: "no-store"]
            if let type = answer.contentType { headers[.contentType] = type }
            headers[HTTPField.Name("Idempotent-Replayed")!] = "true"
            return Response(status: .init(code: answer.status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
        case .mismatch:
            throw Problem(.unprocessableContent, type: "idempotency-key-reused", title: "Idempotency-Key reused",
                          detail: "this Idempotency-Key was used for a different request; use a new key for a new request")
        case .inProgress:
            var problem = Problem(.conflict, type: "idempotency-key-in-progress", title: "Request in progress",
                                  detail: "a request with this Idempotency-Key is still being processed; retry later")
            problem.headers[.retryAfter] = "1"
            throw problem
        case .reserved:
            let response: Response
            do {
                response = try await next(request, context)
            } catch {
                if Self.wroteNothing(error) { await release(key, since: started) }
                throw error
            }
            guard (200..<300).contains(response.status.code) else {
                if (400..<500).contains(response.status.code) { await release(key, since: started) }
                return response
            }
            // The answer is recorded (or kept until it can be) before it is sent: a retry
            // after a lost answer gets it.
            let answer = try await Self.collect(response)
            await floor.wait(since: started)
            await store.complete(key, request: fingerprint, with: answer)
            var replayable = response
            replayable.body = .init(byteBuffer: ByteBuffer(bytes: answer.body))
            return replayable
        }
    }

    /// A refusal of the request's content, raised before anything was written.
    static func wroteNothing(_ error: any Error) -> Bool {
        switch error {
        case is FieldError, is CheckInRefusal, is RateLimited: return true
        case let problem as Problem: return (400..<500).contains(problem.status.code)
        case let error as HTTPError: return (400..<500).contains(error.status.code)
        default: return false
        }
    }

    /// Frees `key`, no sooner than the floor after `started` (see `floor`), in a task of its
    /// own: the request's task may be cancelled already.
    private func release(_ key: IdempotencyStore.Key, since started: ContinuousClock.Instant) async {
        await floor.wait(since: started)
        let store = self.store
        // Awaited, so that a retry right after the refusal finds the key free.
        await Task { try? await store.release(key) }.value
    }

    /// 1–255 visible ASCII characters, bare or as a quoted structured-header string.
    static func validate(_ raw: String) throws -> IdempotencyStore.Key {
        var key = Substring(raw.trimmingCharacters(in: .whitespaces))
        if key.count >= 2, key.hasPrefix("\""), key.hasSuffix("\"") { key = key.dropFirst().dropLast() }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Problem(.badRequest, type: "invalid-idempotency-key", title: "Invalid Idempotency-Key",
                          detail: "Idempotency-Key must be 1 to 255 visible ASCII characters")
        }
        return IdempotencyStore.Key(String(key))
    }

    /// What makes two requests the same: method, target, body format and body.
    static func fingerprint(_ request: Request, body: ByteBuffer) -> [UInt8] {
        var hash = SHA256()
        // The credentials too: a key replays only to whoever sent the first request's.
        for part in [request.method.rawValue, request.uri.description, request.headers[.contentType] ?? "",
                     request.headers[.authorization] ?? ""] {
            hash.update(data: Data(part.utf8))
            hash.update(data: [0])
        }
        hash.update(data: Data(body.readableBytesView))
        return Array(hash.finalize())
    }

    static func collect(_ response: Response) async throws -> IdempotencyStore.Answer {
        let sink = CollectedBody()
        try await response.body.write(CollectingWriter(sink: sink))
        return IdempotencyStore.Answer(status: response.status.code, contentType: response.headers[.contentType], body: sink.bytes)
    }
}

/// Where ``CollectingWriter`` leaves the bytes (the writer itself is consumed).
private final class CollectedBody: @unchecked Sendable {
    var bytes: [UInt8] = []
}

private struct CollectingWriter: ResponseBodyWriter {
    let sink: CollectedBody
    mutating func write(_ buffer: ByteBuffer) async throws { sink.bytes += buffer.readableBytesView }
    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
