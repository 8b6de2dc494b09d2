import ParamCore
import ParamSystem

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
    /// other process that has it; no memory is copied). The kernel's own (`[vdso]`) are always
    /// mapped; writable ones are left out: their written pages are paramd's already, and
    /// mapping the rest would not spare a first write its fault.
    static func populate() -> Report {
        var report = Report()
        for mapping in ProcessMappings.current() where mapping.isFile && mapping.isReadOnly {
            let length = Int(mapping.addresses.upperBound - mapping.addresses.lowerBound)
            if let start = UnsafeRawPointer(bitPattern: mapping.addresses.lowerBound), Resident.populateReadable(start, byteCount: length) {
                report.mappings += 1
                report.bytes += length
            } else {
                report.refused += 1
            }
        }
        return report
    }
}
