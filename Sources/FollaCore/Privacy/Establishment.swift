/// When a device starts to count: seen on at least `pings` accepted pings over at least
/// `after` seconds. Invented ids cost that much time each, and new ids are budgeted per
/// client network (`ClientBudgets`), so fakes cannot make k cheap.
public struct Establishment: Sendable, Equatable {
    public var after: Double
    public var pings: Int

    public init(after: Double, pings: Int) {
        self.after = max(0, after)
        self.pings = max(1, pings)
    }

    /// Five minutes and three pings.
    public static let standard = Establishment(after: 300, pings: 3)
    /// Everyone counts from the first ping (k = 1).
    public static let immediate = Establishment(after: 0, pings: 1)
}
