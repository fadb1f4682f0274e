import FollaCore

/// PostgreSQL's `query_to_xml(query, nulls => false, tableforest => false, targetns => '')`
/// layout, byte for byte: a `<table>` with a blank line around each `<row>`, two-space
/// indented columns, and NULL columns left out.
enum LegacyXML {
    static func table(_ rows: [[(String, String?)]]) -> String {
        var out = "<table xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n\n"
        for row in rows {
            out += "<row>\n"
            for (name, value) in row {
                guard let value else { continue }
                out += "  <\(name)>\(XMLWriter.escape(value))</\(name)>\n"
            }
            out += "</row>\n\n"
        }
        return out + "</table>\n"
    }

    /// The original sendData.php answer. Under k-anonymity a small group's position is the
    /// coarsened one and its age/sex columns are NULL (so absent), as in the JSON API.
    static func places(_ groups: [Group]) -> String {
        table(groups.map { g in
            // A cell of small groups has no place id: 0, which getMessage.php answers empty.
            [("id", "\(g.id ?? 0)"), ("longitude", "\(g.position.longitude)"), ("latitude", "\(g.position.latitude)"),
             ("num_people", "\(g.people)"), ("agesum", g.stats.map { s in "\(Int(((s.averageAge ?? 0) * Double(s.reported)).rounded()))" }),
             ("male_number", g.stats.map { "\($0.male)" }), ("female_number", g.stats.map { "\($0.female)" })]
        })
    }

    static func messages(_ messages: [Message]) -> String {
        table(messages.map { [("id", "\($0.id)"), ("text", $0.text)] })
    }
}
