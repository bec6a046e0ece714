// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

/// A time source the test moves by hand.
/// `@unchecked Sendable` is safe: `microseconds` is only read or written while holding `lock`.
final class ManualTime: MonotonicTimeSource, @unchecked Sendable {
    private let lock = NSLock()
    private var microseconds = 1_000_000_000

    func now() -> TimeInterval { lock.withLock { Double(microseconds) / 1e6 } }

    func advance(by seconds: TimeInterval) {
        lock.withLock { microseconds += Int((seconds * 1e6).rounded()) }
    }
}

@Suite("PlaybackClock")
struct PlaybackClockTests {
    @Test("an interruption: playing at 25.3 s, paused 45 s, resumed → 25.3 s, not 70.3 s")
    func interruption() {
        let time = ManualTime()
        var clock = PlaybackClock(timeSource: time)
        clock.start()
        time.advance(by: 25.3)
        #expect(abs(clock.elapsed - 25.3) < 1e-9)
        clock.pause()
        time.advance(by: 45)
        #expect(abs(clock.elapsed - 25.3) < 1e-9)
        clock.resume()
        #expect(abs(clock.elapsed - 25.3) < 1e-9)
        #expect(abs(clock.playbackStartTime - (time.now() - 25.3)) < 1e-9)
        time.advance(by: 1.5)
        #expect(abs(clock.elapsed - 26.8) < 1e-9)
    }

    @Test("a clock without recalibration would be off by the pause: the naive model gives 70.3 s")
    func naiveModelIsWrong() {
        let time = ManualTime()
        var clock = PlaybackClock(timeSource: time)
        clock.start()
        let naiveStart = clock.playbackStartTime
        time.advance(by: 25.3)
        clock.pause()
        time.advance(by: 45)
        clock.resume()
        #expect(abs((time.now() - naiveStart) - 70.3) < 1e-9)
        #expect(abs(clock.elapsed - 25.3) < 1e-9)
    }

    @Test("pause and resume are idempotent")
    func idempotent() {
        let time = ManualTime()
        var clock = PlaybackClock(timeSource: time)
        clock.start(at: 10)
        time.advance(by: 2)
        clock.resume()
        #expect(abs(clock.elapsed - 12) < 1e-9)
        clock.pause()
        time.advance(by: 3)
        clock.pause()
        #expect(abs(clock.elapsed - 12) < 1e-9)
        #expect(!clock.isPlaying)
    }

    @Test("seek while playing and while paused")
    func seek() {
        let time = ManualTime()
        var clock = PlaybackClock(timeSource: time)
        clock.start()
        time.advance(by: 4)
        clock.seek(to: 60)
        #expect(abs(clock.elapsed - 60) < 1e-9)
        time.advance(by: 1)
        #expect(abs(clock.elapsed - 61) < 1e-9)
        clock.pause()
        clock.seek(to: 5)
        time.advance(by: 10)
        #expect(abs(clock.elapsed - 5) < 1e-9)
        clock.resume()
        time.advance(by: 0.25)
        #expect(abs(clock.elapsed - 5.25) < 1e-9)
    }

    @Test("rate changes keep the position and scale what follows; bad rates are ignored")
    func rate() {
        let time = ManualTime()
        var clock = PlaybackClock(timeSource: time)
        clock.start()
        time.advance(by: 10)
        clock.setRate(0.5)
        #expect(abs(clock.elapsed - 10) < 1e-9)
        time.advance(by: 4)
        #expect(abs(clock.elapsed - 12) < 1e-9)
        clock.pause()
        time.advance(by: 100)
        clock.resume()
        time.advance(by: 2)
        #expect(abs(clock.elapsed - 13) < 1e-9)
        clock.setRate(0)
        clock.setRate(.nan)
        #expect(clock.rate == 0.5)
    }

    @Test("synchronize aligns a playing clock with the output stream's time")
    func synchronize() {
        let time = ManualTime()
        var clock = PlaybackClock(timeSource: time)
        clock.start()
        time.advance(by: 1)
        // The stream reports that track position 0.98 s reaches the speaker 0.01 s from now.
        clock.synchronize(position: 0.98, at: time.now() + 0.01)
        #expect(abs(clock.elapsed - 0.97) < 1e-9)
    }

    @Test("the system clock is monotonic")
    func systemClock() {
        let clock = SystemMonotonicClock()
        let first = clock.now()
        let second = clock.now()
        #expect(second >= first)
    }
}

@Suite("HitJudge")
struct HitJudgeTests {
    let judge = HitJudge(beats: [2.0, 0.5, 1.0, 1.5])

    @Test("beats are sorted; next, last and nearest beats are found")
    func lookup() {
        #expect(judge.beats == [0.5, 1.0, 1.5, 2.0])
        #expect(judge.nextBeatIndex(atOrAfter: 0) == 0)
        #expect(judge.nextBeatIndex(atOrAfter: 1.0) == 1)
        #expect(judge.nextBeatIndex(atOrAfter: 1.01) == 2)
        #expect(judge.nextBeatIndex(atOrAfter: 2.01) == nil)
        #expect(judge.lastBeatIndex(atOrBefore: 0.49) == nil)
        #expect(judge.lastBeatIndex(atOrBefore: 1.0) == 1)
        #expect(judge.lastBeatIndex(atOrBefore: 9) == 3)
        #expect(judge.nearestBeatIndex(to: -3) == 0)
        #expect(judge.nearestBeatIndex(to: 1.2) == 1)
        #expect(judge.nearestBeatIndex(to: 1.3) == 2)
        #expect(judge.nearestBeatIndex(to: 1.25) == 1)
        #expect(judge.nearestBeatIndex(to: 50) == 3)
        #expect(judge.nearestBeatIndex(to: .nan) == nil)
    }

    @Test("taps inside ±150 ms hit with the signed error; outside miss")
    func standardWindow() {
        let late = judge.judge(tapAt: 1.12)
        #expect(late.beatIndex == 1)
        #expect(late.isHit)
        #expect(abs((late.error ?? 0) - 0.12) < 1e-12)
        let early = judge.judge(tapAt: 0.4)
        #expect(early.beatIndex == 0)
        #expect(early.isHit)
        #expect(abs((early.error ?? 0) + 0.1) < 1e-12)
        let miss = judge.judge(tapAt: 2.2)
        #expect(miss.beatIndex == 3)
        #expect(!miss.isHit)
        #expect(abs((miss.error ?? 0) - 0.2) < 1e-12)
    }

    @Test("the assist window accepts ±300 ms")
    func assistWindow() {
        let assist = HitJudge(beats: judge.beats, window: .assist)
        #expect(assist.judge(tapAt: 2.2).isHit)
        #expect(assist.judge(tapAt: 0.21).isHit)
        #expect(!assist.judge(tapAt: 0.19).isHit)
        #expect(!assist.judge(tapAt: 2.31).isHit)
    }

    @Test("no beats: nothing to hit")
    func empty() {
        let none = HitJudge(beats: [.nan])
        #expect(none.beats.isEmpty)
        #expect(none.judge(tapAt: 1) == TapJudgement(beatIndex: nil, error: nil, isHit: false))
        #expect(none.nextBeatIndex(atOrAfter: 0) == nil)
    }

    @Test("binary search agrees with a linear scan on a long map")
    func longMap() {
        let beats = (0..<100_000).map { Double($0) * 0.5 + 0.123 }
        let big = HitJudge(beats: beats)
        for t in stride(from: -1.0, through: 50_010, by: 777.77) {
            let linear = beats.firstIndex { $0 >= t }
            #expect(big.nextBeatIndex(atOrAfter: t) == linear)
        }
    }
}
