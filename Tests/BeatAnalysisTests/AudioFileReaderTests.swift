// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAnalysis
import Foundation
import Testing

@Suite("AudioFileReader")
struct AudioFileReaderTests {
    @Test("readMono averages the channels of a stereo file, block by block")
    func monoMixdown() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("stereo.wav")
        // Left 0.5, right −0.25 for 1000 frames: the mix is 0.125.
        try WAVFixture.write((0..<1000).flatMap { _ in [Float(0.5), -0.25] }, channels: 2, sampleRate: 8000, to: url)
        let reader = try AudioFileReader(url: url)
        #expect(reader.channels == 2)
        var mono = [Float](repeating: 0, count: 300)
        var total = 0
        while true {
            let frames = try mono.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return 0 }
                return try reader.readMono(into: base, frames: 300)
            }
            if frames == 0 { break }
            #expect(mono[0..<frames].allSatisfy { abs($0 - 0.125) < 0.001 })
            total += frames
        }
        #expect(total == 1000)
    }
}
