// SPDX-License-Identifier: GPL-3.0-or-later

import BeatStudio
import Testing

@Suite("byte ranges")
struct ByteRangeTests {
    @Test(
        "resolves single ranges against the length",
        arguments: [
            ("bytes=0-9", ByteRange.Request.partial(ByteRange(first: 0, last: 9))),
            ("bytes=990-", .partial(ByteRange(first: 990, last: 999))),
            ("bytes=-10", .partial(ByteRange(first: 990, last: 999))),
            ("bytes=-5000", .partial(ByteRange(first: 0, last: 999))),
            ("bytes=900-5000", .partial(ByteRange(first: 900, last: 999))),
            ("bytes=1000-", .unsatisfiable),
            ("bytes=-0", .unsatisfiable),
            ("bytes=99999999999999999999999-", .unsatisfiable),
            ("bytes=5-2", .whole),
            ("bytes=0-1,5-6", .whole),
            ("items=0-9", .whole),
            ("bytes=a-b", .whole),
            ("bytes=", .whole),
        ])
    func resolve(header: String, expected: ByteRange.Request) {
        #expect(ByteRange.resolve(header, length: 1000) == expected)
    }
}
