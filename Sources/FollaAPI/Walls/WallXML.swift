import FollaCore
import FollaServices
import Foundation

/// A wall in XML and in Atom 1.0 (RFC 4287), written with `XMLWriter` (see there why).
/// The JSON wall is `WallDocument`.
enum WallXML {
    static func wall(_ w: WallSnapshot) -> String {
        var x = XMLWriter()
        x.open("wall", [("xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance"), ("id", w.id)])
        x.element("title", w.title)
        x.element("updated_at", w.updatedAt.iso8601())
        x.element("people", "\(w.people)")
        x.element("places", "\(w.places)")
        GroupsXML.stats(w.stats.map(StatsDTO.init), into: &x)
        x.open("busiest")
        for s in w.busiest {
            x.empty("spot", (s.placeID.map { [("place_id", "\($0)")] } ?? []) + [("people", "\(s.people)"), ("coarsened", "\(s.coarsened)"),
                             ("lat", "\(GroupDTO.round(s.position.latitude, 1e7))"), ("lon", "\(GroupDTO.round(s.position.longitude, 1e7))")])
        }
        x.close("busiest")
        x.open("messages")
        for m in w.messages {
            x.open("message", [("id", "\(m.id)")] + (m.placeID.map { [("place_id", "\($0)")] } ?? []))
            x.element("text", m.text)
            x.element("created_at", m.createdAt.iso8601())
            x.close("message")
        }
        x.close("messages")
        x.close("wall")
        return x.text
    }

    /// Atom 1.0: one entry per message; `self` is the feed's own URL.
    static func atom(_ w: WallSnapshot, selfPath: String) -> String {
        var x = XMLWriter()
        x.open("feed", [("xmlns", "http://www.w3.org/2005/Atom")])
        x.element("id", "urn:folla:wall:\(w.id)")
        x.element("title", w.title)
        x.element("subtitle", "\(w.people) people in \(w.places) places")
        x.element("updated", w.updatedAt.iso8601())
        x.open("author")
        x.element("name", "Folla")
        x.close("author")
        x.empty("link", [("rel", "self"), ("type", "application/atom+xml"), ("href", selfPath)])
        for m in w.messages {
            x.open("entry")
            x.element("id", "urn:folla:message:\(m.id)")
            x.element("title", String(m.text.prefix(60)))
            x.element("updated", m.createdAt.iso8601())
            x.element("content", m.text, [("type", "text")])
            x.close("entry")
        }
        x.close("feed")
        return x.text
    }
}
