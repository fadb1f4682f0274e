import Crypto
import FollaCore
import Foundation
import Logging
import PostgresNIO

/// The answers of idempotent POSTs, in PostgreSQL so that every instance and a restart see
/// them. A key is reserved before the request runs (its own commit), completed with the
/// answer once the request has succeeded, and released when it failed, so that a retry
/// runs it again. A reservation left in progress (the server or the database died while
/// the request ran) is taken over by a retry after ``abandonedAfter`` seconds; until then
/// retries get 409. The write and the answer are two transactions, because holding a
/// connection across a whole request would let idempotent requests exhaust the pool that
/// their own reads need; so an answer the database could not record (it went away between
/// the write's commit and the answer's) is kept here, in ``UnrecordedAnswers``, replayed to
/// retries, and recorded once the database is back. Before (an outside probe, session 21),
/// that request was answered 503 though written, its retries got 409 for two minutes, and the
/// retry that took the key over wrote it again. It can still be written twice when this
/// process dies before it has recorded such an answer, or when the database stays away
/// longer than ``abandonedAfter`` (a kept answer is then given up, and a retry may take the
/// key over). While the database is known to be down, retries are refused by the database
/// gate before they get here: a kept answer is replayed to those that come after it is back
/// and before the answer is recorded.
public struct IdempotencyStore: Sendable {
    /// Seconds after which a reservation still in progress counts as abandoned.
    public static let abandonedAfter: TimeInterval = 120

    public let pool: DatabasePool
    let logger: Logger
    /// Shared by every copy of this store.
    let unrecorded = UnrecordedAnswers()

    public init(pool: DatabasePool, logger: Logger) {
        self.pool = pool
        self.logger = logger
    }

    /// A stored answer.
    public struct Answer: Sendable, Equatable {
        public var status: Int
        public var contentType: String?
        public var body: [UInt8]

        public init(status: Int, contentType: String?, body: [UInt8]) {
            self.status = status
            self.contentType = contentType
            self.body = body
        }
    }

    public enum Reservation: Sendable, Equatable {
        /// The key is ours: run the request, then ``complete(_:request:with:)`` or ``release(_:)``.
        case reserved
        /// The same request was answered before: send this again.
        case replay(Answer)
        /// The key was used for a different request.
        case mismatch
        /// The same key's first request has not finished.
        case inProgress
    }

    /// A client's key. Only its hash is stored; the stored answer is sealed (AES-GCM) with a
    /// second key derived from it, so a copy of the database cannot read answers (their
    /// times and message ids would link messages to devices), only whoever sends the key again.
    public struct Key: Sendable {
        let hash: [UInt8]
        private let sealingBytes: [UInt8]
        var sealing: SymmetricKey { SymmetricKey(data: sealingBytes) }

        public init(_ key: String) {
            hash = Array(SHA256.hash(data: Data("folla-idempotency\u{0}\(key)".utf8)))
            sealingBytes = Array(SHA256.hash(data: Data("folla-idempotency-answer\u{0}\(key)".utf8)))
        }
    }

    /// Reserves `key` for a request whose hash is `request`.
    public func reserve(_ key: Key, request: [UInt8], at now: Date) async throws -> Reservation {
        // Answered and written, not yet recorded: replayed from here, database or not.
        if let kept = unrecorded.answer(for: key.hash) {
            return kept.request == request ? .replay(kept.answer) : .mismatch
        }
        let k = ByteBuffer(bytes: key.hash), r = ByteBuffer(bytes: request)
        let stamp = now.floored(toMultipleOf: 60)  // stored to the minute, like every time
        let abandoned = now.addingTimeInterval(-Self.abandonedAfter)
        for _ in 0..<3 {
            let inserted = try await pool.client.committed("""
                INSERT INTO idempotency_key (key_hash, request_hash, created_at) VALUES (\(k), \(r), \(stamp))
                ON CONFLICT (key_hash) DO UPDATE SET created_at = EXCLUDED.created_at
                    WHERE idempotency_key.status IS NULL AND idempotency_key.request_hash = EXCLUDED.request_hash
                      AND idempotency_key.created_at < \(abandoned)
                RETURNING 1
                """, logger: logger)
            if !inserted.isEmpty { return .reserved }
            let rows = try await pool.client.rows(
                "SELECT request_hash, status, content_type, body FROM idempotency_key WHERE key_hash = \(k)", logger: logger)
            guard let row = rows.first else { continue }  // released or expired meanwhile: try again
            let cells = row.makeRandomAccess()
            let stored = try cells["request_hash"].decode(ByteBuffer.self)
            guard stored == r else { return .mismatch }
            guard let status = try cells["status"].decode(Int?.self) else { return .inProgress }
            let sealed = try cells["body"].decode(ByteBuffer?.self).map { Array($0.readableBytesView) } ?? []
            let body = try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: key.sealing)
            return .replay(Answer(status: status, contentType: try cells["content_type"].decode(String?.self),
                                  body: Array(body)))
        }
        return .inProgress
    }

    /// Records the answer of the request that reserved `key`: at once, or, when the database
    /// cannot take it now, from ``UnrecordedAnswers`` once it can (retries meanwhile get it
    /// from there). Never fails: the request's write is committed, and its answer stands.
    ///
    /// - Parameters:
    ///   - key: the request's key.
    ///   - request: its fingerprint (a retry with another request under the key is a 422).
    ///   - answer: what it was answered.
    public func complete(_ key: Key, request: [UInt8], with answer: Answer) async {
        do {
            try await record(key, answer)
        } catch {
            logger.warning("an idempotent answer could not be recorded; kept until the database takes it",
                           metadata: ["error": "\(error)"])
            if unrecorded.keep(UnrecordedAnswers.Entry(key: key, request: request, answer: answer)) { recordKeptAnswers() }
        }
    }

    /// Records every kept answer, once a second, until none is left (one such loop at a time).
    private func recordKeptAnswers() {
        let store = self
        Task.detached {
            while let kept = store.unrecorded.pending() {
                try? await Task.sleep(for: .seconds(1))
                for entry in kept where (try? await store.record(entry.key, entry.answer)) != nil {
                    store.unrecorded.forget(entry.key.hash)
                }
            }
        }
    }

    private func record(_ key: Key, _ answer: Answer) async throws {
        guard let sealed = try AES.GCM.seal(answer.body, using: key.sealing).combined else { return }
        _ = try await pool.client.committed("""
            UPDATE idempotency_key SET status = \(answer.status), content_type = \(answer.contentType),
                body = \(ByteBuffer(bytes: sealed))
            WHERE key_hash = \(ByteBuffer(bytes: key.hash)) AND status IS NULL
            """, logger: logger)
    }

    /// Gives `key` up: its request failed, and a retry should run it again.
    public func release(_ key: Key) async throws {
        _ = try await pool.client.committed(
            "DELETE FROM idempotency_key WHERE key_hash = \(ByteBuffer(bytes: key.hash)) AND status IS NULL", logger: logger)
    }

    /// Forgets keys older than `retention` seconds; returns how many.
    public func expire(at now: Date, retention: TimeInterval) async throws -> Int {
        try await pool.client.committed(
            "WITH gone AS (DELETE FROM idempotency_key WHERE created_at < \(now.addingTimeInterval(-retention)) RETURNING 1) SELECT count(*)::int FROM gone",
            logger: logger
        ).first?.decode(Int.self) ?? 0
    }
}
