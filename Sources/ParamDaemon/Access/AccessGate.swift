import Foundation
import Logging
import ParamCore

/// What HTTP and the WebSocket ask before answering (SPEC §16): a request that arrives on a
/// loopback address needs no token; one on any other address needs the control or the
/// observers' token (bearer header, `?token=`, or the `paramd_token` cookie), and an address
/// that guessed wrong 10 times in a minute is refused for a minute. Shared by the HTTP thread
/// (which asks) and the control thread (which puts re-read tokens in force on SIGHUP).
final class AccessGate: Sendable {
    enum Decision: Equatable {
        /// Go ahead as `role`; `cookie` set when the token came on the URL.
        case allowed(AccessRole, setCookie: String?)
        /// 401: no token, or a wrong one.
        case unauthorized
        /// 429: this address guessed too often.
        case tooManyAttempts
    }

    /// nil when nothing needs a token (loopback only, or `--open`).
    private let tokens: Locked<AccessTokens?>
    private let guesses = Locked(GuessLimiter())
    private let log: Logger

    init(tokens: AccessTokens?, log: Logger) {
        self.tokens = Locked(tokens)
        self.log = log
    }

    /// Puts re-read tokens in force (SIGHUP).
    func replace(_ tokens: AccessTokens) {
        self.tokens.withLock { if $0 != nil { $0 = tokens } }
    }

    /// Whether tokens are asked for at all.
    var isEnforcing: Bool { tokens.withLock { $0 != nil } }

    /// The decision for a request that arrived on `local` from `remote` with `credentials`.
    /// `recording`: a wrong token counts towards the limit (once per request: the WebSocket
    /// upgrader asks first without counting, the HTTP handler then answers and counts).
    func decide(local: IPAddress?, remote: IPAddress?, credentials: TokenCredentials, now: Double,
                recording: Bool) -> Decision {
        guard let tokens = tokens.withLock({ $0 }), let local, !local.isLoopback else { return .allowed(.control, setCookie: nil) }
        let source = remote ?? IPAddress(high: 0, low: 0)
        if guesses.withLock({ $0.isBlocked(source, now: now) }) { return .tooManyAttempts }
        guard let candidate = credentials.candidate else { return .unauthorized }
        if let role = tokens.role(for: candidate) {
            let cookie = credentials.query == nil ? nil
                : "\(TokenCredentials.cookieName)=\(candidate); Path=/; HttpOnly; SameSite=Strict"
            return .allowed(role, setCookie: cookie)
        }
        if recording, guesses.withLock({ $0.recordFailure(source, now: now) }) {
            log.warning("HTTP: \(source) sent 10 wrong tokens within a minute; it gets 429 for a minute")
        }
        return .unauthorized
    }
}
