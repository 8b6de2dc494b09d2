import Foundation
import ParamCore

/// What paramd keeps between runs (SPEC §6): each parameter's target and default action,
/// learned MIDI mappings, and scenes saved over OSC.
/// Curves are kept by their canonical description, which `TimingCurve.parse` reads back.
///
///     {
///       "parameters" : {
///         "volume" : { "curve" : "default", "duration" : 0.25, "target" : 0.5 },
///         …
///       },
///       "version" : 1
///     }
struct SavedState: Codable, Equatable, Sendable {
    struct Parameter: Codable, Equatable, Sendable {
        var target: Double
        var duration: Double
        var curve: String
    }

    static let currentVersion = 1
    var version = SavedState.currentVersion
    var parameters: [String: Parameter]
    /// MIDI mappings made with `/midi/learn` (SPEC §10); absent in files written before them.
    var midi: [SavedMIDIMapping]?
    /// Scenes saved over OSC (SPEC §13); absent when there are none.
    var scenes: [SavedScene]?
    /// Modulators by parameter name (SPEC §15); absent when none runs.
    var modulators: [String: SavedModulator]?
    /// Takes (SPEC §17); absent when there are none.
    var takes: [SavedTake]?
    /// Cues set with `/at` (SPEC §18); absent when there are none.
    var cues: [SavedCue]?

    /// Every parameter of the controller's registry, built-in and declared, by name, and the
    /// learned MIDI mappings.
    init(_ controller: Controller, midi: [SavedMIDIMapping] = []) {
        self.midi = midi.isEmpty ? nil : midi
        let scenes = controller.scenes.savedScenes
        self.scenes = scenes.isEmpty ? nil : scenes.map(SavedScene.init)
        self.takes = SavedTakes.of(controller.takes)
        self.cues = SavedCue.of(controller.cues)
        var parameters: [String: Parameter] = [:]
        for p in controller.registry.ids {
            let action = controller.defaultAction(p)
            parameters[controller.registry[p].name] = Parameter(target: controller.target(p), duration: action.seconds,
                                                                curve: action.curve.description)
        }
        self.parameters = parameters
        var modulators: [String: SavedModulator] = [:]
        for p in controller.registry.ids {
            if let request = controller.modulators[p] {
                modulators[controller.registry[p].name] = SavedModulator(request, depth: controller.modulators.depths[p.index])
            }
        }
        self.modulators = modulators.isEmpty ? nil : modulators
    }

    /// The saved target of the parameter called `name`, if the file had one.
    func target(_ name: String) -> Double? { parameters[name]?.target }

    /// The saved default action of the parameter called `name`, if the file had one (checked by
    /// `problem`).
    func defaultAction(_ name: String) -> DefaultAction? {
        guard let saved = parameters[name], let curve = try? TimingCurve.parse(saved.curve) else { return nil }
        return DefaultAction(seconds: saved.duration, curve: curve)
    }

    /// Why this state cannot be used, or nil. A saved parameter the config no longer declares
    /// is ignored (and kept out of the next write); one the file lacks keeps its configured
    /// start; a saved target outside a changed range is clamped when restored.
    func problem() -> String? {
        guard version == Self.currentVersion else { return "unknown version \(version)" }
        for (name, saved) in parameters.sorted(by: { $0.key < $1.key }) {
            guard saved.target.isFinite else { return "\(name): target is not a finite number" }
            guard saved.duration.isFinite, saved.duration >= 0, saved.duration <= Controller.maximumSeconds else {
                return "\(name): duration \(saved.duration) is not 0…86400 s"
            }
            do {
                _ = try TimingCurve.parse(saved.curve)
            } catch {
                return "\(name): \(error.description)"
            }
        }
        for scene in scenes ?? [] {
            if let problem = scene.problem { return problem }
        }

        for (name, saved) in (modulators ?? [:]).sorted(by: { $0.key < $1.key }) {
            if case .failure(let error) = saved.request() { return "\(name): \(error.reason)" }
        }
        return nil  // a learned MIDI mapping that cannot be used is left out at start, with a warning
    }
}

/// Reads and writes the state file. Writes replace the file atomically: the new contents go to
/// a temporary file in the same folder, which is flushed to disk and renamed over the old one,
/// so a crash or power loss leaves either the old file or the new one, never a mix. Control thread.
struct StateStore {
    let path: String

    enum Loaded {
        /// No file yet: a first start.
        case none
        case restored(SavedState)
        /// The file could not be used; it was renamed to `setAside` (nil if even that failed).
        case damaged(reason: String, setAside: String?)
    }

    var directory: String { (path as NSString).deletingLastPathComponent }

    func load() -> Loaded {
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) {
                return setAside(reason: "cannot be read")
            }
            return .none
        }
        let state: SavedState
        do {
            state = try JSONDecoder().decode(SavedState.self, from: data)
        } catch {
            return setAside(reason: "not valid state JSON (\(Self.describe(error)))")
        }
        if let problem = state.problem() { return setAside(reason: problem) }
        return .restored(state)
    }

    /// Moves a damaged file out of the way, to `state.json.damaged-<UTC time>`, so it can be
    /// looked at and is never read again.
    private func setAside(reason: String) -> Loaded {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        var target = "\(path).damaged-\(formatter.string(from: Date()))"
        var n = 1
        while FileManager.default.fileExists(atPath: target) {
            n += 1
            target = "\(path).damaged-\(formatter.string(from: Date()))-\(n)"
        }
        return .damaged(reason: reason, setAside: rename(path, target) == 0 ? target : nil)
    }

    /// Writes `state` atomically (temporary file, fsync, rename, fsync of the folder).
    func save(_ state: SavedState) throws(StateError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        var data: Data
        do {
            data = try encoder.encode(state)
        } catch {
            throw StateError(operation: "encode", path: path, code: EINVAL)
        }
        data.append(0x0A)
        try makeDirectory(directory)
        let temporary = "\(directory)/.\((path as NSString).lastPathComponent).tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StateError(operation: "create", path: temporary, code: errno) }
        var written = 0
        let ok = data.withUnsafeBytes { bytes -> Bool in
            while written < bytes.count {
                let n = write(fd, bytes.baseAddress! + written, bytes.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += n
            }
            return true
        }
        let writeErrno = errno
        guard ok else {
            close(fd)
            unlink(temporary)
            throw StateError(operation: "write", path: temporary, code: writeErrno)
        }
        guard fsync(fd) == 0 else {
            let code = errno
            close(fd)
            unlink(temporary)
            throw StateError(operation: "fsync", path: temporary, code: code)
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw StateError(operation: "rename", path: path, code: code)
        }
        // The rename is durable once the folder is.
        let dir = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            _ = fsync(dir)
            close(dir)
        }
    }

    private func makeDirectory(_ path: String) throws(StateError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { return }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw StateError(operation: "create folder", path: path, code: EACCES)
        }
    }

    private static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): context.debugDescription
        case DecodingError.keyNotFound(let key, _): "missing '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default: "\(error)"
        }
    }
}

struct StateError: Error, CustomStringConvertible {
    let operation: String
    let path: String
    let code: Int32
    var description: String { "cannot \(operation) \(path): \(String(cString: strerror(code)))" }
}
