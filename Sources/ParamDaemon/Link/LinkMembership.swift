/// Ableton Link as the control thread holds it (SPEC §14, Daemon+Link.swift): the session
/// while `link` is on, a `/tempo` glide being stepped on it, and the peer count the log last
/// gave. One owner, so leaving the session drops the glide with it. Control thread.
struct LinkMembership {
    /// The session, nil while `link` is off or joining failed.
    var session: LinkSession?
    /// A `/tempo` glide being stepped on the session.
    var glide: LinkTempoGlide?
    /// The peer count the log last gave.
    var peersLogged = 0

    /// Leaves the session's state: the caller leaves the session itself.
    mutating func left() {
        session = nil
        glide = nil
    }
}
