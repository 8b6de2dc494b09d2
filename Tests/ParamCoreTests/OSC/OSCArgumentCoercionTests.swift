import Testing
import ParamCore

/// Numbers as i/f/d/h, names as s/S, booleans as T/F or a number (SPEC §4).
@Suite struct OSCArgumentCoercionTests {
    @Test func zeroMeansTheSameAsIntFloatDoubleAndInt64() {
        for argument: OSCArgument in [.int32(0), .float32(0), .double(0), .int64(0)] {
            #expect(argument.numericValue == 0)
        }
        #expect(OSCArgument.float32(0.3).numericValue == Double(Float(0.3)))
        #expect(OSCArgument.double(0.3).numericValue == 0.3)
        #expect(OSCArgument.int32(-7).numericValue == -7)
        #expect(OSCArgument.int64(1 << 40).numericValue == 1_099_511_627_776)
    }

    @Test func trueAndFalseAreOneAndZeroAsNumbers() {
        #expect(OSCArgument.bool(true).numericValue == 1)
        #expect(OSCArgument.bool(false).numericValue == 0)
    }

    @Test func nonNumbersHaveNoNumericValue() {
        for argument: OSCArgument in [.string("1"), .symbol("1"), .blob([1]), .timeTag(1), .character(49),
                                      .rgba(1), .midi(1), .null, .impulse] {
            #expect(argument.numericValue == nil)
        }
    }

    @Test func nanAndInfinityPassThroughForTheCommandLayerToReject() {
        #expect(OSCArgument.float32(.nan).numericValue?.isNaN == true)
        #expect(OSCArgument.double(.infinity).numericValue == .infinity)
    }

    @Test func integersAreExactOrAbsent() {
        #expect(OSCArgument.int32(42).integerValue == 42)
        #expect(OSCArgument.int64(-5).integerValue == -5)
        #expect(OSCArgument.float32(7).integerValue == 7)
        #expect(OSCArgument.double(7.5).integerValue == nil)
        #expect(OSCArgument.double(.nan).integerValue == nil)
        #expect(OSCArgument.double(1e300).integerValue == nil)
        #expect(OSCArgument.string("7").integerValue == nil)
    }

    @Test func namesComeAsStringOrSymbol() {
        #expect(OSCArgument.string("easeIn").stringValue == "easeIn")
        #expect(OSCArgument.symbol("easeIn").stringValue == "easeIn")
        #expect(OSCArgument.int32(1).stringValue == nil)
        #expect(OSCArgument.character(65).stringValue == nil)
        #expect(OSCArgument.blob(Array("x".utf8)).stringValue == nil)
    }

    @Test func booleansComeAsTrueFalseOrAnyNumber() {
        #expect(OSCArgument.bool(true).boolValue == true)
        #expect(OSCArgument.bool(false).boolValue == false)
        #expect(OSCArgument.int32(1).boolValue == true)
        #expect(OSCArgument.int32(0).boolValue == false)
        #expect(OSCArgument.int32(-3).boolValue == true)
        #expect(OSCArgument.float32(0.5).boolValue == true)
        #expect(OSCArgument.float32(-0.0).boolValue == false)
        #expect(OSCArgument.double(0).boolValue == false)
        #expect(OSCArgument.int64(2).boolValue == true)
        #expect(OSCArgument.double(.infinity).boolValue == true)
    }

    @Test func nanStringsAndOtherTypesAreNotBooleans() {
        #expect(OSCArgument.float32(.nan).boolValue == nil)
        #expect(OSCArgument.double(.nan).boolValue == nil)
        #expect(OSCArgument.string("true").boolValue == nil)
        #expect(OSCArgument.null.boolValue == nil)
        #expect(OSCArgument.impulse.boolValue == nil)
    }
}
