import FollaCore
import FollaServices
import FollaStore
import Foundation
import Hummingbird
import Metrics
import ServiceLifecycle

/// `GET /v1/venues/{slug}/wall/events`: the wall as Server-Sent Events.
///
/// Events: `snapshot` (the whole wall, whenever it changed: counts, busiest spots, the
/// visible messages — so hidden messages vanish from screens too), `message` (each new
/// message, with its id as the SSE id, so `Last-Event-ID` resumes without gaps), and a
/// `: ping` comment as heartbeat. A stream looks on a fixed grid of `interval`s from its
/// start, and at once when any instance announces a message change (`MessageFeed`); such a
/// wake-up pushes only new visible messages of its venue, everything else waits for the grid.
/// A pass on the grid writes at its tick plus the answer floor, whether its read was cached
/// or fresh. So when a stream writes tells nothing of when messages changed elsewhere: a heartbeat
/// counted in passes of the loop (every wake-up one) once shifted with every message posted
/// anywhere, hidden ones included, and told an outside probe when each was posted to ~10 ms
/// (session 22). Reads go through the micro-cache: a thousand open
/// streams on one venue still cost one query per cache period. A stream ends after
/// `maxDuration` (the browser reconnects with Last-Event-ID) or at server shutdown.
struct WallStream {
    let deps: AppDependencies
    var interval: Duration = .seconds(1)
    /// Grid ticks between heartbeats (when nothing else was sent).
    var heartbeatEvery = 15
    var maxDuration: Duration = .seconds(300)

    static let mediaType = "text/event-stream; charset=utf-8"

    /// - Parameters:
    ///   - slug: the venue's.
    ///   - network: the client's network, whose share of open streams the stream takes
    ///     (`StreamSlots`).
    func response(slug: String, request: Request, network: String) async throws -> Response {
        try ResponseFormat.requireAccepted(request, Self.mediaType)
        guard try await deps.walls.data(for: .venue(slug)) != nil else { throw Problem.notFound("no venue \(slug)") }
        let slot: StreamSlots.Slot
        do {
            slot = try deps.streams.take(for: network)
        } catch {
            throw Problem.streamsRefused(error, slots: deps.streams)
        }
        let resume = request.headers.first { $0.name.canonicalName == "last-event-id" }
            .flatMap { Int64($0.value.trimmingCharacters(in: .whitespaces)) }
        let headers: HTTPFields = [.contentType: Self.mediaType, .cacheControl: "no-store"]
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            // The slot is held while the body lives: given back when the stream ends, or
            // when the body is dropped unwritten (HEAD).
            defer { withExtendedLifetime(slot) {} }
            try await run(slug: slug, resume: resume, writer: &writer)
        })
    }

    private func run(slug: String, resume: Int64?, writer: inout any ResponseBodyWriter) async throws {
        let subscribers = Meter(label: "folla_wall_subscribers")
        subscribers.increment()
        defer { subscribers.decrement() }
        let start = ContinuousClock.now
        // The ids of the wall's messages this screen has: a message the wall shows and the
        // screen has not is pushed, whenever it shows (a new one, or an older one whose place
        // has just been published). Nil until the first pass: a fresh screen gets the wall's
        // messages in its snapshot; one resuming (`resume`, a shown id: ids say nothing of
        // order, `SQL/0023`) has those older than its minute (`Message.isDue(after:)`).
        var had: Set<Int64>?
        var resuming = resume
        var lastSnapshot: String?
        // The grid tick this pass serves (start + tick · interval), when it is not a wake-up.
        var tick = 0
        var onTick = true
        try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
        while !Task.isCancelled && !Task.isShuttingDownGracefully && ContinuousClock.now - start < maxDuration {
            // Taken before the read: a change announced while it runs wakes the next wait at once.
            let rings = deps.wallChanges.rings
            // A pass on the grid writes at its tick plus the answer floor, whether its read
            // came from the cache or the database (the cache is dropped by message changes
            // elsewhere: the time of the write would tell when, to the millisecond).
            let read = onTick ? try await deps.privacy.timingFloor.hold { try await deps.walls.data(for: .venue(slug)) }
                              : try await deps.walls.data(for: .venue(slug))
            guard let data = read else {
                try await writer.write(ByteBuffer(string: "event: gone\ndata: {}\n\n"))
                break
            }
            let wall = WallSnapshot(id: "venue:\(slug)", title: data.name ?? slug, data: data, privacy: deps.privacy)
            var out = ""
            if let id = resuming {
                if let cursor = wall.message(id) {
                    had = Set(wall.messages.filter { !$0.isDue(after: cursor) }.map(\.id))
                }
                resuming = nil
            }
            if let known = had {
                for m in wall.messages.reversed() where !known.contains(m.id) {
                    let json = try AnswerEncoder().text(MessageDTO(m))
                    out += "id: \(m.id)\nevent: message\ndata: \(json)\n\n"
                }
            } else if let newest = wall.messages.first {
                // A fresh screen gets the recent messages inside the snapshot.
                out += "id: \(newest.id)\n"
            }
            had = Set(wall.messages.map(\.id))
            if onTick {
                let snapshot = try AnswerEncoder().text(WallDocument(wall))
                if snapshot != lastSnapshot {
                    out += "event: snapshot\ndata: \(snapshot)\n\n"
                    lastSnapshot = snapshot
                } else if tick % heartbeatEvery == 0 {
                    out += ": ping\n\n"
                }
                // The next grid point after now (a slow pass skips the ticks it overran).
                tick = max(tick + 1, Int((ContinuousClock.now - start) / interval) + 1)
            }
            if !out.isEmpty { try await writer.write(ByteBuffer(string: out)) }
            // The next tick, or sooner when messages changed on any instance (`MessageFeed`).
            let due = start + interval * tick
            try? await cancelWhenGracefulShutdown { await deps.wallChanges.wait(after: rings, upTo: due - .now) }
            onTick = ContinuousClock.now >= due
        }
        try await writer.finish(nil)
    }
}
