// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("SVG plot")
struct BeatPlotTests {
    /// A flat series over `from`…`to` with `columns` columns and a click-like bump every 0.5 s.
    static func series(from: Double = 0, to: Double = 31, duration: Double = 31, columns: Int = 1524) -> PlotSeries {
        let step = (to - from) / Double(columns)
        let onset = (0..<columns).map { index -> Float in
            let time = from + Double(index) * step
            return time.truncatingRemainder(dividingBy: 0.5) < step ? 1 : 0.05
        }
        return PlotSeries(
            from: from, to: to, duration: duration, sampleRate: 44_100,
            minima: [Float](repeating: -0.5, count: columns),
            maxima: [Float](repeating: 0.5, count: columns), onsetStrength: onset, onsetMethod: "specflux")
    }

    func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    /// Whether `svg` is well-formed XML.
    func wellFormed(_ svg: String) -> Bool { XMLParser(data: Data(svg.utf8)).parse() }

    @Test("downbeats every bar from the map's beats per bar, numbered; the other beats thin")
    func barsFromTheMap() {
        let map = SampleMaps.steady  // 60 beats, 4 per bar
        let svg = BeatPlot(map: map, series: Self.series(), title: "steady").svg
        #expect(wellFormed(svg))
        #expect(count("stroke=\"#c62828\" stroke-width=\"2\"", in: svg) == 15)
        #expect(count("stroke=\"#1d2733\" stroke-width=\"1\" stroke-opacity=\"0.45\"", in: svg) == 45)
        #expect(svg.contains(">15</text>"))
        #expect(svg.contains("120 BPM · 4/bar"))
        #expect(!svg.contains("bars of 4 assumed"))
    }

    @Test("a map without bar lengths gets bars of four from the first beat, and says so")
    func assumedBars() {
        let map = BeatMap(audio: AudioReference(duration: 31), beats: SampleMaps.steady.beats)
        let svg = BeatPlot(map: map, series: Self.series(), title: "t").svg
        #expect(count("stroke=\"#c62828\" stroke-width=\"2\"", in: svg) == 15)
        #expect(svg.contains("bars of 4 assumed from the first beat"))
        #expect(svg.contains("(inferred, no tempo map)"))
    }

    @Test("tempo segments are labelled and the change is marked")
    func tempoLabels() {
        let map = SampleMaps.tempoChange
        let svg = BeatPlot(
            map: map, series: Self.series(to: map.audio.duration, duration: map.audio.duration), title: "t"
        ).svg
        #expect(svg.contains("100 BPM · 3/bar"))
        #expect(svg.contains("150 BPM · 4/bar"))
        // The change and the legend.
        #expect(count("stroke=\"#7a4fb0\" stroke-width=\"2\" stroke-dasharray", in: svg) == 2)
    }

    @Test("a tempo followed beat by beat is one stretch drawn as a curve, with one change at each end")
    func followedTempo() {
        let map = TempoStretchTests.followedMap()
        let duration = map.audio.duration
        let svg = BeatPlot(map: map, series: Self.series(to: duration, duration: duration), title: "t").svg
        #expect(wellFormed(svg))
        #expect(svg.contains("120.5–126 BPM over 12 segments"))
        #expect(count("stroke=\"#7a4fb0\" stroke-width=\"1.5\"", in: svg) == 1)
        // Two changes (into and out of the followed run) and the legend's sample.
        #expect(count("stroke=\"#7a4fb0\" stroke-width=\"2\" stroke-dasharray", in: svg) == 3)
        #expect(!svg.contains("121 BPM"))
    }

    @Test("a segment too narrow for its label gets a shorter one, or none")
    func narrowLabels() {
        let map = TempoStretchTests.followedMap(followed: 1)
        let duration = map.audio.duration
        var layout = BeatPlot.Layout(width: 400)
        layout.zoomControl = nil
        let svg = BeatPlot(
            map: map, series: Self.series(to: duration, duration: duration, columns: 324), title: "t", layout: layout
        ).svg
        #expect(wellFormed(svg))
        // 324 px for 10.5 s: the first segment (4 s, 124 px) is too narrow for "120 BPM · 4/bar" and gets
        // "120 BPM"; the one-beat segment (15 px) gets no label; the last (6 s) gets its own.
        #expect(svg.contains("paint-order=\"stroke\">120 BPM</text>"))
        #expect(!svg.contains("4/bar"))
        #expect(count("paint-order=\"stroke\">", in: svg) == 2)
        #expect(svg.contains("paint-order=\"stroke\">120.5 BPM</text>"))
        // Still a change into and out of it, and the legend's sample.
        #expect(count("stroke=\"#7a4fb0\" stroke-width=\"2\" stroke-dasharray", in: svg) == 3)
    }

    @Test("the time axis is in m:ss, and a zoom draws only the beats in range")
    func axisAndZoom() {
        let map = SampleMaps.steady
        let whole = BeatPlot(map: map, series: Self.series(), title: "t").svg
        for label in [">0:00<", ">0:10<", ">0:20<", ">0:30<"] { #expect(whole.contains(label)) }
        let zoomed = BeatPlot(map: map, series: Self.series(from: 10, to: 12, columns: 1524), title: "t").svg
        let drawn =
            count("stroke=\"#c62828\" stroke-width=\"2\"", in: zoomed)
            + count("stroke-opacity=\"0.45\"", in: zoomed)
        #expect(drawn == map.beats.count { $0 >= 10 && $0 <= 12 })
        #expect(zoomed.contains(">0:10.4<"))
        #expect(zoomed.contains(">0:11.0<"))
    }

    @Test("beats too dense for the width are left out with a hint")
    func dense() {
        let beats = (0..<7200).map { Double($0) * 0.5 }
        let map = BeatMap(
            audio: AudioReference(duration: 3600), tempo: [TempoSegment(time: 0, bpm: 120, beatsPerBar: 4)],
            beats: beats)
        var layout = BeatPlot.Layout()
        layout.zoomControl = "the zoom keys"
        let svg = BeatPlot(map: map, series: Self.series(to: 3600, duration: 3600), title: "t", layout: layout).svg
        #expect(count("stroke-opacity=\"0.45\"", in: svg) == 0)
        #expect(svg.contains("beats too dense to draw: use the zoom keys to zoom in"))
        let unnamed = BeatPlot(map: map, series: Self.series(to: 3600, duration: 3600), title: "t").svg
        #expect(unnamed.contains("beats too dense to draw</text>"))
        #expect(svg.utf8.count < 400_000)
    }

    @Test("titles are escaped and the output is deterministic")
    func escapingAndDeterminism() {
        let first = BeatPlot(map: SampleMaps.tempoChange, series: Self.series(), title: "a<b & \"c\"").svg
        let second = BeatPlot(map: SampleMaps.tempoChange, series: Self.series(), title: "a<b & \"c\"").svg
        #expect(first == second)
        #expect(first.contains("a&lt;b &amp; &quot;c&quot;"))
        #expect(wellFormed(first))
        // A control character XML cannot carry, even escaped, becomes U+FFFD.
        let control = BeatPlot(map: SampleMaps.tempoChange, series: Self.series(), title: "x\u{01}y").svg
        #expect(control.contains("x\u{FFFD}y"))
        #expect(wellFormed(control))
    }

    @Test("m:ss times parse")
    func clockParsing() {
        #expect(BeatMapSummary.parseClock("90") == 90)
        #expect(BeatMapSummary.parseClock("1:30.5") == 90.5)
        #expect(BeatMapSummary.parseClock("0:05") == 5)
        #expect(BeatMapSummary.parseClock("1:75") == nil)
        #expect(BeatMapSummary.parseClock("-3") == nil)
        #expect(BeatMapSummary.parseClock("abc") == nil)
    }
}
