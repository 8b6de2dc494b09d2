import Foundation
@testable import ParamCore
import Testing

/// The inline e^x of recall members and bound parameters in the log and dB domains, against
/// libm's `exp`.
@Suite struct ExpTableTests {
    /// 400,000 seeded points within ±`bound`, then the log domain's range (its floor 1e-9 up to
    /// 1e9) densely, the dB domain's (±120 dB as e's power), the table's steps, and `ends`.
    static func points(seed: UInt64, bound: Double, ends: [Double]) -> [Double] {
        var random = SplitMix64(seed: seed)
        var points = (0..<400_000).map { _ in Double.random(in: -bound...bound, using: &random) }
        points += stride(from: -21.0, through: 21.0, by: 1.0 / 4099).map { $0 }
        points += (-2000...2000).map { Double($0) * Foundation.log(2) / 128 } + ends
        return points
    }

    @Test func withinOneUlpOfLibmOverEveryEncodedValue() {
        let powers = UnsafeMutablePointer<Double>.allocate(capacity: ExpTable.size)
        defer { powers.deallocate() }
        let table = ExpTable(filling: powers)
        // The ends of the polynomial's interval among the ends.
        let points = Self.points(seed: 25, bound: 699, ends: [0, -0.0, 1e-300, 699.9, -699.9])
        var worst = 0.0, worstAt = 0.0
        for x in points {
            let reference = Foundation.exp(x)
            let ulps = abs(table.exp(x) - reference) / reference.ulp
            if ulps > worst { (worst, worstAt) = (ulps, x) }
        }
        print("[ExpTable] worst \(worst) ulp at \(worstAt) over \(points.count) points")
        #expect(worst <= 1, "worst \(worst) ulp at \(worstAt)")
        #expect(table.exp(800) == Foundation.exp(800) && table.exp(-800) == Foundation.exp(-800))
    }

    /// Eight frames at a time (`exp8`) must sound what one at a time (`exp`) does, to the bit, so
    /// that a member's values do not depend on where a chunk's frames fall in eights.
    @Test func eightLanesAtATimeGiveExpsBitsAndOnlyInsideItsInlineRange() {
        let powers = UnsafeMutablePointer<Double>.allocate(capacity: ExpTable.size)
        defer { powers.deallocate() }
        let table = ExpTable(filling: powers)
        var points = Self.points(seed: 2504, bound: 699.99, ends: [0, -0.0, 1e-300, -1e-300, 699.99, -699.99])
        while points.count % 8 != 0 { points.append(0.5) }
        var differing = 0, firstAt = 0.0
        for i in stride(from: 0, to: points.count, by: 8) {
            let x = SIMD8(points[i..<(i + 8)])
            #expect(ExpTable.inline8(x))
            let eight = table.exp8(x)
            for lane in 0..<8 where eight[lane].bitPattern != table.exp(x[lane]).bitPattern {
                if differing == 0 { firstAt = x[lane] }
                differing += 1
            }
        }
        #expect(differing == 0, "\(differing) of \(points.count) lanes differ from exp, first at \(firstAt)")
        for outside in [700.0, -700, 800, -.infinity, .infinity, .nan] {
            #expect(!ExpTable.inline8(SIMD8(1, 2, outside, 3, 4, 5, 6, 7)), "\(outside) is not inline")
        }
    }
}
