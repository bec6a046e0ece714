// SPDX-License-Identifier: GPL-3.0-or-later

/// `invalid-tempo`: the tempo map cannot be used: segments out of order, outside the track, a BPM
/// outside 20…400, or a non-positive `beatsPerBar`.
public struct InvalidTempoRule: ValidationRule {
    public static let description = RuleDescription(
        id: "invalid-tempo", defaultSeverity: .error,
        summary: "Tempo segments are unsorted or outside the track, a BPM is outside 20…400, or beatsPerBar < 1.",
        triggeringExamples: [
            .map(beats: "[0.5, 1.0]", tempo: "[{ \"time\": 2.0, \"bpm\": 120 }, { \"time\": 0.5, \"bpm\": 120 }]"),
            .map(beats: "[0.5, 1.0]", tempo: "[{ \"time\": 0.5, \"bpm\": 600 }]"),
            .map(beats: "[0.5, 1.0]", tempo: "[{ \"time\": 9.5, \"bpm\": 120 }]", duration: "8.0"),
            .map(beats: "[0.5, 1.0]", tempo: "[{ \"time\": 0.5, \"bpm\": 120, \"beatsPerBar\": 0 }]"),
        ],
        nonTriggeringExamples: [
            .map(beats: "[0.5, 1.0]", tempo: "[{ \"time\": 0.5, \"bpm\": 120, \"beatsPerBar\": 4 }]"),
            .map(beats: "[0.5, 1.0]", tempo: "[{ \"time\": 0.5, \"bpm\": 120 }, { \"time\": 4.5, \"bpm\": 140 }]"),
        ])

    public init() {}

    public func check(_ context: ValidationContext, into sink: inout ViolationSink) {
        guard let tempo = context.map.tempo else { return }
        let duration = context.map.audio.duration
        for (index, segment) in tempo.enumerated() {
            let location = context.source.location(ofTempoSegment: index)
            if index > 0, segment.time.isFinite, tempo[index - 1].time.isFinite, segment.time <= tempo[index - 1].time {
                sink.report(
                    Violation(
                        Message.outOfOrder(index: index, time: segment.time, previousTime: tempo[index - 1].time),
                        at: location))
            }
            if segment.time.isFinite, segment.time < 0 || segment.time > duration {
                sink.report(
                    Violation(Message.outsideTrack(index: index, time: segment.time, duration: duration), at: location))
            }
            if segment.bpm.isFinite, segment.bpm < TempoLimits.minimumBPM || segment.bpm > TempoLimits.maximumBPM {
                sink.report(Violation(Message.bpmOutOfRange(index: index, bpm: segment.bpm), at: location))
            }
            if let perBar = segment.beatsPerBar, perBar < 1 {
                sink.report(Violation(Message.beatsPerBar(index: index, perBar), at: location))
            }
        }
    }

    /// The rule's messages.
    enum Message {
        /// A segment that does not come after the one before it.
        static func outOfOrder(index: Int, time: Double, previousTime: Double) -> String {
            "\(Describe.segment(index)) at \(Describe.seconds(time)) does not come after segment \(index) at \(Describe.seconds(previousTime)); segments must be in time order"
        }

        /// A segment anchored outside `0…duration`.
        static func outsideTrack(index: Int, time: Double, duration: Double) -> String {
            "\(Describe.segment(index)) starts at \(Describe.seconds(time)), outside the track (0…\(Describe.seconds(duration)))"
        }

        /// A tempo outside ``TempoLimits``.
        static func bpmOutOfRange(index: Int, bpm: Double) -> String {
            "\(Describe.segment(index)) has \(Describe.bpm(bpm)), outside \(Int(TempoLimits.minimumBPM))…\(Int(TempoLimits.maximumBPM)) BPM"
        }

        /// A bar of fewer than one beat.
        static func beatsPerBar(index: Int, _ perBar: Int) -> String {
            "\(Describe.segment(index)) has beatsPerBar \(perBar); it must be at least 1"
        }
    }
}
