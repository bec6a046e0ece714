// SPDX-License-Identifier: GPL-3.0-or-later

public import ArgumentParser
public import BeatMapKit

/// Every option that takes a time takes it as seconds (`90.5`) or `m:ss(.fff)` (`1:30.5`), through this
/// one parser (``ClockTime/init(parsing:)``); a time never names a flag's default twice in help.
extension ClockTime: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }

    public var defaultValueDescription: String { description }
}

extension Optional where Wrapped == ClockTime {
    /// The seconds, if a time was given.
    var seconds: Double? { self?.seconds }
}

/// The help line's value name for times.
let timeValueName = "time"

/// `--to` after `--from`, or a usage error naming both.
func requireOrdered(from: ClockTime?, to: ClockTime?) throws {
    if let from, let to, to <= from { throw ValidationError("--to \(to) must be after --from \(from)") }
}
