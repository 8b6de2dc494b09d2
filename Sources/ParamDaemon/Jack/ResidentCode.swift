import Foundation
import ParamCore

/// The machine code the audio thread may run, and the constants it may read, mapped before the
/// first period. The kernel maps a library's pages as they are first touched, and the first run
/// of a rarely taken branch is a page fault on the realtime path: LinkAllocationTests once saw
/// the JACK thread take one in `cos`'s slow path in libm, after a thousand warm periods (`perf
/// record -e page-faults -c 1 -d -g`). So paramd maps every read-only file mapping it has (its
/// own code, libm's code and tables, libc, libjack ...) at start, as `mlockall` would, without
/// locking: a user service's default RLIMIT_MEMLOCK (8 MiB) is smaller than they are
/// (docs/ARCHITECTURE.md, "Realtime rules").
enum ResidentCode {
    /// What `populate` mapped: read-only file mappings and their bytes, and those the kernel refused.
    struct Report {
        var mappings = 0
        var bytes = 0
        var refused = 0
    }

    /// Control thread, before the first JACK client activates. Maps the pages of every
    /// read-only file mapping in `/proc/self/maps` (the file's pages are shared with every
    /// other process that has it; no memory is copied).
    static func populate() -> Report {
        var report = Report()
        // Read to its end: the file says its size is 0, and a reader that trusts that (as
        // `String(contentsOfFile:)` does here) stops after the first page of it.
        guard let data = FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile(),
              let maps = String(data: data, encoding: .utf8) else { return report }
        for mapping in readOnlyFileMappings(maps) {
            let length = Int(mapping.upperBound - mapping.lowerBound)
            if let start = UnsafeRawPointer(bitPattern: mapping.lowerBound), Resident.populateReadable(start, byteCount: length) {
                report.mappings += 1
                report.bytes += length
            } else {
                report.refused += 1
            }
        }
        return report
    }

    /// The address ranges of the read-only mappings backed by a file (code, constants such as
    /// libm's tables, relocated pointers) in `maps`, the text of `/proc/<pid>/maps`: `start-end
    /// perms offset dev inode path`. The kernel's own (`[vdso]`, `[vsyscall]`) are left out: they
    /// are always mapped. Writable ones are too: their written pages are paramd's already, and
    /// mapping the rest would not spare a first write its fault.
    static func readOnlyFileMappings(_ maps: String) -> [Range<UInt>] {
        maps.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // Only the path holds a slash, and it may hold spaces.
            guard fields.count >= 6, fields[1].hasPrefix("r"), !fields[1].contains("w"), line.contains("/") else { return nil }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16),
                  start < end else { return nil }
            return start..<end
        }
    }
}
