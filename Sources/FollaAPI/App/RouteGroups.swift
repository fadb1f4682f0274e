import FollaCore
import Hummingbird

/// The groups a route file registers its database routes on, by what stands in front of
/// them. Every group but ``fromMemory`` has the database gate and idempotency (a 503 at once
/// during an outage, `Idempotency-Key` on writes); on top of that a route is query-free when its contract names
/// no query field (``QueryFreeMiddleware``), and held when its answer's timing could tell
/// who is near (``AnswerFloorMiddleware``). Each route picks the group that says what it is.
struct RouteGroups {
    /// Takes query fields, answers when done.
    let open: RouterGroup<FollaRequestContext>
    /// Takes query fields, answers when done; no gate and no idempotency in front, for
    /// reads answered mostly from memory whose service races the database itself when it
    /// needs it (`GroupService.groups(for:)`, `MapService.clusters(in:)`).
    let fromMemory: RouterGroup<FollaRequestContext>
    /// Refuses any query field.
    let queryFree: RouterGroup<FollaRequestContext>
    /// Takes query fields, held to the timing floor.
    let held: RouterGroup<FollaRequestContext>
    /// Refuses any query field, held to the timing floor.
    let heldQueryFree: RouterGroup<FollaRequestContext>

    /// - Parameters:
    ///   - base: the group they grow from (the router's, or the admin token's).
    ///   - path: their common path prefix ("" for none).
    ///   - stored: adds the database gate and idempotency, innermost (with the floor its
    ///     routes are held to, which idempotency records their answers after).
    ///   - floor: the privacy policy's timing floor.
    init(base: RouterGroup<FollaRequestContext>, path: RouterPath, floor: AnswerFloor,
         stored: (RouterGroup<FollaRequestContext>, AnswerFloor) -> RouterGroup<FollaRequestContext>) {
        // Outermost first: the hold sees the gate's decision, the query check comes before
        // the gate and the idempotency store.
        let none = AnswerFloor(.zero)
        open = stored(base.group(), none).group(path)
        fromMemory = base.group().group(path)
        queryFree = stored(base.queryFree(), none).group(path)
        held = stored(base.held(by: floor), floor).group(path)
        heldQueryFree = stored(base.held(by: floor).queryFree(), floor).group(path)
    }
}

extension RouterGroup where Context == FollaRequestContext {
    /// A subgroup whose routes refuse any query field (``QueryFreeMiddleware``).
    func queryFree() -> RouterGroup<Context> {
        group().add(middleware: QueryFreeMiddleware())
    }

    /// A subgroup whose answers are held to `floor` (``AnswerFloorMiddleware``).
    func held(by floor: AnswerFloor) -> RouterGroup<Context> {
        group().add(middleware: AnswerFloorMiddleware(floor: floor))
    }
}
