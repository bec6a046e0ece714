// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation

/// The timing content of a Standard MIDI File (format 0 or 1): the resolution, tempo and time-signature
/// events, markers, and where the tracks end. Notes and other channel messages are read past, not kept.
///
/// Our own codec: no maintained Swift MIDI library is available to this package (the local package
/// mirror has none, and the platform ones, CoreMIDI and AVFoundation, are Apple-only), and the part of the
/// format a tempo map needs is small. The reader is strict and bounded: every length is checked against
/// the bytes that are there, running status is followed exactly as the specification defines it, and
/// each error names the track and byte offset.
struct StandardMIDIFile: Sendable, Equatable {
    /// A `set_tempo` meta event.
    struct Tempo: Sendable, Equatable {
        var tick: Int64
        var microsecondsPerQuarter: Int
    }

    /// A time-signature meta event.
    struct TimeSignature: Sendable, Equatable {
        var tick: Int64
        var numerator: Int
        var denominator: Int
    }

    /// A marker meta event.
    struct Marker: Sendable, Equatable {
        var tick: Int64
        var text: String
    }

    /// 0 (one track) or 1 (simultaneous tracks). A format 0 file with more than one track is read as
    /// format 1 (``readAsSimultaneous``).
    var format: Int
    /// Ticks per quarter note.
    var ticksPerQuarter: Int
    /// The tempo events of all tracks, in file order.
    var tempos: [Tempo] = []
    /// The time signatures of all tracks, in file order.
    var timeSignatures: [TimeSignature] = []
    /// Markers of all tracks, in file order.
    var markers: [Marker] = []
    /// The number of tracks read.
    var trackCount = 0
    /// The tick of the latest event of any track (its End of Track).
    var endTick: Int64 = 0

    /// Whether the header says format 0 (one track) over more than one track, which were read as
    /// simultaneous tracks, as format 1's are.
    var readAsSimultaneous: Bool { format == 0 && trackCount > 1 }

    /// The error for a problem at byte `offset`.
    private static func error(_ path: String, _ offset: Int, _ message: String) -> InterchangeError {
        InterchangeError(path: path, "byte \(offset): \(message)")
    }

    /// Reads `bytes` (the file at `path`).
    init(bytes: [UInt8], path: String) throws(InterchangeError) {
        guard bytes.count >= 14, bytes[0..<4].elementsEqual("MThd".utf8) else {
            throw InterchangeError(path: path, "not a Standard MIDI File: it does not start with an MThd header")
        }
        let headerLength = Self.uint32(bytes, 4)
        guard headerLength >= 6, headerLength <= bytes.count - 8 else {
            throw Self.error(
                path, 4, "the header says it is \(headerLength) bytes long (must be 6 or more, within the file)")
        }
        format = Int(Self.uint16(bytes, 8))
        let declaredTracks = Int(Self.uint16(bytes, 10))
        let division = Int(Self.uint16(bytes, 12))
        guard format == 0 || format == 1 else {
            throw Self.error(
                path, 8,
                format == 2
                    ? "format 2 (independent sequences, each with its own tempo) is not supported; formats 0 and 1 are"
                    : "unknown MIDI file format \(format)")
        }
        guard division & 0x8000 == 0 else {
            throw Self.error(
                path, 12, "the file counts time in SMPTE frames, not beats, so it has no tempo map to read")
        }
        guard division > 0 else { throw Self.error(path, 12, "the resolution is 0 ticks per quarter note") }
        ticksPerQuarter = division

        var offset = 8 + Int(headerLength)
        while offset < bytes.count {
            guard bytes.count - offset >= 8 else {
                throw Self.error(path, offset, "\(bytes.count - offset) stray bytes after the last chunk")
            }
            let length = Int(Self.uint32(bytes, offset + 4))
            let body = offset + 8
            guard length <= bytes.count - body else {
                throw Self.error(
                    path, offset + 4,
                    "track \(trackCount + 1) says it is \(length) bytes long, but only \(bytes.count - body) bytes follow"
                )
            }
            if bytes[offset..<offset + 4].elementsEqual("MTrk".utf8) {
                trackCount += 1
                try readTrack(bytes, from: body, to: body + length, number: trackCount, path: path)
            }
            // Chunks of other types are skipped, as the specification asks.
            offset = body + length
        }
        guard trackCount > 0 else { throw InterchangeError(path: path, "the file has no tracks (MTrk chunks)") }
        // A format 0 file holds one track by the specification. Files in the wild break that (Frets on
        // Fire's `armygeddon/notes.mid` says format 0 over two tracks); every track was read above with
        // its own clock from tick 0, as format 1's simultaneous tracks are, which is how players and
        // other readers take such a file. ``MIDIFileFormat`` says so in a note.
        _ = declaredTracks
    }

    private static func uint32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }

    private static func uint16(_ bytes: [UInt8], _ at: Int) -> UInt16 {
        UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
    }

    /// A variable-length quantity at `offset` (at most four bytes), and the offset after it.
    private static func quantity(_ bytes: [UInt8], _ offset: Int, end: Int, track: Int, path: String)
        throws(InterchangeError) -> (value: Int, next: Int)
    {
        var value = 0
        var index = offset
        for _ in 0..<4 {
            guard index < end else {
                throw error(path, index, "track \(track) ends in the middle of a variable-length number")
            }
            let byte = bytes[index]
            value = value << 7 | Int(byte & 0x7F)
            index += 1
            if byte & 0x80 == 0 { return (value, index) }
        }
        throw error(path, offset, "track \(track) has a variable-length number longer than four bytes")
    }

    /// Reads the events of one track, bytes `start..<end`.
    private mutating func readTrack(_ bytes: [UInt8], from start: Int, to end: Int, number: Int, path: String)
        throws(InterchangeError)
    {
        var offset = start
        var tick: Int64 = 0
        var runningStatus: UInt8?
        while offset < end {
            let delta = try Self.quantity(bytes, offset, end: end, track: number, path: path)
            tick += Int64(delta.value)
            offset = delta.next
            guard offset < end else {
                throw Self.error(path, offset, "track \(number) ends after a delta time, without its event")
            }
            var status = bytes[offset]
            if status < 0x80 {
                // Running status: the data bytes of another message of the last channel status.
                guard let running = runningStatus else {
                    throw Self.error(
                        path, offset,
                        "track \(number) has a data byte (0x\(String(status, radix: 16))) where an event must start, with no earlier channel message for running status to repeat"
                    )
                }
                status = running
            } else {
                offset += 1
            }
            switch status {
            case 0x80...0xEF:
                runningStatus = status
                let count = (status & 0xF0 == 0xC0 || status & 0xF0 == 0xD0) ? 1 : 2
                guard end - offset >= count else {
                    throw Self.error(path, offset, "track \(number) ends in the middle of a channel message")
                }
                for index in offset..<offset + count where bytes[index] >= 0x80 {
                    throw Self.error(
                        path, index,
                        "track \(number): a channel message's data byte is 0x\(String(bytes[index], radix: 16)) (data bytes are below 0x80)"
                    )
                }
                offset += count
            case 0xF0, 0xF7:
                // System exclusive: cancels running status.
                runningStatus = nil
                let length = try Self.quantity(bytes, offset, end: end, track: number, path: path)
                guard length.value <= end - length.next else {
                    throw Self.error(
                        path, offset, "track \(number): a system-exclusive event runs past the end of the track")
                }
                offset = length.next + length.value
            case 0xFF:
                runningStatus = nil
                guard offset < end else {
                    throw Self.error(path, offset, "track \(number) ends in the middle of a meta event")
                }
                let type = bytes[offset]
                let length = try Self.quantity(bytes, offset + 1, end: end, track: number, path: path)
                guard length.value <= end - length.next else {
                    throw Self.error(
                        path, offset,
                        "track \(number): a meta event says it is \(length.value) bytes long, past the end of the track"
                    )
                }
                let data = length.next..<length.next + length.value
                try readMeta(type: type, bytes[data], at: offset - 1, tick: tick, track: number, path: path)
                offset = data.upperBound
                if type == 0x2F {
                    // End of Track: anything after it in the chunk is ignored.
                    endTick = max(endTick, tick)
                    return
                }
            default:
                throw Self.error(
                    path, offset - 1,
                    "track \(number) has status byte 0x\(String(status, radix: 16, uppercase: true)), which a MIDI file cannot hold"
                )
            }
        }
        endTick = max(endTick, tick)
    }

    private mutating func readMeta(
        type: UInt8, _ data: ArraySlice<UInt8>, at offset: Int, tick: Int64, track: Int, path: String
    ) throws(InterchangeError) {
        switch type {
        case 0x51:
            guard data.count == 3 else {
                throw Self.error(path, offset, "track \(track): a tempo event has \(data.count) data bytes (must be 3)")
            }
            let value =
                Int(data[data.startIndex]) << 16 | Int(data[data.startIndex + 1]) << 8
                | Int(data[data.startIndex + 2])
            guard value > 0 else {
                throw Self.error(
                    path, offset, "track \(track): a tempo of 0 microseconds per quarter note at tick \(tick)")
            }
            tempos.append(Tempo(tick: tick, microsecondsPerQuarter: value))
        case 0x58:
            guard data.count >= 2 else {
                throw Self.error(
                    path, offset, "track \(track): a time signature has \(data.count) data bytes (must be 4)")
            }
            let numerator = Int(data[data.startIndex])
            let power = Int(data[data.startIndex + 1])
            guard numerator > 0, power <= 6 else {
                throw Self.error(
                    path, offset,
                    "track \(track): time signature \(numerator)/2^\(power) at tick \(tick) (the numerator must be positive, the note value at most a 64th)"
                )
            }
            timeSignatures.append(TimeSignature(tick: tick, numerator: numerator, denominator: 1 << power))
        case 0x06:
            if data.count <= 256 {
                markers.append(Marker(tick: tick, text: String(decoding: data, as: UTF8.self)))
            }
        default:
            break
        }
    }

    /// The bytes of a format 1 file with one track holding `events` (sorted by tick) and ending at
    /// `endTick`. Each event is its meta type and data.
    static func bytes(
        ticksPerQuarter: Int, trackName: String, events: [(tick: Int64, type: UInt8, data: [UInt8])], endTick: Int64
    )
        -> [UInt8]
    {
        var track: [UInt8] = []
        var last: Int64 = 0
        func meta(_ tick: Int64, _ type: UInt8, _ data: [UInt8]) {
            appendQuantity(Int(tick - last), to: &track)
            last = tick
            track += [0xFF, type]
            appendQuantity(data.count, to: &track)
            track += data
        }
        meta(0, 0x03, Array(trackName.utf8))
        for event in events { meta(event.tick, event.type, event.data) }
        meta(max(endTick, last), 0x2F, [])
        var out: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 1, 0, 1]
        out += [UInt8(ticksPerQuarter >> 8 & 0xFF), UInt8(ticksPerQuarter & 0xFF)]
        out += Array("MTrk".utf8)
        let length = track.count
        out += [
            UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF),
        ]
        return out + track
    }

    /// Appends `value` (0…0x0FFFFFFF) as a variable-length quantity.
    static func appendQuantity(_ value: Int, to bytes: inout [UInt8]) {
        var value = min(max(value, 0), 0x0FFF_FFFF)
        var groups: [UInt8] = [UInt8(value & 0x7F)]
        value >>= 7
        while value > 0 {
            groups.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes += groups.reversed()
    }
}
