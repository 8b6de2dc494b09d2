import Testing
@testable import ParamCore

/// curves.csv: every curve at every progress, within 1e-7, however the samples are ordered.
@Suite("Curves match the reference values")
struct CurveReferenceTests {
    static let tolerance = 1e-7
    static let rows: [ReferenceData.CurveRow] = (try? ReferenceData.curves()) ?? []
    static let curveNames: [String] = groupedInOrder(rows, by: \.curve).map(\.key)

    static func rows(of name: String) -> [ReferenceData.CurveRow] {
        rows.filter { $0.curve == name }
    }

    static func rowsByProgress(of name: String) -> [ReferenceData.CurveRow] {
        rows(of: name).sorted { $0.progress < $1.progress }
    }

    /// A state `curve` was prepared in for a 1 s animation.
    static func preparedState(_ curve: TimingCurve) -> CurveState {
        var state = CurveState()
        _ = curve.prepare(requestedSeconds: 1, velocity: .nan, state: &state)
        return state
    }

    /// The largest |ours − reference| over `order`, evaluating with one state throughout.
    static func worstError(_ curve: TimingCurve, _ order: [ReferenceData.CurveRow],
                           state: inout CurveState) -> (error: Double, at: Double) {
        var worst = (error: 0.0, at: 0.0)
        for row in order {
            let error = abs(curve.value(at: row.progress, state: &state) - row.value)
            if !(error <= worst.error) { worst = (error, row.progress) }
        }
        return worst
    }

    @Test("The reference file is there, with every family the SPEC names")
    func referenceFileCoversEveryFamily() throws {
        let rows = try ReferenceData.curves()
        #expect(rows.count == 3300)
        let names = Set(rows.map(\.curve))
        for direction in ["easeIn", "easeOut", "easeInOut"] {
            for family in ["Quad", "Cubic", "Quart", "Quint", "Sine", "Expo", "Circ", "Back", "Elastic", "Bounce"] {
                #expect(names.contains(direction + family))
            }
        }
        for name in ["linear", "easeIn", "easeOut", "easeInEaseOut", "default"] {
            #expect(names.contains(name))
        }
        #expect(names.contains { $0.hasPrefix("cubic-bezier(") })
        #expect(names.contains { $0.hasPrefix("steps(") })
        #expect(names.contains { $0.hasPrefix("curve(") })
    }

    @Test("Each row matches within 1e-7 when evaluated from a fresh state", arguments: curveNames)
    func eachRowMatchesFromAFreshState(name: String) throws {
        let curve = try TimingCurve.parse(name)
        for row in Self.rows(of: name) {
            var state = CurveState()
            let duration = curve.prepare(requestedSeconds: 1, velocity: .nan, state: &state)
            #expect(duration == 1)
            let value = curve.value(at: row.progress, state: &state)
            #expect(abs(value - row.value) <= Self.tolerance, "\(name) at \(row.progress): \(value), reference \(row.value)")
            // Without `prepare` too: only springs need it.
            var unprepared = CurveState()
            #expect(abs(curve.value(at: row.progress, state: &unprepared) - row.value) <= Self.tolerance)
        }
    }

    @Test("Rows match within 1e-7 in increasing order with one warm-started state", arguments: curveNames)
    func rowsMatchInIncreasingOrder(name: String) throws {
        let curve = try TimingCurve.parse(name)
        var state = Self.preparedState(curve)
        let order = Self.rowsByProgress(of: name)
        let worst = Self.worstError(curve, order, state: &state)
        #expect(worst.error <= Self.tolerance, "\(name): error \(worst.error) at \(worst.at)")
        // Backwards, as autoreverse plays it.
        let backwards = Self.worstError(curve, order.reversed(), state: &state)
        #expect(backwards.error <= Self.tolerance, "\(name) backwards: error \(backwards.error) at \(backwards.at)")
    }

    @Test("Rows match within 1e-7 in shuffled orders with one warm-started state", arguments: curveNames)
    func rowsMatchInShuffledOrder(name: String) throws {
        let curve = try TimingCurve.parse(name)
        var generator = SplitMix64(seed: 0x5EED)
        var state = Self.preparedState(curve)
        for _ in 0..<5 {
            let order = Self.rows(of: name).shuffled(using: &generator)
            let worst = Self.worstError(curve, order, state: &state)
            #expect(worst.error <= Self.tolerance, "\(name) shuffled: error \(worst.error) at \(worst.at)")
        }
    }

    @Test("A repeating animation that jumps back to 0 keeps matching", arguments: curveNames)
    func repeatingSequenceKeepsMatching(name: String) throws {
        let curve = try TimingCurve.parse(name)
        var state = Self.preparedState(curve)
        let order = Self.rowsByProgress(of: name)
        for _ in 0..<3 {
            let worst = Self.worstError(curve, order, state: &state)
            #expect(worst.error <= Self.tolerance, "\(name) repeated: error \(worst.error) at \(worst.at)")
        }
    }

    @Test("The worst error of each curve is reported and below 1e-7")
    func worstErrorsAreReported() throws {
        var overall = 0.0
        var lines: [String] = []
        for (name, rows) in groupedInOrder(Self.rows, by: \.curve) {
            let curve = try TimingCurve.parse(name)
            var fresh = 0.0
            for row in rows {
                var state = Self.preparedState(curve)
                fresh = max(fresh, abs(curve.value(at: row.progress, state: &state) - row.value))
            }
            var state = CurveState()
            let warm = Self.worstError(curve, rows.sorted { $0.progress < $1.progress }, state: &state).error
            overall = max(overall, fresh, warm)
            lines.append("\(name): \(rows.count) rows, worst fresh \(fresh), warm \(warm)")
        }
        print("curves.csv: \(Self.rows.count) rows, worst error \(overall)\n  " + lines.joined(separator: "\n  "))
        #expect(overall <= Self.tolerance)
    }
}
