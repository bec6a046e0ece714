// SPDX-License-Identifier: GPL-3.0-or-later

import HTTPTypes
import Hummingbird

/// Checks every request before it reaches a route, and refuses (changing nothing) one that:
/// - names a host other than the studio's own `127.0.0.1:PORT` or `localhost:PORT` (a DNS-rebinding
///   page would name its own);
/// - carries an `Origin` other than the studio's own, or, for a method other than GET and HEAD, none;
/// - is marked by the browser as cross-site (`Sec-Fetch-Site`);
/// - asks for anything but the page's own assets without the launch token in `X-Beatmap-Token`.
///
/// Responses it lets through get headers that keep the page and its data to itself.
struct StudioGuard<Context: RequestContext>: RouterMiddleware {
    /// The launch token.
    let token: String
    /// The port, once known.
    let origin: StudioOrigin
    /// Paths served without the token: the page's own assets, which hold no data.
    let publicPaths: Set<String>

    // Header names, spelled out once (all valid tokens, so the fallbacks are never used).
    static var tokenField: HTTPField.Name { HTTPField.Name(StudioServer.tokenHeader) ?? .authorization }
    static var fetchSiteField: HTTPField.Name { HTTPField.Name("Sec-Fetch-Site") ?? .origin }
    static var referrerPolicyField: HTTPField.Name { HTTPField.Name("Referrer-Policy") ?? .origin }
    static var frameOptionsField: HTTPField.Name { HTTPField.Name("X-Frame-Options") ?? .origin }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let port = await origin.port else { return Self.refuse(.serviceUnavailable, "the studio is starting") }
        let hosts = ["127.0.0.1:\(port)", "localhost:\(port)"]
        guard let host = request.head.authority?.lowercased(), hosts.contains(host) else {
            return Self.refuse(.misdirectedRequest, "this server answers only to 127.0.0.1:\(port)")
        }
        let origins = hosts.map { "http://" + $0 }
        if let given = request.headers[.origin] {
            guard origins.contains(given.lowercased()) else {
                return Self.refuse(.forbidden, "requests from \(given) are refused")
            }
        } else if request.method != .get && request.method != .head {
            return Self.refuse(.forbidden, "a request that changes something must come from the studio's page")
        }
        if let site = request.headers[Self.fetchSiteField], site != "same-origin", site != "none" {
            return Self.refuse(.forbidden, "cross-site requests are refused")
        }
        if !publicPaths.contains(request.uri.path) {
            guard let given = request.headers[Self.tokenField], Self.equal(given, token) else {
                return Self.refuse(.unauthorized, "missing or wrong \(StudioServer.tokenHeader)")
            }
        }
        var response = try await next(request, context)
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.cacheControl] = "no-store"
        response.headers[.crossOriginResourcePolicy] = "same-origin"
        response.headers[.contentSecurityPolicy] = StudioPolicy.contentSecurityPolicy
        response.headers[Self.referrerPolicyField] = "no-referrer"
        response.headers[Self.frameOptionsField] = "DENY"
        return response
    }

    /// A refusal with a JSON reason.
    static func refuse(_ status: HTTPResponse.Status, _ reason: String) -> Response {
        var response = StudioServer.problem(status, reason)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// Compares in time that does not depend on where the strings first differ.
    static func equal(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8)
        let b = Array(rhs.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

/// The headers' fixed values.
enum StudioPolicy {
    /// What the page may load: only its own assets and API (and a Worker made from a blob for its
    /// timer); nothing from anywhere else.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; worker-src blob:; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self'; media-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}
