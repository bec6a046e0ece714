// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAnalysis
import Foundation
import Testing

@Suite("Hostile audio")
struct HostileAudioTests {
    @Test("a missing file is a cannotOpen error naming the path")
    func missingFile() {
        let path = "/nonexistent/folder/song.wav"
        #expect(throws: AudioDecodeError.cannotOpen(path: path, reason: "no such file")) {
            _ = try AudioFileReader(url: URL(fileURLWithPath: path))
        }
    }
}
