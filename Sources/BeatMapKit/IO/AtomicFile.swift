// SPDX-License-Identifier: GPL-3.0-or-later

public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why an atomic write failed.
public enum AtomicFileError: Error, LocalizedError, Sendable, Equatable {
    /// The destination exists and overwriting was not allowed.
    case exists(path: String)
    /// A system call failed.
    case io(path: String, reason: String)

    public var errorDescription: String? {
        switch self {
        case .exists(let path): return "\(path) already exists"
        case .io(let path, let reason): return "\(path): \(reason)"
        }
    }

    /// What the user can do about it, if anything.
    public var remedy: Remedy? {
        if case .exists = self { return .allowOverwrite }
        return nil
    }
}

/// Crash-safe file replacement: the data goes to a temporary file in the destination's folder, is
/// flushed to disk, and is then renamed over the destination, so a reader (or a crash at any moment)
/// sees either the complete old file or the complete new one, never a mix.
public enum AtomicFile {
    /// Writes `data` to `url`. Without `overwrite`, an existing destination is left untouched and
    /// ``AtomicFileError/exists(path:)`` is thrown; the check and the publish are one atomic step
    /// (a hard link, which fails if the name exists), so a concurrent writer cannot be clobbered either.
    /// Replacing keeps the old file's permissions.
    public static func write(_ data: Data, to url: URL, overwrite: Bool) throws(AtomicFileError) {
        let temporary = try makeTemporary(for: url, overwrite: overwrite)
        let descriptor = open(temporary.path, O_WRONLY)
        guard descriptor >= 0 else {
            let reason = errnoText()
            discard(temporary)
            throw .io(path: url.path, reason: "cannot open \(temporary.path): \(reason)")
        }
        var failure: String?
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count, let base = raw.baseAddress {
                let written = Glue.write(descriptor, base + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = "write failed: \(errnoText())"
                    return
                }
                offset += written
            }
        }
        if close(descriptor) != 0, failure == nil { failure = "close failed: \(errnoText())" }
        if let failure {
            discard(temporary)
            throw .io(path: url.path, reason: failure)
        }
        try commit(temporary, to: url, overwrite: overwrite)
    }

    /// For a file written in pieces (a streamed render): creates an empty temporary file beside `url`
    /// (with the permissions of the file it will replace), to be filled by the caller and then published
    /// with ``commit(_:to:overwrite:)`` or removed with ``discard(_:)``. Without `overwrite`, an existing
    /// `url` is refused here, before any work.
    public static func makeTemporary(for url: URL, overwrite: Bool) throws(AtomicFileError) -> URL {
        let path = url.path
        let folder = url.deletingLastPathComponent().path
        let temporary = folder + "/." + url.lastPathComponent + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var mode: mode_t = 0o644
        var existing = stat()
        if stat(path, &existing) == 0 {
            if !overwrite { throw .exists(path: path) }
            mode = existing.st_mode & 0o7777
        }
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode)
        guard descriptor >= 0 else {
            throw .io(path: path, reason: "cannot create a file in \(folder): \(errnoText())")
        }
        close(descriptor)
        return URL(fileURLWithPath: temporary)
    }

    /// Removes a temporary file made by ``makeTemporary(for:overwrite:)`` that will not be published.
    public static func discard(_ temporary: URL) { unlink(temporary.path) }

    /// Flushes the complete temporary file to disk and puts it in place of `url` in one step. Without
    /// `overwrite`, an existing `url` is left untouched and ``AtomicFileError/exists(path:)`` thrown (the
    /// check and the publish are one atomic step: a hard link, which fails if the name exists). The
    /// temporary file is gone afterwards, whatever happens.
    public static func commit(_ temporary: URL, to url: URL, overwrite: Bool) throws(AtomicFileError) {
        let path = url.path
        let folder = url.deletingLastPathComponent().path
        let descriptor = open(temporary.path, O_RDONLY)
        var failure: String?
        if descriptor < 0 {
            failure = "cannot reopen \(temporary.path): \(errnoText())"
        } else {
            if fsync(descriptor) != 0 { failure = "fsync failed: \(errnoText())" }
            close(descriptor)
        }
        if let failure {
            discard(temporary)
            throw .io(path: path, reason: failure)
        }
        if overwrite {
            guard rename(temporary.path, path) == 0 else {
                let reason = errnoText()
                discard(temporary)
                throw .io(path: path, reason: "rename failed: \(reason)")
            }
        } else {
            var existing = stat()
            if link(temporary.path, path) != 0 {
                let code = errno
                if code == EEXIST {
                    discard(temporary)
                    throw .exists(path: path)
                }
                // File systems without hard links: fall back to check-then-rename.
                if stat(path, &existing) == 0 {
                    discard(temporary)
                    throw .exists(path: path)
                }
                guard rename(temporary.path, path) == 0 else {
                    let reason = errnoText()
                    discard(temporary)
                    throw .io(path: path, reason: "rename failed: \(reason)")
                }
            } else {
                discard(temporary)
            }
        }
        let folderDescriptor = open(folder, O_RDONLY)
        if folderDescriptor >= 0 {
            _ = fsync(folderDescriptor)
            close(folderDescriptor)
        }
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}

/// Names the C `write` apart from Swift methods called `write`.
private enum Glue {
    static func write(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
            return Glibc.write(descriptor, buffer, count)
        #elseif canImport(Musl)
            return Musl.write(descriptor, buffer, count)
        #else
            return Darwin.write(descriptor, buffer, count)
        #endif
    }
}

/// Short, user-facing reasons for file-system errors.
public enum FileSystemErrors {
    /// The most specific reason in `error` (e.g. "No such file or directory").
    public static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain, let code = POSIXErrorCode(rawValue: Int32(underlying.code))
        {
            return String(cString: strerror(code.rawValue))
        }
        if nsError.domain == NSCocoaErrorDomain {
            switch nsError.code {
            case NSFileNoSuchFileError, NSFileReadNoSuchFileError: return "No such file or directory"
            case NSFileReadNoPermissionError, NSFileWriteNoPermissionError: return "Permission denied"
            default: break
            }
        }
        return nsError.localizedDescription
    }
}
