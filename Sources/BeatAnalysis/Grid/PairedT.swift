// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// The paired t statistic the phase checks decide by: how many standard errors the mean of paired
/// differences (beats moved against the same beats unmoved) lies from 0.
enum PairedT {
    /// The t statistic of `differences` (two or more): their mean over its standard error, the error
    /// taken with 1e-9 added so that differences all alike give a large finite value, not a division
    /// by zero.
    static func of(_ differences: [Double]) -> Double {
        let n = Double(differences.count)
        let mean = differences.reduce(0, +) / n
        let variance = differences.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1)
        return mean / (variance.squareRoot() / n.squareRoot() + 1e-9)
    }
}
