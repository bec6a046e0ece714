// SPDX-License-Identifier: GPL-3.0-or-later

import Foundation
import Hummingbird

/// The page's files, read once from the target's resources into memory. Requests name them only by
/// their fixed path; no part of a request is ever used as a file path.
struct PageAssets: Sendable {
    /// The files, by name.
    static let files: [(name: String, type: String)] = [
        ("index.html", "text/html; charset=utf-8"), ("studio.css", "text/css; charset=utf-8"),
        ("studio.js", "text/javascript; charset=utf-8"), ("clock.js", "text/javascript; charset=utf-8"),
    ]

    private let contents: [String: (type: String, bytes: [UInt8])]

    /// The names served.
    var names: [String] { Self.files.map(\.name) }

    /// Reads every file in ``files`` from the bundle.
    static func load() throws(StudioError) -> PageAssets {
        var contents: [String: (type: String, bytes: [UInt8])] = [:]
        for file in files {
            let parts = file.name.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2,
                let url = Bundle.module.url(forResource: parts[0], withExtension: parts[1], subdirectory: "Page"),
                let data = try? Data(contentsOf: url)
            else { throw .listen("the page's file \(file.name) is missing from the installation") }
            contents[file.name] = (file.type, Array(data))
        }
        return PageAssets(contents: contents)
    }

    /// The file `name` (one of ``names``), or 404.
    func response(for name: String) -> Response {
        guard let file = contents[name] else { return StudioServer.problem(.notFound, "no such file") }
        var headers = HTTPFields()
        headers[.contentType] = file.type
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }
}
