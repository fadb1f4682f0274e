/// `StatsDTO` written with `JSONWriter` for the hot answers, or null when the privacy
/// policy withholds it.
enum StatsJSON {
    static func write(_ s: StatsDTO?, _ w: inout JSONWriter) {
        guard let s else { return w.null() }
        w.object { so in
            so.member("avg_age") { w in if let a = s.avgAge { w.number(a) } else { w.null() } }
            so.member("female") { $0.integer(s.female) }
            so.member("male") { $0.integer(s.male) }
            so.member("reported") { $0.integer(s.reported) }
        }
    }
}
