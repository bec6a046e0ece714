// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Testing

@Suite("beatmap validate")
struct ValidateCommandTests {
    @Test("a missing path exits 2 with the path in the message")
    func missingPath() throws {
        let result = try CLI.run(["validate", "/nonexistent/x.beatmap.json"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("/nonexistent/x.beatmap.json"))
        #expect(result.stdout.isEmpty)
    }
}
