import Glibc

/// Writes `line` and a newline to stdout with one write(2): unbuffered, so a reader sees it now.
func printNow(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
}

/// One line to stderr, prefixed with the tool's name.
func log(_ line: String) {
    let text = "paramd-jacktool: " + line + "\n"
    _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
}
