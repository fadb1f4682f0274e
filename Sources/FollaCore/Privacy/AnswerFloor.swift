/// The least time an answer takes, from the start of its work to its answer: check-ins,
/// check-outs, places asked for by id, reports, walls and each pass of a wall's event stream
/// (`PrivacyPolicy.timingFloor`, held by the API's `AnswerFloorMiddleware` and `WallStream`).
///
/// What a check-in does depends on who else is near: joining someone's place, founding a
/// new one, staying, leaving a place that empties or one that keeps others. Each costs the
/// database a different time (founding ~0.2–0.3 ms more than joining), and an answer that
/// leaves as soon as its work is done carries that difference. An outside attack with one
/// fresh device id timed 8 000 pings over a grid in 25 s and found a lone person's place to
/// 5 m through it, and a device that counted nowhere yet as well, while every answer's body
/// was the same. Holding every answer until a fixed time after its start makes the timing
/// the floor's, whatever happened, as long as the work fits in it (on this box a check-in's
/// work takes 2–5 ms when idle; under load the wait for the batch varies by far more than
/// the difference).
public struct AnswerFloor: Sendable, Equatable {
    /// How long every answer takes at least; zero holds nothing.
    public var duration: Duration
    /// What times the wait (the server's event loops; `Task.sleep` by default).
    public var timer: any DeadlineTimer

    /// - Parameters:
    ///   - duration: how long every answer takes at least (a negative one is zero).
    ///   - timer: what times the wait.
    public init(_ duration: Duration, timer: any DeadlineTimer = TaskSleepTimer()) {
        self.duration = max(.zero, duration)
        self.timer = timer
    }

    /// Floors are equal when they hold for as long, however they are timed.
    public static func == (a: AnswerFloor, b: AnswerFloor) -> Bool { a.duration == b.duration }

    /// `body`'s result (or its error), not before `duration` after this call began. A
    /// cancelled task is not held.
    public func hold<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        guard duration > .zero else { return try await body() }
        let end = ContinuousClock.now + duration
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        try? await timer.sleep(until: end)
        return try result.get()
    }

    /// Returns no sooner than `duration` after `start` (at once when that has passed, or the
    /// task is cancelled): for work that must not show its own length, such as recording an
    /// idempotent answer, which a retry could otherwise see appear.
    public func wait(since start: ContinuousClock.Instant) async {
        guard duration > .zero else { return }
        try? await timer.sleep(until: start + duration)
    }
}
