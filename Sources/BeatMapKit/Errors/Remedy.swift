// SPDX-License-Identifier: GPL-3.0-or-later

/// What the user can do about a problem, said in the library's terms. Errors and notes carry one where
/// there is something to do; a front end names its own control for it (the `beatmap` tool names a
/// flag, a game a button), so the library never speaks in command-line words.
public enum Remedy: Sendable, Equatable {
    /// Allow the existing file to be replaced.
    case allowOverwrite
    /// Give the audio's duration, which the input does not store.
    case giveDuration
    /// Give a folder to write to: the output is several files.
    case giveOutputFolder
    /// Declare the Swift constants in an extension of an existing type (a dotted type name needs one).
    case declareExtension
    /// Import the beats of the tempo grid instead of one beat per note.
    case importGridBeats
    /// Give the tempo instead of having it estimated.
    case forceTempo
    /// Give each input's output a name of its own.
    case nameEachOutput
    /// Validate the map, which lists every such problem.
    case validateMap
    /// Give the number of beats in a bar (the map's meter).
    case giveMeter
    /// Ask for a shorter time span.
    case shortenSpan
    /// Use the given audio although it is not the audio the map was made for.
    case useMismatchedAudio
    /// Give the audio file, which the map does not name.
    case giveAudioFile
    /// Start again at this time (seconds), for example after the audio output failed for good.
    case restart(at: Double)
    /// Detect the audio's onsets, so the checks that compare beats with them run.
    case detectOnsets
    /// Name the files to take, when a filter left out some that were wanted.
    case includeSkippedFiles
    /// Say how many shards the batch is split into, which the environment does not.
    case giveShardCount
}
