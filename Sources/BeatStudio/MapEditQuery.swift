// SPDX-License-Identifier: GPL-3.0-or-later

/// Reads a ``MapEdit`` from the query of `POST /api/edit`:
/// `op=nudge&ms=…`, `op=metric&ratio=…`, `op=shiftBeats&fraction=…`, `op=meter&beatsPerBar=…[&at=…]`,
/// `op=barPhase&beats=…[&at=…]`, `op=tempo&bpm=…&anchor=…` (times in seconds).
enum MapEditQuery {
    static func parse(_ query: (String) -> String?) throws(MapEditError) -> MapEdit {
        func number(_ key: String) throws(MapEditError) -> Double {
            guard let text = query(key), let value = Double(text), value.isFinite else {
                throw .invalid("the edit needs a number \(key)")
            }
            return value
        }
        func integer(_ key: String) throws(MapEditError) -> Int {
            guard let text = query(key), let value = Int(text) else {
                throw .invalid("the edit needs a whole number \(key)")
            }
            return value
        }
        let at = try query("at") == nil ? nil : number("at")
        switch query("op") {
        case "nudge": return .nudge(seconds: try number("ms") / 1000)
        case "metric":
            guard let ratio = query("ratio") else { throw .invalid("the edit needs a ratio") }
            return .metricLevel(ratio: ratio)
        case "shiftBeats": return .shiftBeats(fraction: try number("fraction"))
        case "meter": return .meter(beatsPerBar: try integer("beatsPerBar"), at: at)
        case "barPhase": return .barPhase(beats: try integer("beats"), at: at)
        case "tempo": return .tempo(bpm: try number("bpm"), anchor: try number("anchor"))
        case let other: throw .invalid("unknown edit \(other ?? "(none)")")
        }
    }
}
