import FollaCore
import Hummingbird

/// Holds the answers of the routes behind it to the privacy policy's timing floor
/// (``AnswerFloor``): check-ins, check-outs, places read by id, reports and walls, whose work
/// takes longer or shorter with the people around or with what happened elsewhere (founding a
/// place against joining one; a small place's row, or a hidden message's place, read and
/// refused against an unknown id; a disc's margin reaching an anchor; a wall read afresh
/// because a message changed somewhere, against one from the cache).
///
/// It stands outside the database gate: held inside it, a check-in already committed could
/// be answered 503 by an outage noticed during the hold (a 503 is no acknowledgement, but a
/// retry without an `Idempotency-Key` would post its message twice). Here the gate has
/// decided before the hold begins, and the hold keeps whatever it decided.
struct AnswerFloorMiddleware<Context: RequestContext>: RouterMiddleware {
    let floor: AnswerFloor

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await floor.hold { try await next(request, context) }
    }
}
