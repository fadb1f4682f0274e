import FollaCore

/// PostgreSQL's `query_to_xml(query, nulls => false, tableforest => false, targetns => '')`
/// layout, byte for byte: a `<table>` with a blank line around each `<row>`, two-space
/// indented columns, and NULL columns left out.
enum LegacyXML {
    /// The layout written as bytes, one piece at a time: string interpolation per column
    /// (and an array of columns per row) was a fifth of sendData.php's server CPU.
    struct Table {
        private var bytes: [UInt8] = []

        init(rows: Int) {
            bytes.reserveCapacity(64 + rows * 200)
            bytes.append(contentsOf: "<table xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n\n".utf8)
        }

        /// One `<row>`, its columns written by `body`.
        mutating func row(_ body: (inout Table) -> Void) {
            bytes.append(contentsOf: "<row>\n".utf8)
            body(&self)
            bytes.append(contentsOf: "</row>\n\n".utf8)
        }

        /// A column; a NULL one (nil) is left out.
        mutating func column(_ name: String, _ value: String?) {
            guard let value else { return }
            bytes.append(contentsOf: "  <".utf8)
            bytes.append(contentsOf: name.utf8)
            bytes.append(UInt8(ascii: ">"))
            bytes.append(contentsOf: XMLWriter.escape(value).utf8)
            bytes.append(contentsOf: "</".utf8)
            bytes.append(contentsOf: name.utf8)
            bytes.append(contentsOf: ">\n".utf8)
        }

        /// The document, closed.
        var text: String {
            var closed = self
            closed.bytes.append(contentsOf: "</table>\n".utf8)
            return String(decoding: closed.bytes, as: UTF8.self)
        }
    }

    /// The original sendData.php answer. Under k-anonymity a small group's position is the
    /// coarsened one and its age/sex columns are NULL (so absent), as in the JSON API.
    static func places(_ groups: [Group]) -> String {
        var out = Table(rows: groups.count)
        for g in groups {
            out.row { r in
                // A cell of small groups has no place id: 0, which getMessage.php answers empty.
                r.column("id", String(g.id ?? 0))
                r.column("longitude", g.position.longitude.description)
                r.column("latitude", g.position.latitude.description)
                r.column("num_people", String(g.people))
                r.column("agesum", g.stats.map { s in String(Int(((s.averageAge ?? 0) * Double(s.reported)).rounded())) })
                r.column("male_number", g.stats.map { String($0.male) })
                r.column("female_number", g.stats.map { String($0.female) })
            }
        }
        return out.text
    }

    static func messages(_ messages: [Message]) -> String {
        var out = Table(rows: messages.count)
        for m in messages {
            out.row { r in
                r.column("id", String(m.id))
                r.column("text", m.text)
            }
        }
        return out.text
    }
}
