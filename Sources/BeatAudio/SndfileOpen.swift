// SPDX-License-Identifier: GPL-3.0-or-later

import CSndfile
import Foundation

/// Every `sf_open` of this module, one at a time.
///
/// libsndfile says why an open failed only through one process-wide error, read with
/// `sf_strerror(NULL)`, and the next `sf_open` on any thread overwrites it. A batch that opens files
/// on several threads (`analyze --jobs 2`, the test suite) could otherwise report a damaged file's
/// reason as "No Error.". Opening is rare and never on a realtime thread, so a lock costs nothing
/// that matters.
enum SndfileOpen {
    /// Held from `sf_open` until its error has been read.
    private static let lock = NSLock()

    /// The handle of `path` opened in `mode` (`SFM_READ` or `SFM_WRITE`), or libsndfile's reason
    /// for refusing it, read before any other open can replace it.
    static func open(_ path: String, mode: Int32, info: inout SF_INFO) -> Result<OpaquePointer, Failure> {
        lock.lock()
        defer { lock.unlock() }
        guard let handle = sf_open(path, mode, &info) else {
            let reason = String(cString: sf_strerror(nil))
            return .failure(Failure(reason: sf_error(nil) == 0 ? "libsndfile gave no reason" : reason))
        }
        return .success(handle)
    }

    /// libsndfile's reason for refusing a file.
    struct Failure: Error {
        /// Its message (`sf_strerror`).
        let reason: String
    }
}
