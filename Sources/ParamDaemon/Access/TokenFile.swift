import CSodium
import Foundation

/// A token file of SPEC §16: 256 random bits as 64 lowercase hexadecimal digits, mode 0600,
/// made the first time it is needed (its folder 0700). The random bits come from libsodium
/// (`randombytes_buf`, the kernel's getrandom). Control thread, or `--show-url`.
enum TokenFile {
    static let hexDigits = 64

    /// The token in `path`, made first if the file does not exist.
    static func loadOrCreate(_ path: String) throws(TokenFileError) -> [UInt8] {
        if FileManager.default.fileExists(atPath: path) { return try load(path) }
        return try create(path)
    }

    /// The token in an existing file: 64 lowercase hex digits (a final newline allowed), not
    /// readable by the group or others.
    static func load(_ path: String) throws(TokenFileError) -> [UInt8] {
        var info = stat()
        guard stat(path, &info) == 0 else { throw TokenFileError(path: path, words: "cannot be read: \(String(cString: strerror(errno)))") }
        guard info.st_mode & 0o077 == 0 else {
            throw TokenFileError(path: path, words: String(format: "is readable by others (mode %04o); chmod 600 it", info.st_mode & 0o7777))
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TokenFileError(path: path, words: "cannot be read")
        }
        var bytes = [UInt8](data)
        while bytes.last == UInt8(ascii: "\n") || bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard bytes.count == hexDigits, bytes.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw TokenFileError(path: path, words: "must hold 64 lowercase hexadecimal digits (256 bits); delete it and paramd makes a new one")
        }
        return bytes
    }

    /// A new file holding a new token; never replaces one that appeared meanwhile.
    static func create(_ path: String) throws(TokenFileError) -> [UInt8] {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw TokenFileError(path: path, words: "cannot make its folder: \(error.localizedDescription)")
            }
        }
        let token = try newToken(for: path)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            if errno == EEXIST { return try load(path) }
            throw TokenFileError(path: path, words: "cannot be made: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let line = token + [UInt8(ascii: "\n")]
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == line.count, fsync(fd) == 0 else {
            unlink(path)
            throw TokenFileError(path: path, words: "cannot be written: \(String(cString: strerror(errno)))")
        }
        return token
    }

    /// 256 random bits as 64 lowercase hex digits.
    static func newToken(for path: String) throws(TokenFileError) -> [UInt8] {
        guard sodium_init() >= 0 else { throw TokenFileError(path: path, words: "cannot be made: libsodium does not start") }
        var bits = [UInt8](repeating: 0, count: hexDigits / 2)
        bits.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
        let digits = Array("0123456789abcdef".utf8)
        return bits.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }
    }
}

struct TokenFileError: Error, CustomStringConvertible {
    let path: String
    let words: String
    var description: String { "token file \(path) \(words)" }
}

/// Who a token says a request is (SPEC §16): the controlling user, or an observer (GET and
/// LISTEN only).
enum AccessRole: Sendable, Equatable {
    case control, observe
}

/// The tokens in force. A candidate is compared with each in constant time (`sodium_memcmp`),
/// so how long a comparison takes says nothing of how much of a guess was right.
struct AccessTokens: Sendable, Equatable {
    let control: [UInt8]
    let observe: [UInt8]?

    /// The role `candidate` gives, or nil.
    func role(for candidate: String) -> AccessRole? {
        let given = Array(candidate.utf8)
        let isControl = Self.equal(given, control)
        let isObserve = observe.map { Self.equal(given, $0) } ?? false
        return isControl ? .control : isObserve ? .observe : nil
    }

    /// Constant time for tokens of the real length (the length is no secret: always 64).
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count, !a.isEmpty else { return false }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in sodium_memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
    }
}
