// SPDX-License-Identifier: GPL-3.0-or-later
// fuzz-modules: BeatAudio
// fuzz-options: -close_fd_mask=2
//
// Fuzz target: audio-file bytes → temporary file → AudioFileReader (mono and interleaved) and
// SndfileAudioInspector (BeatAudio). libsndfile is the system library (not instrumented); this target checks our
// front end on whatever it returns: no crash, errors are AudioDecodeError naming the file, accepted
// headers are within our limits, frame counts are consistent and durations finite. libmpg123 prints
// notes about broken MP3 frames on stderr, hence -close_fd_mask=2 (libFuzzer keeps its own reports).

import BeatAudio
import BeatMapKit
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The decoder picks some formats by extension, so the last input byte picks one.
private let extensions = ["wav", "flac", "ogg", "mp3", "aiff", "au", "caf", "w64", "raw", "opus", "txt", ""]

/// A per-process scratch file in shared memory when available (faster than disk).
private let scratchFolder: String = {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory), isDirectory.boolValue {
        return "/dev/shm"
    }
    return NSTemporaryDirectory()
}()

/// Frames read per input at most, so a header that promises hours cannot stall the fuzzer.
private let frameBudget = 4_000_000

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAudioDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let ext = extensions[Int(size > 0 ? data[size - 1] : 0) % extensions.count]
    let path = "\(scratchFolder)/beatmap-fuzz-\(getpid())" + (ext.isEmpty ? "" : ".\(ext)")
    let url = URL(fileURLWithPath: path)
    guard (try? Data(bytes: data, count: size).write(to: url)) != nil else { fail("cannot write \(path)") }
    defer { unlink(path) }

    func expectNamed(_ error: any Error) {
        guard let decodeError = error as? AudioDecodeError else { fail("untyped error: \(error)") }
        require(decodeError.localizedDescription.hasPrefix(path + ":"), "error does not name the file: \(decodeError)")
    }

    // Mono, in odd-sized blocks.
    do {
        let reader = try AudioFileReader(url: url)
        require(reader.channels >= 1 && reader.channels <= AudioFileReader.maximumChannels)
        require(reader.sampleRate >= 1 && reader.sampleRate <= AudioFileReader.maximumSampleRate)
        let block = 1_021
        let mono = UnsafeMutablePointer<Float>.allocate(capacity: block)
        defer { mono.deallocate() }
        var total = 0
        while total < frameBudget {
            let frames = try reader.readMono(into: mono, frames: block)
            require(frames >= 0 && frames <= block, "readMono returned \(frames) for a block of \(block)")
            if frames == 0 { break }
            for index in 0..<frames {
                require(abs(mono[index]) <= AudioFileReader.maximumSampleMagnitude, "sample \(mono[index]) delivered")
            }
            total += frames
        }
        require(reader.framesRead == Int64(total), "framesRead \(reader.framesRead) != \(total)")
        // The truncation checks (FLAC length, chunk sizes, Ogg's last page and CRC) on whatever is left.
        if let reason = reader.truncation() { require(!reason.isEmpty, "an empty truncation reason") }
    } catch {
        expectNamed(error)
    }

    // Interleaved, then the inspector (which decodes to the end) when the file is small enough to finish.
    do {
        let reader = try AudioFileReader(url: url)
        let block = 4_096
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: block * reader.channels)
        defer { buffer.deallocate() }
        while reader.framesRead < Int64(frameBudget) {
            if try reader.readInterleaved(into: buffer, frames: block) == 0 { break }
        }
        if reader.framesRead < Int64(frameBudget) {
            let facts = try SndfileAudioInspector().inspect(url, computeHash: size & 1 == 0)
            require(facts.duration.isFinite && facts.duration > 0, "duration \(facts.duration)")
            require(facts.sampleRate == reader.sampleRate)
            require(abs(facts.duration * Double(facts.sampleRate) - Double(reader.framesRead)) < 1)
        }
    } catch {
        expectNamed(error)
    }
    return 0
}

/// Stops with `message` (kept in optimised builds, unlike `precondition`'s) when `condition` fails.
func require(_ condition: Bool, _ message: @autoclosure () -> String = "invariant failed", line: UInt = #line) {
    if !condition { fail(message(), line: line) }
}

/// Stops with `message`, which libFuzzer shows with the crashing input.
func fail(_ message: String, line: UInt = #line) -> Never {
    fatalError(message, line: line)
}
