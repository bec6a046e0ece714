// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// An SVG picture of a beat map over its audio: a tempo lane with the segments labelled (a tempo that
/// changes at nearly every beat drawn as one curve), the waveform
/// overview, the onset-strength curve, the beats as lines (bar downbeats emphasised and numbered) and a
/// time axis in m:ss. Pure drawing from a ``PlotSeries``; the same input gives the same bytes.
public struct BeatPlot: Sendable {
    /// Sizes of the picture in pixels.
    public struct Layout: Sendable, Equatable {
        /// Width of the whole picture.
        public var width: Int
        /// Left margin (lane labels).
        public var left = 56
        /// Right margin.
        public var right = 20
        /// Header height (title and facts).
        public var header = 52
        /// Height of the tempo lane.
        public var tempoLane = 26
        /// Height of the waveform lane.
        public var waveformLane = 210
        /// Height of the onset lane.
        public var onsetLane = 90
        /// Gap between lanes.
        public var gap = 6
        /// Height of the time axis and legend below the lanes.
        public var footer = 58
        /// How the reader of the picture zooms in (the caller's control for the plotted range, such as
        /// a command's options), named in the legend when beats are too dense to draw; `nil`: not named.
        public var zoomControl: String?

        /// A layout `width` pixels wide (at least 400).
        public init(width: Int = 1600) { self.width = max(400, width) }

        /// Width of the lanes: one waveform column per pixel.
        public var plotWidth: Int { width - left - right }
        /// Height of the whole picture.
        public var height: Int { header + tempoLane + gap + waveformLane + gap + onsetLane + footer }
    }

    /// The map drawn.
    public var map: BeatMap
    /// The audio series drawn (its range is the plot's range).
    public var series: PlotSeries
    /// Title text (e.g. the audio and map file names).
    public var title: String
    /// The layout.
    public var layout: Layout

    /// A plot of `map` over `series`.
    public init(map: BeatMap, series: PlotSeries, title: String, layout: Layout = Layout()) {
        self.map = map
        self.series = series
        self.title = title
        self.layout = layout
    }

    // MARK: Geometry

    private var pixelsPerSecond: Double { Double(layout.plotWidth) / max(series.to - series.from, 1e-9) }
    private func x(_ time: Double) -> Double { Double(layout.left) + (time - series.from) * pixelsPerSecond }
    private var tempoTop: Double { Double(layout.header) }
    private var waveTop: Double { tempoTop + Double(layout.tempoLane + layout.gap) }
    private var onsetTop: Double { waveTop + Double(layout.waveformLane + layout.gap) }
    private var lanesBottom: Double { onsetTop + Double(layout.onsetLane) }

    private static func f(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.1f", rounded)
    }

    /// Text safe inside SVG elements and attributes (the XML escaping the JUnit reporter uses).
    static func escape(_ text: String) -> String { XML.escape(text) }

    // MARK: Beats and bars

    /// For each beat: whether it starts a bar, and whether bar lengths come from the map.
    func downbeats() -> (flags: [Bool], fromMap: Bool) {
        let positions = BarPositions.positions(of: map)
        // The map's bars wherever it gives them (beats before its first segment with beatsPerBar are
        // not downbeats).
        if positions.contains(where: { $0 != nil }) {
            return (positions.map { $0 == 1 }, true)
        }
        // No bar length in the map: bars of four from the first beat, counting skipped beats in gaps.
        let finite = map.beats.map { $0.isFinite ? $0 : 0 }
        let numbers = BeatGridFit.number(finite, grid: nil)
        return (numbers.map { $0 % 4 == 0 }, false)
    }

    /// A stretch of the tempo lane: its span, its labels from the fullest to the shortest (the first
    /// that fits is drawn), and for a tempo that moves within it, its segments' (time, BPM) steps.
    struct LaneStretch {
        var from: Double
        var to: Double
        var labels: [String]
        var steps: [(time: Double, bpm: Double)]
    }

    private static func bpmText(_ value: Double) -> String { FormatSupport.decimal(value, digits: 2) }

    /// The tempo lane's stretches (``TempoStretch``): a steady segment labelled with its tempo, a run of
    /// segments too short to read one by one (beats followed through the music) labelled with its range
    /// and drawn as a curve.
    func laneStretches() -> [LaneStretch] {
        let stretches = TempoStretch.stretches(of: map, until: series.duration)
        if stretches.isEmpty {
            guard let inferred = TempoGrid.inferTempo(from: map.beats) else { return [] }
            let bpm = FormatSupport.decimal(inferred.bpm, digits: 1)
            return [
                LaneStretch(
                    from: 0, to: series.duration, labels: ["≈ \(bpm) BPM (inferred, no tempo map)", "≈ \(bpm) BPM"],
                    steps: [])
            ]
        }
        return stretches.map { stretch in
            let meter = stretch.meters.isEmpty ? "" : " · " + stretch.meters.map { "\($0)/bar" }.joined(separator: ", ")
            guard stretch.isMoving else {
                let bpm = stretch.segments.first?.bpm ?? 0
                let text = Self.bpmText(bpm)
                return LaneStretch(
                    from: stretch.from, to: stretch.to,
                    labels: ["\(text) BPM\(meter)", "\(text) BPM", String(Int(bpm.rounded()))], steps: [])
            }
            let low = stretch.lowestBPM
            let high = stretch.highestBPM
            let range = "\(Self.bpmText(low))–\(Self.bpmText(high)) BPM"
            return LaneStretch(
                from: stretch.from, to: stretch.to,
                labels: [
                    "\(range) over \(stretch.segments.count) segments\(meter)", range,
                    "\(Int(low.rounded()))–\(Int(high.rounded()))",
                ],
                steps: stretch.segments.map { ($0.time, $0.bpm) })
        }
    }

    /// Whether `text` fits in `pixels` at the tempo lane's font (13 px bold: at most 7.8 px a character).
    private static func fits(_ text: String, in pixels: Double) -> Bool { Double(text.count) * 7.8 + 10 <= pixels }

    // MARK: Drawing

    /// The SVG document.
    public var svg: String {
        let width = layout.width
        let height = layout.height
        let left = Double(layout.left)
        let right = Double(layout.left + layout.plotWidth)
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" \
            font-family="Helvetica, Arial, sans-serif">

            """
        out += "<rect width=\"\(width)\" height=\"\(height)\" fill=\"#ffffff\"/>\n"

        // Header.
        let visible = map.beats.filter { $0.isFinite && $0 >= series.from && $0 <= series.to }
        out +=
            "<text x=\"\(layout.left)\" y=\"22\" font-size=\"16\" font-weight=\"bold\" fill=\"#1d2733\">"
            + Self.escape(title) + "</text>\n"
        var facts = "\(map.beats.count) beats"
        if visible.count != map.beats.count { facts += " (\(visible.count) shown)" }
        facts += " · audio \(BeatMapSummary.clock(series.duration))"
        facts += " · showing \(BeatMapSummary.clock(series.from))–\(BeatMapSummary.clock(series.to))"
        let peak = max(series.maxima.map { abs($0) }.max() ?? 0, series.minima.map { abs($0) }.max() ?? 0)
        if peak > 0 {
            facts += " · waveform peak \(String(format: "%.1f", 20 * log10(Double(peak)))) dBFS, scaled to fit"
        }
        facts += " · onset strength: aubio \(series.onsetMethod), square-root scale"
        out +=
            "<text x=\"\(layout.left)\" y=\"42\" font-size=\"12\" fill=\"#556070\">" + Self.escape(facts) + "</text>\n"

        let stretches = laneStretches()
        out += drawTempoLane(stretches, left: left, right: right)
        out += drawWaveform(left: left, right: right)
        out += drawOnset(left: left, right: right)
        out += drawTempoChanges(stretches)
        out += drawBeats(
            visible: visible, tempoChanges: stretches.contains { $0.from > series.from && $0.from < series.to })
        out += drawAxis(left: left, right: right)
        out += "</svg>\n"
        return out
    }

    private func laneLabel(_ text: String, top: Double, height: Double) -> String {
        let cx = Double(layout.left) - 14
        let cy = top + height / 2
        return "<text x=\"\(Self.f(cx))\" y=\"\(Self.f(cy))\" font-size=\"11\" fill=\"#556070\" text-anchor=\"middle\" "
            + "transform=\"rotate(-90 \(Self.f(cx)) \(Self.f(cy)))\">\(Self.escape(text))</text>\n"
    }

    private func drawTempoLane(_ stretches: [LaneStretch], left: Double, right: Double) -> String {
        var out = ""
        let top = tempoTop
        let height = Double(layout.tempoLane)
        let colours = ["#e8eef7", "#f6ebdc"]
        for (index, stretch) in stretches.enumerated() {
            let x0 = max(left, x(stretch.from))
            let x1 = min(right, x(stretch.to))
            guard x1 > x0 else { continue }
            let colour = colours[index % 2]
            out +=
                "<rect x=\"\(Self.f(x0))\" y=\"\(Self.f(top))\" width=\"\(Self.f(x1 - x0))\" height=\"\(Self.f(height))\" "
                + "fill=\"\(colour)\" stroke=\"#9aa7b8\" stroke-width=\"0.5\"/>\n"
            out += drawTempoCurve(stretch, from: x0, to: x1, top: top, height: height)
            if let label = stretch.labels.first(where: { Self.fits($0, in: x1 - x0) }) {
                out +=
                    "<text x=\"\(Self.f(x0 + 6))\" y=\"\(Self.f(top + height - 8))\" font-size=\"13\" font-weight=\"bold\" "
                    + "fill=\"#3b2a5c\" stroke=\"\(colour)\" stroke-width=\"3\" paint-order=\"stroke\">"
                    + "\(Self.escape(label))</text>\n"
            }
        }
        out += laneLabel("tempo", top: top, height: height)
        return out
    }

    /// A dashed line through every lane where a stretch of the tempo starts within the range, drawn over
    /// the lanes' backgrounds.
    private func drawTempoChanges(_ stretches: [LaneStretch]) -> String {
        var out = ""
        for stretch in stretches where stretch.from > series.from && stretch.from < series.to {
            let px = Self.f(x(stretch.from))
            out +=
                "<line x1=\"\(px)\" y1=\"\(Self.f(tempoTop))\" x2=\"\(px)\" y2=\"\(Self.f(lanesBottom))\" "
                + "stroke=\"#7a4fb0\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>\n"
        }
        return out
    }

    /// A moving stretch's tempo as a step curve across the lane, its lowest tempo at the bottom and its
    /// highest at the top, clipped to [`x0`, `x1`].
    private func drawTempoCurve(_ stretch: LaneStretch, from x0: Double, to x1: Double, top: Double, height: Double)
        -> String
    {
        guard stretch.steps.count > 1 else { return "" }
        let bpms = stretch.steps.map(\.bpm)
        let low = bpms.min() ?? 0
        let high = bpms.max() ?? 0
        func y(_ bpm: Double) -> Double {
            high - low > 1e-9 ? top + height - 3 - (bpm - low) / (high - low) * (height - 6) : top + height / 2
        }
        var path = ""
        for (index, step) in stretch.steps.enumerated() {
            let end = index + 1 < stretch.steps.count ? stretch.steps[index + 1].time : stretch.to
            let start = max(x0, x(index == 0 ? stretch.from : step.time))
            let stop = min(x1, x(end))
            guard stop >= start else { continue }
            let level = Self.f(y(step.bpm))
            path += path.isEmpty ? "M\(Self.f(start)) \(level)" : " V\(level)"
            path += " H\(Self.f(stop))"
        }
        guard !path.isEmpty else { return "" }
        return "<path d=\"\(path)\" fill=\"none\" stroke=\"#7a4fb0\" stroke-width=\"1.5\" stroke-opacity=\"0.8\"/>\n"
    }

    private func drawWaveform(left: Double, right: Double) -> String {
        let top = waveTop
        let height = Double(layout.waveformLane)
        let middle = top + height / 2
        var out =
            "<rect x=\"\(Self.f(left))\" y=\"\(Self.f(top))\" width=\"\(Self.f(right - left))\" "
            + "height=\"\(Self.f(height))\" fill=\"#f4f6f9\"/>\n"
        let count = series.columns
        let peak = max(series.maxima.map { abs($0) }.max() ?? 0, series.minima.map { abs($0) }.max() ?? 0)
        if count > 0, peak > 0 {
            let scale = (height / 2 - 4) / Double(peak)
            let step = (right - left) / Double(count)
            var path = "M"
            for column in 0..<count {
                let px = left + (Double(column) + 0.5) * step
                path +=
                    "\(column == 0 ? "" : " L")\(Self.f(px)) \(Self.f(middle - Double(series.maxima[column]) * scale))"
            }
            for column in stride(from: count - 1, through: 0, by: -1) {
                let px = left + (Double(column) + 0.5) * step
                // Keep at least a hairline where the audio is silent.
                let low = min(Double(series.minima[column]) * scale, -0.5)
                path += " L\(Self.f(px)) \(Self.f(middle - low))"
            }
            out += "<path d=\"\(path) Z\" fill=\"#4d6f9c\"/>\n"
        } else {
            out +=
                "<text x=\"\(Self.f(left + 8))\" y=\"\(Self.f(middle))\" font-size=\"12\" fill=\"#556070\">silence</text>\n"
        }
        out +=
            "<line x1=\"\(Self.f(left))\" y1=\"\(Self.f(middle))\" x2=\"\(Self.f(right))\" y2=\"\(Self.f(middle))\" "
            + "stroke=\"#9aa7b8\" stroke-width=\"0.5\"/>\n"
        out += laneLabel("waveform", top: top, height: height)
        return out
    }

    private func drawOnset(left: Double, right: Double) -> String {
        let top = onsetTop
        let height = Double(layout.onsetLane)
        let bottom = top + height
        var out =
            "<rect x=\"\(Self.f(left))\" y=\"\(Self.f(top))\" width=\"\(Self.f(right - left))\" "
            + "height=\"\(Self.f(height))\" fill=\"#fbf5ef\"/>\n"
        let values = series.onsetStrength
        // Scale to the 99th percentile so one spike does not flatten the rest.
        let sorted = values.filter { $0 > 0 }.sorted()
        let reference = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        if !values.isEmpty, reference > 0 {
            let step = (right - left) / Double(values.count)
            var path = "M\(Self.f(left)) \(Self.f(bottom))"
            for (column, value) in values.enumerated() {
                let level = min(1, Double(value / reference).squareRoot())
                path += " L\(Self.f(left + (Double(column) + 0.5) * step)) \(Self.f(bottom - level * (height - 6)))"
            }
            path += " L\(Self.f(right)) \(Self.f(bottom)) Z"
            out += "<path d=\"\(path)\" fill=\"#e08a3c\" fill-opacity=\"0.85\"/>\n"
        }
        out += laneLabel("onsets", top: top, height: height)
        return out
    }

    private func drawBeats(visible: [Double], tempoChanges: Bool) -> String {
        let (flags, fromMap) = downbeats()
        var beatPixels = Double.infinity
        if visible.count >= 2 {
            var gaps: [Double] = []
            for index in 1..<visible.count where visible[index] > visible[index - 1] {
                gaps.append(visible[index] - visible[index - 1])
            }
            gaps.sort()
            if !gaps.isEmpty { beatPixels = gaps[gaps.count / 2] * pixelsPerSecond }
        }
        let barPixels = beatPixels * 4
        let drawBeats = beatPixels >= 3
        let drawBars = barPixels >= 3
        var out = "<g>\n"
        let top = waveTop
        var bar = 0
        var lastLabelX = -Double.infinity
        let labelEvery = max(1, Int((28 / max(barPixels, 1e-9)).rounded(.up)))
        for (index, beat) in map.beats.enumerated() where beat.isFinite {
            if flags[index] { bar += 1 }
            guard beat >= series.from, beat <= series.to else { continue }
            let px = Self.f(x(beat))
            if flags[index] {
                guard drawBars else { continue }
                out +=
                    "<line x1=\"\(px)\" y1=\"\(Self.f(top))\" x2=\"\(px)\" y2=\"\(Self.f(lanesBottom))\" "
                    + "stroke=\"#c62828\" stroke-width=\"2\" stroke-opacity=\"0.9\"/>\n"
                if (bar - 1) % labelEvery == 0, x(beat) - lastLabelX >= 24 {
                    out +=
                        "<text x=\"\(Self.f(x(beat) + 3))\" y=\"\(Self.f(top + 13))\" font-size=\"11\" "
                        + "font-weight=\"bold\" fill=\"#c62828\">\(bar)</text>\n"
                    lastLabelX = x(beat)
                }
            } else if drawBeats {
                out +=
                    "<line x1=\"\(px)\" y1=\"\(Self.f(top))\" x2=\"\(px)\" y2=\"\(Self.f(lanesBottom))\" "
                    + "stroke=\"#1d2733\" stroke-width=\"1\" stroke-opacity=\"0.45\"/>\n"
            }
        }
        out += "</g>\n"
        // Legend.
        let y = lanesBottom + 46
        var legend =
            "<line x1=\"\(layout.left)\" y1=\"\(Self.f(y - 4))\" x2=\"\(layout.left + 18)\" y2=\"\(Self.f(y - 4))\" "
            + "stroke=\"#1d2733\" stroke-width=\"1\" stroke-opacity=\"0.6\"/>\n"
        legend += "<text x=\"\(layout.left + 24)\" y=\"\(Self.f(y))\" font-size=\"12\" fill=\"#1d2733\">beat</text>\n"
        legend +=
            "<line x1=\"\(layout.left + 70)\" y1=\"\(Self.f(y - 4))\" x2=\"\(layout.left + 88)\" y2=\"\(Self.f(y - 4))\" "
            + "stroke=\"#c62828\" stroke-width=\"3\"/>\n"
        var barText = "bar downbeat (numbered)"
        if !fromMap { barText += " — bars of 4 assumed from the first beat: the map gives no beats per bar" }
        let zoom = layout.zoomControl
        if !drawBeats && drawBars {
            barText += " — beats too dense to draw at this zoom" + (zoom.map { ": use \($0)" } ?? "")
        }
        if !drawBars && !visible.isEmpty {
            barText += " — beats too dense to draw" + (zoom.map { ": use \($0) to zoom in" } ?? "")
        }
        legend +=
            "<text x=\"\(layout.left + 94)\" y=\"\(Self.f(y))\" font-size=\"12\" fill=\"#1d2733\">"
            + Self.escape(barText) + "</text>\n"
        if tempoChanges {
            legend +=
                "<line x1=\"\(layout.width - layout.right - 250)\" y1=\"\(Self.f(y - 4))\" "
                + "x2=\"\(layout.width - layout.right - 232)\" y2=\"\(Self.f(y - 4))\" stroke=\"#7a4fb0\" stroke-width=\"2\" "
                + "stroke-dasharray=\"6 4\"/>\n"
            legend +=
                "<text x=\"\(layout.width - layout.right - 226)\" y=\"\(Self.f(y))\" font-size=\"12\" "
                + "fill=\"#1d2733\">tempo change</text>\n"
        }
        return out + legend
    }

    /// Tick spacing in seconds: the smallest nice step that keeps labels ≥ 90 px apart.
    static func tickStep(seconds: Double, pixels: Double) -> Double {
        let steps = [0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600]
        for step in steps where seconds / step * 90 <= pixels { return step }
        return 7200
    }

    /// `m:ss` with `decimals` decimals of the second (`1:05`, `0:10.4`).
    static func axisLabel(_ time: Double, decimals: Int) -> String {
        let scale = pow(10, Double(decimals))
        let units = Int((time * scale).rounded())
        let perMinute = Int(60 * scale)
        let minutes = units / perMinute
        let rest = units % perMinute
        var text = "\(minutes):" + String(format: "%02d", rest / Int(scale))
        if decimals > 0 { text += "." + String(format: "%0\(decimals)d", rest % Int(scale)) }
        return text
    }

    private func drawAxis(left: Double, right: Double) -> String {
        let step = Self.tickStep(seconds: series.to - series.from, pixels: right - left)
        let y = lanesBottom
        var out =
            "<line x1=\"\(Self.f(left))\" y1=\"\(Self.f(y))\" x2=\"\(Self.f(right))\" y2=\"\(Self.f(y))\" "
            + "stroke=\"#1d2733\" stroke-width=\"1\"/>\n"
        var k = (series.from / step).rounded(.up)
        while k * step <= series.to + 1e-9 {
            let time = k * step
            let px = Self.f(x(time))
            out +=
                "<line x1=\"\(px)\" y1=\"\(Self.f(y))\" x2=\"\(px)\" y2=\"\(Self.f(y + 6))\" stroke=\"#1d2733\" stroke-width=\"1\"/>\n"
            let label = Self.axisLabel(time, decimals: step < 0.1 ? 2 : step < 1 ? 1 : 0)
            out +=
                "<text x=\"\(px)\" y=\"\(Self.f(y + 20))\" font-size=\"12\" fill=\"#1d2733\" "
                + "text-anchor=\"middle\">\(label)</text>\n"
            k += 1
        }
        return out
    }
}
