import Foundation
import Testing
@testable import ParamCore

/// The wave kernels against their analytic definitions, and the generator against SplitMix64's
/// published vectors.
@Suite struct ModulatorWaveTests {
    /// Phases over [0, 1): a regular grid, the quarter points and their neighbours.
    static let phases: [Double] = {
        var points = (0..<10_000).map { Double($0) / 10_000 }
        for q in [0.0, 0.25, 0.5, 0.75] {
            points += [q, q.nextUp, q.nextDown].filter { $0 >= 0 && $0 < 1 }
        }
        points.append(1.0.nextDown)
        return points
    }()

    @Test func sineIsSinOfTwoPiPhaseWithin1e12() {
        var worst = 0.0
        for phase in Self.phases {
            worst = max(worst, abs(ModulatorWave.sine(phase) - Foundation.sin(2 * .pi * phase)))
        }
        #expect(worst <= 1e-12, "worst \(worst)")
        #expect(ModulatorWave.sine(0) == 0)
        #expect(abs(ModulatorWave.sine(0.25) - 1) <= 1e-15)
        #expect(abs(ModulatorWave.sine(0.75) + 1) <= 1e-15)
    }

    @Test func triangleSawAndSquareAreTheirStraightLines() {
        for phase in Self.phases {
            // The triangle as the distance to the nearest peak: 1 − 4·|φ − ¼| before ¾.
            let triangle = phase < 0.75 ? 1 - 4 * abs(phase - 0.25) : 4 * phase - 4
            #expect(abs(ModulatorWave.triangle(phase) - triangle) <= 1e-15, "triangle at \(phase)")
            let saw = phase < 0.5 ? 2 * phase : 2 * (phase - 1)
            #expect(abs(ModulatorWave.saw(phase) - saw) <= 1e-15, "saw at \(phase)")
            #expect(ModulatorWave.square(phase) == (phase < 0.5 ? 1 : -1), "square at \(phase)")
        }
        #expect(ModulatorWave.triangle(0) == 0 && ModulatorWave.triangle(0.25) == 1)
        #expect(ModulatorWave.triangle(0.5) == 0 && ModulatorWave.triangle(0.75) == -1)
        #expect(ModulatorWave.saw(0) == 0 && ModulatorWave.saw(0.5) == -1 && ModulatorWave.saw(0.25) == 0.5)
    }

    @Test func randomIsTheCosineInterpolationBetweenItsPoints() {
        let from = -0.3, to = 0.8
        var worst = 0.0
        for phase in Self.phases {
            let expected = from + (to - from) * (1 - Foundation.cos(.pi * phase)) / 2
            worst = max(worst, abs(ModulatorWave.random(phase, from: from, to: to) - expected))
        }
        #expect(worst <= 1e-15, "worst \(worst)")
        #expect(ModulatorWave.random(0, from: from, to: to) == from)
        #expect(abs(ModulatorWave.random(0.5, from: from, to: to) - (from + to) / 2) <= 1e-15)
        #expect(ModulatorWave.value(.sh, phase: 0.7, from: from, to: to) == from)
    }

    @Test func polarityMapsTheWaveToItsPart() {
        for w in [-1.0, -0.5, 0, 0.5, 1] {
            for polarity in ModulatorPolarity.allCases {
                let mapped = polarity.scale * w + polarity.shift
                switch polarity {
                case .bi: #expect(mapped == w)
                case .up: #expect(mapped == (w + 1) / 2)
                case .down: #expect(mapped == (w - 1) / 2)
                }
            }
        }
        #expect(ModulatorPolarity(name: "up") == .up && ModulatorPolarity(name: "sideways") == nil)
        #expect(ModulatorShape.allCases.map(\.name) == ["sine", "triangle", "saw", "square", "random", "sh"])
        #expect(ModulatorShape.allCases.allSatisfy { ModulatorShape(name: $0.name) == $0 })
    }

    /// Rosetta Code's "Pseudo-random numbers/Splitmix64" (the reference algorithm's outputs).
    @Test func theGeneratorIsSplitMix64() {
        let expected: [UInt64] = [6457827717110365317, 3203168211198807973, 9817491932198370423,
                                  4593380528125082431, 16408922859458223821]
        let outputs = (0..<5).map { ModulatorRandom.output(seed: 1234567, index: UInt64($0)) }
        #expect(outputs == expected)
        var generator = SplitMix64(seed: 1234567)  // the tests' generator: the same, in order
        #expect((0..<5).map { _ in generator.next() } == expected)
        // The same task's distribution: 100,000 floats from seed 987654321, floor(5·u).
        var counts = [0, 0, 0, 0, 0]
        for n in 0..<100_000 {
            let u = Double(ModulatorRandom.output(seed: 987654321, index: UInt64(n))) / 18446744073709551616.0
            counts[Int(u * 5)] += 1
        }
        #expect(counts == [20027, 19892, 20073, 19978, 20030])
    }

    @Test func randomValuesAreBipolarRepeatableAndDependOnTheSeed() {
        var sum = 0.0
        for cycle in Int64(-500)..<500 {
            let v = ModulatorRandom.bipolar(seed: 42, cycle: cycle)
            #expect(v >= -1 && v < 1)
            #expect(v == ModulatorRandom.bipolar(seed: 42, cycle: cycle))
            sum += v
        }
        #expect(abs(sum / 1000) < 0.1, "mean \(sum / 1000)")
        let a = (0..<16).map { ModulatorRandom.bipolar(seed: 1, cycle: Int64($0)) }
        let b = (0..<16).map { ModulatorRandom.bipolar(seed: 2, cycle: Int64($0)) }
        #expect(a != b)
    }
}
