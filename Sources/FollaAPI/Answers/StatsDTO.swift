import FollaCore

/// The age/sex breakdown as published by the privacy policy. Where the policy withholds
/// it, the answer carries `"stats": null` (the parent writes the null); an unknown average
/// age is `"avg_age": null`, never left out.
package struct StatsDTO: Encodable, Sendable {
    package var reported: Int
    package var avgAge: Double?
    package var male: Int
    package var female: Int

    package init(_ s: PublishedStats) {
        reported = s.reported
        avgAge = s.averageAge
        male = s.male
        female = s.female
    }

    enum CodingKeys: String, CodingKey {
        case reported, male, female
        case avgAge = "avg_age"
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeOrNull(avgAge, forKey: .avgAge)
        try c.encode(female, forKey: .female)
        try c.encode(male, forKey: .male)
        try c.encode(reported, forKey: .reported)
    }
}
