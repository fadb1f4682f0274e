import struct Foundation.Date

/// A place, or the small places of one cell together, as readers may see it: the output of
/// `PrivacyPolicy.publish`, and the only input of every public read (groups, walls, maps).
public struct PublishedPlace: Sendable, Equatable {
    /// The place id; nil for the cell entry of small groups, which has no identity that
    /// lasts across reads (so nobody can be followed from spot to spot).
    public var id: Int64?
    /// The cell centre for small groups; the anchor on the fine grid otherwise.
    public var position: Coordinate
    /// True for a cell entry of groups smaller than k.
    public var isCell: Bool
    /// Established people.
    public var people: Int
    /// To the minute.
    public var lastActivity: Date
    public var messageCount: Int
    /// The places whose messages this entry shows: its own; none for a cell, which shows
    /// no messages (see `PrivacyPolicy.publish`).
    public var sources: [Int64]
    /// The raw breakdown and contributor mix, readable only through `PrivacyPolicy.stats(of:)`.
    let raw: PlaceStats?
    let mix: UInt64

    /// The id an answer orders by: nil for a cell (ordered last among equals).
    public var idIfPlace: Int64? { isCell ? nil : id }
}

/// The age and sex breakdown as published: only from at least k established reporters, and
/// (unless k = 1) with noise keyed to the exact set of reporters (see `PrivacyPolicy.stats(of:)`).
public struct PublishedStats: Sendable, Equatable {
    public var reported: Int
    /// Whole years (0.1 at k = 1); nil when nobody reported.
    public var averageAge: Double?
    public var male: Int
    public var female: Int

    public init(reported: Int, averageAge: Double?, male: Int, female: Int) {
        self.reported = reported
        self.averageAge = averageAge
        self.male = male
        self.female = female
    }
}
