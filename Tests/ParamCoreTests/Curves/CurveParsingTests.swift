import Testing
@testable import ParamCore

/// Curve strings as SPEC §4.2 spells them, the errors for everything else, and the canonical
/// spelling that `description` prints.
@Suite("Curve strings parse as the SPEC spells them")
struct CurveParsingTests {
    static let spellings: [(String, TimingCurve)] = [
        ("linear", .linear),
        ("easeIn", .cubicBezier(x1: 0.42, y1: 0, x2: 1, y2: 1)),
        ("easeOut", .cubicBezier(x1: 0, y1: 0, x2: 0.58, y2: 1)),
        ("easeInEaseOut", .cubicBezier(x1: 0.42, y1: 0, x2: 0.58, y2: 1)),
        ("default", .cubicBezier(x1: 0.25, y1: 0.1, x2: 0.25, y2: 1)),
        ("ease-in", .easeIn), ("ease-out", .easeOut), ("ease-in-out", .easeInEaseOut), ("ease", .default),
        ("cubic-bezier(0.68,-0.55,0.27,1.55)", .cubicBezier(x1: 0.68, y1: -0.55, x2: 0.27, y2: 1.55)),
        ("cubic-bezier(0, 0, 1, 1)", .cubicBezier(x1: 0, y1: 0, x2: 1, y2: 1)),
        ("easeInQuad", .penner(.quad, .easeIn)), ("easeOutCubic", .penner(.cubic, .easeOut)),
        ("easeInOutQuart", .penner(.quart, .easeInOut)), ("easeInQuint", .penner(.quint, .easeIn)),
        ("easeOutSine", .penner(.sine, .easeOut)), ("easeInOutExpo", .penner(.expo, .easeInOut)),
        ("easeInCirc", .penner(.circ, .easeIn)), ("easeOutElastic", .penner(.elastic, .easeOut)),
        ("easeInOutElastic", .penner(.elastic, .easeInOut)), ("easeOutBounce", .penner(.bounce, .easeOut)),
        ("easeOutBack", .back(.easeOut, overshoot: 1.70158)),
        ("easeInBack(2.5)", .back(.easeIn, overshoot: 2.5)),
        ("easeInOutBack( 0 )", .back(.easeInOut, overshoot: 0)),
        ("steps(4)", .steps(count: 4, position: .jumpEnd)),
        ("steps(4,jump-end)", .steps(count: 4, position: .jumpEnd)),
        ("steps(4, jump-start)", .steps(count: 4, position: .jumpStart)),
        ("steps(5,jump-none)", .steps(count: 5, position: .jumpNone)),
        ("steps(3,jump-both)", .steps(count: 3, position: .jumpBoth)),
        ("steps(2,start)", .steps(count: 2, position: .jumpStart)),
        ("steps(2,end)", .steps(count: 2, position: .jumpEnd)),
        ("step-start", .steps(count: 1, position: .jumpStart)),
        ("step-end", .steps(count: 1, position: .jumpEnd)),
        ("curve(-4)", .curvature(-4)), ("curve(2.5)", .curvature(2.5)), ("curve(0)", .curvature(0)),
        ("spring(1,100,10)", .spring(mass: 1, stiffness: 100, damping: 10, velocity: 0)),
        ("spring(1, 170, 26, -2)", .spring(mass: 1, stiffness: 170, damping: 26, velocity: -2)),
        ("spring(0.5)", .uiKitSpring(dampingRatio: 0.5, velocity: 0)),
        ("spring(0.7, 3)", .uiKitSpring(dampingRatio: 0.7, velocity: 3)),
        ("spring(1,100,0)", .spring(mass: 1, stiffness: 100, damping: 0, velocity: 0)),
    ]

    @Test("Every spelling in SPEC §4.2 parses to its curve")
    func everySpellingParses() throws {
        for (text, curve) in Self.spellings {
            #expect(try TimingCurve.parse(text) == curve, "\(text)")
        }
    }

    @Test("All thirty Penner names parse")
    func allThirtyPennerNamesParse() throws {
        var count = 0
        for direction in ["easeIn", "easeOut", "easeInOut"] {
            for family in ["Quad", "Cubic", "Quart", "Quint", "Sine", "Expo", "Circ", "Back", "Elastic", "Bounce"] {
                let curve = try TimingCurve.parse(direction + family)
                #expect(curve.description == direction + family)
                count += 1
            }
        }
        #expect(count == 30)
    }

    @Test("CSS names are the same curves as Core Animation's")
    func cssNamesAreCoreAnimationCurves() throws {
        for (css, ca) in [("ease", "default"), ("ease-in", "easeIn"), ("ease-out", "easeOut"), ("ease-in-out", "easeInEaseOut")] {
            #expect(try TimingCurve.parse(css) == TimingCurve.parse(ca))
            #expect(try TimingCurve.parse(css).description == ca)
        }
    }

    @Test("Spaces inside the parentheses are ignored")
    func spacesInsideParenthesesAreIgnored() throws {
        let expected = TimingCurve.steps(count: 4, position: .jumpEnd)
        for text in ["steps(4,jump-end)", "steps(4, jump-end)", "steps( 4 ,jump-end )", "  steps(4,\tjump-end)  ",
                     "steps (4, jump-end)"] {
            #expect(try TimingCurve.parse(text) == expected, "'\(text)'")
        }
        #expect(try TimingCurve.parse("cubic-bezier( 0.1 , 0.9 , 0.2 , 1 )") == .cubicBezier(x1: 0.1, y1: 0.9, x2: 0.2, y2: 1))
        #expect(try TimingCurve.parse(" linear ") == .linear)
    }

    /// What parsing `text` throws; nil where it parses.
    static func parseError(_ text: String) -> CurveParseError? {
        do {
            _ = try TimingCurve.parse(text)
            return nil
        } catch {
            return error
        }
    }

    static let unknownNames = [
        "", "   ", "Linear", "LINEAR", "EaseIn", "easein", "easeInOut", "easeinquad", "EaseInQuad", "bounce",
        "ease in", "cubicBezier(0,0,1,1)", "bezier(0,0,1,1)", "springy(1)", "easeOutBackX", "easeOutBackX(2)",
        "easeInQuadratic", "easeMiddleQuad", "stepsx(4)", "ease_in", "(1,2)", "steps 4",
    ]

    @Test("Unknown names are refused as unknown curves", arguments: unknownNames)
    func unknownNamesAreRefused(text: String) {
        let error = Self.parseError(text)
        guard case let .unknownCurve(name) = error else {
            Issue.record("'\(text)': \(String(describing: error)), not an unknown curve")
            return
        }
        #expect(error?.description == "unknown curve '\(name)'")
    }

    static let malformed = [
        "linear()", "linear(1)", "easeIn(0.5)", "ease(1)", "easeOutQuad(2)", "step-end(1)",
        "steps", "steps()", "steps(0)", "steps(-1)", "steps(2.5)", "steps(1e2)", "steps(100001)", "steps(x)",
        "steps(4,middle)", "steps(4,JUMP-END)", "steps(1,jump-none)", "steps(4,jump-end,1)", "steps(4,)", "steps(,4)",
        "steps(4 4)", "steps(4", "steps4)", "steps((4))", "steps(4))",
        "cubic-bezier", "cubic-bezier()", "cubic-bezier(0.1,0.2,0.3)", "cubic-bezier(0.1,0.2,0.3,0.4,0.5)",
        "cubic-bezier(1.1,0,0.5,1)", "cubic-bezier(-0.1,0,0.5,1)", "cubic-bezier(0,0,1.0001,1)",
        "cubic-bezier(0,0,nan,1)", "cubic-bezier(0,inf,0.5,1)", "cubic-bezier(0,-inf,0.5,1)",
        "cubic-bezier(0,0,0.5,1e9)", "cubic-bezier(0,0,0.5,1)x", "cubic-bezier(0,0,0.5,1", "cubic-bezier(a,b,c,d)",
        "cubic-bezier(0x1,0,0.5,1)", "cubic-bezier(0,0,0.5,1 0)",
        "curve", "curve()", "curve(a)", "curve(1,2)", "curve(1e6)", "curve(-1001)", "curve(nan)", "curve(inf)",
        "spring", "spring()", "spring(0)", "spring(-1)", "spring(nan)", "spring(1001)", "spring(0.5,inf)",
        "spring(0.5,1e7)", "spring(0,100,10)", "spring(-1,100,10)", "spring(1,0,10)", "spring(1,-100,10)",
        "spring(1,100,-1)", "spring(1,100,10,1e9)", "spring(1,100,10,nan)", "spring(1,2,3,4,5)", "spring(1 0,100,10)",
        "spring(1e-9,100,10)", "spring(1,1e12,10)", "spring(1e7,1,1)", "spring(1,100,1e10)",
        "easeOutBack(-1)", "easeOutBack(1000)", "easeOutBack(1,2)", "easeOutBack()", "easeOutBack(inf)",
        "easeInOutBack(x)",
    ]

    @Test("Malformed arguments are refused with a reason", arguments: malformed)
    func malformedArgumentsAreRefused(text: String) {
        guard case let .malformedArguments(reason) = Self.parseError(text) else {
            Issue.record("'\(text)' was not refused for its arguments")
            return
        }
        #expect(!reason.isEmpty)
    }

    @Test("The reasons name the problem")
    func reasonsNameTheProblem() {
        func reason(_ text: String) -> String { Self.parseError(text)?.description ?? "" }
        #expect(reason("steps(0)") == "steps: the step count must be between 1 and 100000, got 0")
        #expect(reason("steps(1,jump-none)") == "steps: jump-none needs at least 2 steps, got 1")
        #expect(reason("cubic-bezier(1.5,0,0.5,1)") == "cubic-bezier: x1 must be between 0 and 1, got 1.5")
        #expect(reason("spring(1,0,10)") == "spring: the stiffness must be between 1e-06 and 1000000000, got 0")
        #expect(reason("spring(0)") == "spring: the damping ratio must be greater than 0 and at most 1000, got 0")
        #expect(reason("linear(1)") == "linear takes no arguments")
        #expect(reason("curve(nan)") == "curve: 'nan' is not a finite number")
        #expect(reason("easeInOut") == "unknown curve 'easeInOut'")
        #expect(reason("cubic-bezier(0,0,1)").hasPrefix("cubic-bezier takes 4 arguments, got 3"))
    }

    static let roundTrip: [TimingCurve] = {
        var curves: [TimingCurve] = [
            .linear, .easeIn, .easeOut, .easeInEaseOut, .default,
            .cubicBezier(x1: 0.68, y1: -0.55, x2: 0.27, y2: 1.55),
            .cubicBezier(x1: 0.1234567890123, y1: -1.0 / 3, x2: 1, y2: 99.99999999999999),
            .cubicBezier(x1: 0.42, y1: 0, x2: 1, y2: 1.0000000000000002),
            .cubicBezier(x1: 0, y1: 1e-20, x2: 1, y2: -0.0),
            .back(.easeIn, overshoot: 1.70158), .back(.easeOut, overshoot: 2.5), .back(.easeInOut, overshoot: 0),
            .back(.easeInOut, overshoot: 1.7015800000000002),
            .curvature(-4), .curvature(0.0005), .curvature(1000), .curvature(1e-300),
            .spring(mass: 1, stiffness: 100, damping: 10, velocity: 0),
            .spring(mass: 0.001, stiffness: 1e9, damping: 0, velocity: -2.75),
            .spring(mass: 2, stiffness: 300, damping: 12, velocity: 1e-5),
            .uiKitSpring(dampingRatio: 0.5, velocity: 0), .uiKitSpring(dampingRatio: 1, velocity: 0.1),
            .uiKitSpring(dampingRatio: 1000, velocity: -1e6),
        ]
        for easing in PennerEasing.allCases {
            for direction in EasingDirection.allCases { curves.append(.penner(easing, direction)) }
        }
        for position in StepPosition.allCases {
            curves.append(.steps(count: 2, position: position))
            curves.append(.steps(count: 100_000, position: position))
        }
        curves.append(.steps(count: 1, position: .jumpStart))
        return curves
    }()

    @Test("Every curve's description parses back to an equal curve", arguments: roundTrip)
    func descriptionRoundTrips(curve: TimingCurve) throws {
        let text = curve.description
        #expect(try TimingCurve.parse(text) == curve, "\(text)")
        #expect(!text.contains(" "))
        #expect(!text.contains(".0,") && !text.contains(".0)"))
    }

    @Test("Descriptions are canonical")
    func descriptionsAreCanonical() throws {
        let expected = [
            ("ease", "default"), ("ease-in-out", "easeInEaseOut"), ("cubic-bezier(0.42, 0, 1.0, 1)", "easeIn"),
            ("cubic-bezier(0.68,-0.55,0.27,1.55)", "cubic-bezier(0.68,-0.55,0.27,1.55)"),
            ("easeOutBack(1.70158)", "easeOutBack"), ("easeOutBack(2.50)", "easeOutBack(2.5)"),
            ("steps(4, jump-end)", "steps(4)"), ("steps(4,end)", "steps(4)"), ("steps(4,start)", "steps(4,jump-start)"),
            ("step-start", "steps(1,jump-start)"), ("curve(-4.0)", "curve(-4)"),
            ("spring(1.0, 100, 10, 0)", "spring(1,100,10)"), ("spring(1,100,10,5)", "spring(1,100,10,5)"),
            ("spring(0.5, 0)", "spring(0.5)"), ("spring(0.5,2)", "spring(0.5,2)"), ("spring(1e-6,1e9,1e-300)", "spring(1e-06,1000000000,1e-300)"),
        ]
        for (text, canonical) in expected {
            #expect(try TimingCurve.parse(text).description == canonical, "\(text)")
        }
    }
}
