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
        let path = url.path
        let folder = url.deletingLastPathComponent().path
        let temporary = folder + "/." + url.lastPathComponent + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var mode: mode_t = 0o644
        var existing = stat()
        let exists = stat(path, &existing) == 0
        if exists {
            if !overwrite { throw .exists(path: path) }
            mode = existing.st_mode & 0o7777
        }
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode)
        guard descriptor >= 0 else {
            throw .io(path: path, reason: "cannot create a file in \(folder): \(errnoText())")
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
        if failure == nil, fsync(descriptor) != 0 { failure = "fsync failed: \(errnoText())" }
        if close(descriptor) != 0, failure == nil { failure = "close failed: \(errnoText())" }
        if let failure {
            unlink(temporary)
            throw .io(path: path, reason: failure)
        }
        if overwrite {
            guard rename(temporary, path) == 0 else {
                let reason = errnoText()
                unlink(temporary)
                throw .io(path: path, reason: "rename failed: \(reason)")
            }
        } else {
            if link(temporary, path) != 0 {
                let code = errno
                if code == EEXIST {
                    unlink(temporary)
                    throw .exists(path: path)
                }
                // File systems without hard links: fall back to check-then-rename.
                if stat(path, &existing) == 0 {
                    unlink(temporary)
                    throw .exists(path: path)
                }
                guard rename(temporary, path) == 0 else {
                    let reason = errnoText()
                    unlink(temporary)
                    throw .io(path: path, reason: "rename failed: \(reason)")
                }
            } else {
                unlink(temporary)
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
