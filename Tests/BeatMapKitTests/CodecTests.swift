// SPDX-License-Identifier: GPL-3.0-or-later

import BeatMapKit
import Foundation
import Testing

@Suite("Beat-map codec")
struct CodecTests {
    @Test("numbers are rounded to microseconds and printed without noise")
    func numberFormatting() {
        #expect(NumberFormatting.decimal(0.1 + 0.2) == "0.3")
        #expect(NumberFormatting.decimal(120) == "120.0")
        #expect(NumberFormatting.decimal(-0.000125) == "-0.000125")
        #expect(NumberFormatting.decimal(1.0000004) == "1.0")
        #expect(NumberFormatting.decimal(0) == "0.0")
    }
}
