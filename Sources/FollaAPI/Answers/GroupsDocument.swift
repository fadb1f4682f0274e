import FollaCore
import Foundation

/// The groups answer (`GET /v1/groups`), rounded for the wire: the one set of values the
/// JSON, XML and GeoJSON answers are made from, so every format carries the same groups.
package struct GroupsDocument: Encodable, Sendable {
    package var centre: PointDTO
    package var radiusM: Double
    package var count: Int
    package var groups: [GroupDTO]

    package init(query: GroupQuery, groups: [Group]) {
        centre = PointDTO(query.centre)
        radiusM = query.radius
        count = groups.count
        self.groups = groups.map(GroupDTO.init)
    }

    enum CodingKeys: String, CodingKey {
        case centre, count, groups
        case radiusM = "radius_m"
    }
}
