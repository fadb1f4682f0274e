import Foundation

/// The one visibility policy: every public answer (groups, places, walls, messages, the
/// check-in answer, the legacy endpoints, every format) is built from what this type
/// decides, and from nothing else.
///
/// The attacker it is built against: one client (one address or a handful), no admin token,
/// any number of invented device ids, thousands of requests an hour, every public endpoint.
/// What it protects: where a person in a group smaller than `k` stands (no finer than the
/// ~100 m cell), anyone's age and sex, the link between a message and its device, the link
/// between two positions of one person. See the README's privacy section for the figures.
///
/// `k = 1` is the original system's behaviour (exact anchors, exact stats, everyone counted
/// at once, a check-in answer that names the place): unsafe, for compatibility only.
public struct PrivacyPolicy: Sendable, Equatable {
    /// Groups with fewer established people than this are shown only as counts per cell.
    public var k: Int
    /// The cell of small groups, metres (north–south; east–west follows the latitude).
    public var gridMetres: Double
    /// Published positions of groups of `k` or more snap to a grid this fine, so they are
    /// never one person's exact position.
    public var fineGridMetres: Double
    /// Who counts: devices seen for long enough.
    public var establishment: Establishment
    /// Keys the noise of published stats (with the contributors' own mix); from the server secret.
    public var noiseKey: UInt64
    /// Laplace scale of the noise on the men and women counts (one person changes one by 1).
    public var sexNoiseScale: Double = 1
    /// Laplace scale of the noise on the sum of ages, years.
    public var ageNoiseScale: Double = 25
    /// The least time an answer that depends on people it does not show takes (a check-in, a
    /// check-out, a place asked for by id, a report, a wall and each pass of its event stream:
    /// ``AnswerFloor``), so that its timing says nothing of them; see ``timingFloor``.
    public var answerFloor = AnswerFloor(.milliseconds(20))

    public init(k: Int = 3, gridMetres: Double = 100, fineGridMetres: Double = 10,
                establishment: Establishment = .standard, noiseKey: UInt64 = 0) {
        self.k = max(1, k)
        self.gridMetres = gridMetres
        self.fineGridMetres = fineGridMetres
        self.establishment = self.k == 1 ? .immediate : establishment
        self.noiseKey = noiseKey
    }

    /// The original system's behaviour: nothing withheld. Unsafe.
    public var isOriginal: Bool { k == 1 }

    /// The floor those answers are held to: none at k = 1, which shows everything outright.
    public var timingFloor: AnswerFloor { isOriginal ? AnswerFloor(.zero) : answerFloor }

    /// Whether a group of `people` established people is shown only as a count in its cell.
    public func isSmall(people: Int) -> Bool { people < k }

    /// The centre of the ~100 m cell holding `c`: where small groups are shown.
    public func coarsen(_ c: Coordinate) -> Coordinate { Self.snap(c, metres: gridMetres) }

    /// Where a group of `k` or more is shown: its anchor on the fine grid (exact at k = 1).
    public func refine(_ c: Coordinate) -> Coordinate { isOriginal ? c : Self.snap(c, metres: fineGridMetres) }

    /// The centre of the grid cell of side `metres` holding `c` (``GridCell``). The snapping
    /// depends on nothing but the point itself: every call gives the same cell, so averaging
    /// answers converges on the cell, never on the people.
    public static func snap(_ c: Coordinate, metres: Double) -> Coordinate {
        GridCell(holding: c, metres: metres).centre
    }

    /// Times a reader sees (activity, messages) go to the minute: finer times would join
    /// answers to pings.
    public func coarsen(_ date: Date) -> Date {
        isOriginal ? date : date.floored(toMultipleOf: 60)
    }

    /// Whether a message shows only from the end of its stored minute (`SQL/0026`, held
    /// until a sweep after the minute turns) rather than at once: every k but the original's.
    /// Shown at once, its appearance timed its post to the second, finer than its minute.
    public var holdsMessages: Bool { !isOriginal }

    /// How far beyond an area the store must look for anchors: a published position can lie
    /// up to half a cell diagonal from its anchor (nothing at k = 1).
    public var selectionMargin: Double { isOriginal ? 0 : gridMetres }
}
