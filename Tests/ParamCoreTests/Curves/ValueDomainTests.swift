import Testing
import ParamCore

/// domains.csv, interpolated linearly in encoded space, and the floors.
@Suite("Value domains interpolate in their own space")
struct ValueDomainTests {
    static let rows: [ReferenceData.DomainRow] = (try? ReferenceData.domains()) ?? []

    static func interpolate(_ domain: ValueDomain, from: Double, to: Double, progress: Double) -> Double {
        let a = domain.encode(from)
        let b = domain.encode(to)
        return domain.decode(a + (b - a) * progress)
    }

    @Test("Every row of domains.csv matches within 1e-9 relative")
    func everyRowMatches() throws {
        let rows = try ReferenceData.domains()
        #expect(rows.count == 450)
        var worst = 0.0
        for row in rows {
            let domain = try #require(ValueDomain(name: row.domain))
            let value = Self.interpolate(domain, from: row.from, to: row.to, progress: row.progress)
            let error = abs(value - row.value) / abs(row.value)
            worst = max(worst, error)
            #expect(error <= 1e-9, "\(row.domain) \(row.from) → \(row.to) at \(row.progress): \(value), reference \(row.value)")
        }
        print("domains.csv: \(rows.count) rows, worst relative error \(worst)")
    }

    @Test("The log domain moves by equal ratios")
    func logDomainMovesByEqualRatios() {
        let quarter = Self.interpolate(.log, from: 100, to: 1600, progress: 0.25)
        let half = Self.interpolate(.log, from: 100, to: 1600, progress: 0.5)
        #expect(abs(quarter - 200) <= 1e-10)
        #expect(abs(half - 400) <= 1e-10)
    }

    @Test("The linear domain is the identity")
    func linearDomainIsTheIdentity() {
        for v in [-3.5, 0, 1e-300, 0.25, 440] {
            #expect(ValueDomain.linear.encode(v) == v)
            #expect(ValueDomain.linear.decode(v) == v)
        }
    }

    @Test("The log domain floors zero and negatives at a tiny positive value")
    func logDomainFloorsNonPositiveValues() {
        let floor = ValueDomain.log.encode(ValueDomain.logFloor)
        #expect(ValueDomain.log.encode(0) == floor)
        #expect(ValueDomain.log.encode(-1) == floor)
        #expect(abs(ValueDomain.log.decode(floor) / ValueDomain.logFloor - 1) <= 1e-15)
        #expect(abs(ValueDomain.log.decode(ValueDomain.log.encode(440)) / 440 - 1) <= 1e-15)
    }

    @Test("The dB domain floors at −120 dB")
    func decibelDomainFloorsAtMinus120() {
        #expect(ValueDomain.db.encode(0) == -120)
        #expect(ValueDomain.db.encode(-0.5) == -120)
        #expect(ValueDomain.db.encode(1e-9) == -120)
        #expect(ValueDomain.db.encode(1) == 0)
        #expect(abs(ValueDomain.db.encode(0.5) - (-6.020599913279624)) <= 1e-12)
        #expect(abs(ValueDomain.db.decode(-120) - 1e-6) <= 1e-18)
        #expect(abs(ValueDomain.db.decode(-6.020599913279624) - 0.5) <= 1e-15)
        // A fade from silence starts at −120 dB.
        #expect(abs(Self.interpolate(.db, from: 0, to: 1, progress: 0.5) - 1e-3) <= 1e-15)
    }

    @Test("Domains are named linear, log and db")
    func domainsAreNamed() {
        for domain in ValueDomain.allCases {
            #expect(ValueDomain(name: domain.name) == domain)
        }
        #expect(ValueDomain(name: "dB") == nil)
        #expect(ValueDomain(name: "") == nil)
        #expect(ValueDomain(name: "exp") == nil)
    }
}
