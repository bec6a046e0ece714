// SPDX-License-Identifier: GPL-3.0-or-later

import BeatAnalysis
import BeatMapKit
import BeatPreview
import Foundation

/// The command line's words for what the libraries say in their own terms: a ``Remedy`` becomes the
/// flag that does it, and the errors whose wording names a flag are worded here.
enum FlagHints {
    /// The hint appended to a message whose remedy is `remedy`.
    static func hint(_ remedy: Remedy?) -> String {
        switch remedy {
        case nil: return ""
        case .allowOverwrite?: return " (use --force to overwrite it)"
        case .giveDuration?: return ": pass --duration to set it"
        case .giveOutputFolder?: return ": give it with -o FOLDER"
        case .declareExtension?: return " (a dotted name needs --swift-declaration extension)"
        case .importGridBeats?: return " (with --beats notes; --beats grid reads the tempo map)"
        case .forceTempo?: return "; use --bpm to force a tempo"
        case .nameEachOutput?: return "; use -o or rename one"
        case .validateMap?: return "; `beatmap validate` lists such problems"
        case .giveMeter?: return "; set it with `beatmap edit --beats-per-bar N`"
        case .shortenSpan?: return "; render a shorter --from/--to span"
        case .useMismatchedAudio?: return " (use --force to use this audio anyway)"
        case .giveAudioFile?: return "; give the audio file before the map"
        case .restart(let time)?: return "; quit and run preview again with --from \(String(format: "%.2f", time))"
        case .detectOnsets?: return " (run with --audio)"
        case .includeSkippedFiles?: return " (--include GLOB takes them)"
        case .giveShardCount?: return "; give it with --shard-count N"
        }
    }

    /// The command that makes a finding's fix in the map at `path`, appended to its message: `; fix:
    /// beatmap edit MAP --shift-beats -1/2`. Nothing for a map read from standard input.
    static func fixHint(_ edit: BeatMapEdit, map path: String) -> String {
        guard path != MapFileFinder.standardInputName else { return "" }
        return "; fix: "
            + (["beatmap", "edit", path] + Edit.arguments(for: edit)).map(shellWord).joined(separator: " ")
    }

    /// `word` as a shell reads it back: as it is when it holds only safe characters, else single-quoted.
    static func shellWord(_ word: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,@%")
        if !word.isEmpty && word.allSatisfy({ safe.contains($0) }) { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// `error` as the command line tells it: the library's words, with the flag that helps.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as BeatMapError: return error.localizedDescription + hint(error.remedy)
        case let error as AtomicFileError: return error.localizedDescription + hint(error.remedy)
        case let error as InterchangeError: return error.localizedDescription + hint(error.remedy)
        case let error as MapEditRunError: return error.localizedDescription + hint(error.remedy)
        case let error as AnalysisError: return error.localizedDescription + hint(error.remedy)
        case let error as AnalysisFailure: return error.message + hint(error.remedy)
        case let error as AnalysisBatchError: return describe(error)
        case let error as ShardError: return error.localizedDescription + hint(error.remedy)
        case let error as PreviewError: return describe(error)
        case let error as CanonicalFormError: return describe(error)
        default: return error.localizedDescription
        }
    }

    /// An ``ImportNote`` with the flag that helps.
    static func describe(_ note: ImportNote) -> String { note.message + hint(note.remedy) }

    private static func describe(_ error: AnalysisBatchError) -> String {
        switch error {
        case .outputNeedsOneFile(let count):
            return "-o names one map file, but \(count) audio files were given; use --out-dir"
        case .allExcluded(let count):
            return
                "all \(count) audio file\(count == 1 ? " found was" : "s found were") left out by --include/--exclude or as stems; --include GLOB takes them"
        default: return error.localizedDescription
        }
    }

    private static func describe(_ error: PreviewError) -> String {
        switch error {
        case .span(.invalidStart): return "--from must be a time ≥ 0 in seconds"
        case .span(.invalidEnd): return "--to must be a time > 0 in seconds"
        case .span(.startPastEnd(let start, let duration)):
            return "--from \(start) s is at or past the end of the audio"
                + (duration.map { " (\(String(format: "%.3f", $0)) s)" } ?? "")
        default: return error.localizedDescription + hint(error.remedy)
        }
    }

    private static func describe(_ error: CanonicalFormError) -> String {
        guard case .needsOneMap(let count) = error else { return error.localizedDescription }
        return "\(count) maps given; printing or --output takes one map (use --check or --in-place for several)"
    }
}
