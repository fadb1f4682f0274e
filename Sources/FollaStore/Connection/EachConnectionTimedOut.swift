/// ``PostgresClient/onEachConnection(count:within:_:)`` did not reach every connection in
/// time: the pool could not open them all, or something else held some.
public struct EachConnectionTimedOut: Error, CustomStringConvertible {
    /// The connections asked for.
    public let count: Int
    /// Those whose body had run when the time was up.
    public let reached: Int
    /// The time limit.
    public let within: Duration

    public var description: String { "reached \(reached) of \(count) connections within \(within)" }
}
