import Glibc

// Link calls these on its own thread. Written outside main.swift, whose closures are
// main-actor isolated in Swift 6 and trap when called from another thread (DESIGN.md).

/// Link's thread. The session's peer count changed.
func peersChanged(_ peers: UInt64, _ context: UnsafeMutableRawPointer?) {
    emit("peers \(peers)")
}

/// Link's thread. The session's tempo changed.
func tempoChanged(_ bpm: Double, _ context: UnsafeMutableRawPointer?) {
    emit("tempo \(bpm)")
}

/// Any thread. Writes one line to `descriptor` (stdout by default) in one `write`, which a
/// pipe keeps whole (a line is far below PIPE_BUF), so a test reads each line as it comes.
func emit(_ line: String, to descriptor: Int32 = STDOUT_FILENO) {
    var bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeMutableBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        offset += written
    }
}
