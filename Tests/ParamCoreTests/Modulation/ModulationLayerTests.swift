import Foundation
import Testing
@testable import ParamCore

/// SPEC §15's layer rule as a pure function: linear, log and dB, and the clamp at both ends.
@Suite struct ModulationLayerTests {
    @Test func linearAddsDepthTimesWaveTimesTheRange() {
        let v = ModulationLayer.sounding(animated: 0.5, wave: 1, depth: 0.25, domain: .linear, minimum: 0, maximum: 1)
        #expect(v == 0.75)
        let w = ModulationLayer.sounding(animated: 200, wave: -0.5, depth: 0.1, domain: .linear, minimum: 100, maximum: 500)
        #expect(abs(w - (200 - 0.5 * 0.1 * 400)) <= 1e-12)
    }

    @Test func logMovesEvenlyInLogSpace() {
        // 20…20,000 Hz is ln 1000 wide: depth 0.1 at the wave's peak is a factor 1000^0.1.
        let v = ModulationLayer.sounding(animated: 440, wave: 1, depth: 0.1, domain: .log, minimum: 20, maximum: 20_000)
        let expected = Foundation.exp(Foundation.log(440) + 0.1 * (Foundation.log(20_000) - Foundation.log(20)))
        #expect(abs(v - expected) <= 1e-9 * expected)
        #expect(abs(v - 440 * Foundation.pow(1000, 0.1)) <= 1e-9 * v)
        let down = ModulationLayer.sounding(animated: 440, wave: -1, depth: 0.1, domain: .log, minimum: 20, maximum: 20_000)
        #expect(abs(v * down - 440 * 440) <= 1e-6)
    }

    @Test func dbMovesEvenlyInDecibels() {
        // 0…1 in dB is −120…0 dB: depth 0.05 at −1 is 6 dB down.
        let v = ModulationLayer.sounding(animated: 0.5, wave: -1, depth: 0.05, domain: .db, minimum: 0, maximum: 1)
        let expected = Foundation.pow(10, (20 * Foundation.log10(0.5) - 6) / 20)
        #expect(abs(v - expected) <= 1e-12)
        // An animated 0 sits on the floor (−120 dB) and is moved from there.
        let fromSilence = ModulationLayer.sounding(animated: 0, wave: 1, depth: 0.05, domain: .db, minimum: 0, maximum: 1)
        #expect(abs(fromSilence - Foundation.pow(10, -114.0 / 20)) <= 1e-15)
    }

    @Test func theResultIsClampedToTheRangeAtBothEnds() {
        for domain in ValueDomain.allCases {
            let (low, high) = domain == .linear ? (-1.0, 1.0) : (0.001, 1.0)
            let top = ModulationLayer.sounding(animated: high * 0.9, wave: 1, depth: 1, domain: domain, minimum: low, maximum: high)
            let bottom = ModulationLayer.sounding(animated: low * 1.1 + 0.0001, wave: -1, depth: 1, domain: domain,
                                                  minimum: low, maximum: high)
            #expect(top == high, "\(domain)")
            #expect(bottom == low, "\(domain)")
        }
        #expect(ModulationLayer.sounding(animated: .nan, wave: 0.5, depth: 0.5, domain: .linear, minimum: 0, maximum: 1) == 0)
    }

    @Test func depthZeroLeavesTheAnimatedValueToTheBit() {
        for domain in ValueDomain.allCases {
            for animated in [0.0, 0.123456789, 0.5, 0.999] {
                let v = ModulationLayer.sounding(animated: animated, wave: 0.7, depth: 0, domain: domain, minimum: 0, maximum: 1)
                #expect(v.bitPattern == animated.bitPattern, "\(domain) \(animated)")
            }
        }
    }
}
