import Foundation

/// The process's memory mappings, as `/proc/self/maps` lists them: `start-end perms offset dev
/// inode path`, one per line. Read by `ResidentCode` (what to map before the audio thread runs)
/// and `LibjackWakeSlots` (which clients' futexes libjack holds).
public struct ProcessMapping: Equatable, Sendable {
    public var addresses: Range<UInt>
    /// `r`, `w`, `x`, then `p` (private) or `s` (shared).
    public var permissions: String
    /// The file, without the kernel's " (deleted)"; empty for anonymous memory.
    public var path: String
    /// The file was unlinked after it was mapped.
    public var isDeleted: Bool
    /// The file's inode (0 for anonymous memory): tells a file from another of the same name.
    public var inode: UInt64

    public init(addresses: Range<UInt>, permissions: String, path: String, isDeleted: Bool, inode: UInt64 = 0) {
        self.addresses = addresses
        self.permissions = permissions
        self.path = path
        self.isDeleted = isDeleted
        self.inode = inode
    }

    public var isReadOnly: Bool { permissions.hasPrefix("r") && !permissions.contains("w") }
    /// Backed by a file (the kernel's own `[vdso]`, `[stack]`, ... and anonymous memory are not).
    public var isFile: Bool { path.hasPrefix("/") }
}

public enum ProcessMappings {
    /// This process's mappings now; empty if `/proc` cannot be read.
    public static func current() -> [ProcessMapping] {
        // Read to its end: the file says its size is 0, and a reader that trusts that (as
        // `String(contentsOfFile:)` does) stops after its first page.
        guard let data = try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd() else { return [] }
        return parse(String(decoding: data, as: UTF8.self))
    }

    /// The mappings in `maps`, text in the form of `/proc/<pid>/maps`; malformed lines are left out.
    public static func parse(_ maps: String) -> [ProcessMapping] {
        maps.split(separator: "\n").compactMap { line in
            // Five fields, then the path, which may hold spaces (or be absent).
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count >= 5 else { return nil }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16),
                  start < end else { return nil }
            var path = fields.count == 6 ? fields[5].drop(while: { $0 == " " }) : ""
            let deleted = path.hasSuffix(" (deleted)")
            if deleted { path = path.dropLast(" (deleted)".count) }
            return ProcessMapping(addresses: start..<end, permissions: String(fields[1]), path: String(path), isDeleted: deleted,
                                  inode: UInt64(fields[4]) ?? 0)
        }
    }
}
