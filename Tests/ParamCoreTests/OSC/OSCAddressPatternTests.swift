import Testing
import ParamCore

/// OSC 1.0 address pattern matching, part by part.
@Suite struct OSCAddressPatternTests {
    private func matches(_ pattern: String, _ address: String) throws -> Bool {
        try OSCAddressPattern(pattern).matches(address)
    }

    @Test func aLiteralPatternMatchesOnlyItself() throws {
        #expect(try matches("/volume", "/volume"))
        #expect(try !matches("/volume", "/volume/get"))
        #expect(try !matches("/volume", "/volum"))
        #expect(try !matches("/volume", "/volumes"))
        #expect(try OSCAddressPattern("/volume/stop").isLiteral)
        #expect(try !OSCAddressPattern("/vol*").isLiteral)
    }

    @Test func aStarMatchesAnyRunWithinOnePart() throws {
        #expect(try matches("/vol*", "/volume"))
        #expect(try matches("/vol*", "/vol"))
        #expect(try matches("/*", "/pan"))
        #expect(try matches("/*", "/"))
        #expect(try !matches("/*", "/pan/done"))
        #expect(try matches("/*/done", "/pan/done"))
        #expect(try matches("/*e*", "/tone"))
        #expect(try matches("/*n*e", "/tone"))
        #expect(try !matches("/*x*", "/tone"))
        #expect(try matches("/**", "/tone"))
        #expect(try matches("/v*e", "/volume"))
        #expect(try !matches("/v*e", "/volumes"))
    }

    @Test func aQuestionMarkMatchesExactlyOneCharacter() throws {
        #expect(try matches("/pa?", "/pan"))
        #expect(try !matches("/pa?", "/pa"))
        #expect(try !matches("/pa?", "/pane"))
        #expect(try !matches("/a?b", "/a/b"))
        #expect(try matches("/?", "/é"))
    }

    @Test func bracketsMatchOneCharacterOfASet() throws {
        #expect(try matches("/[abc]x", "/bx"))
        #expect(try !matches("/[abc]x", "/dx"))
        #expect(try matches("/[a-z]1", "/q1"))
        #expect(try !matches("/[a-z]1", "/Q1"))
        #expect(try matches("/[!abc]", "/d"))
        #expect(try !matches("/[!abc]", "/a"))
        #expect(try !matches("/[!abc]", "/"))
        #expect(try matches("/[-a]", "/-"))
        #expect(try matches("/[a-]", "/-"))
        #expect(try matches("/[a-c-e]", "/-"))
        #expect(try matches("/[a-c-e]", "/e"))
        #expect(try !matches("/[a-c-e]", "/d"))
        #expect(try matches("/[*?]", "/*"))
        #expect(try !matches("/[*?]", "/x"))
        #expect(try matches("/x[0-9][0-9]", "/x42"))
    }

    @Test func bracesMatchAnyOfTheirStrings() throws {
        #expect(try matches("/{pan,tone}", "/pan"))
        #expect(try matches("/{pan,tone}", "/tone"))
        #expect(try !matches("/{pan,tone}", "/volume"))
        #expect(try !matches("/{pan,tone}", "/pantone"))
        #expect(try matches("/{ab,abc}", "/abc"))
        #expect(try matches("/{abc,ab}c", "/abc"))
        #expect(try matches("/{,s}x", "/x"))
        #expect(try matches("/{,s}x", "/sx"))
        #expect(try matches("/{pan,tone}/done", "/tone/done"))
        #expect(try matches("/*/{stop,get}", "/volume/get"))
    }

    @Test func partsMustLineUp() throws {
        #expect(try !matches("/*", "/a/b"))
        #expect(try matches("/*/*", "/a/b"))
        #expect(try !matches("/*/*", "/a"))
        #expect(try !matches("/a/", "/a"))
        #expect(try matches("/a/", "/a/"))
        #expect(try !matches("/a", "a"))
        #expect(try !matches("/a", ""))
    }

    @Test(arguments: [
        ("vol*", OSCAddressPatternError.notAnAddress),
        ("", .notAnAddress),
        ("/[abc", .unclosedBracket(offset: 1)),
        ("/x[!", .unclosedBracket(offset: 2)),
        ("/{pan,tone", .unclosedBrace(offset: 1)),
        ("/a]", .unexpectedCharacter("]", offset: 2)),
        ("/a}", .unexpectedCharacter("}", offset: 2)),
        ("/[]", .emptyBracket(offset: 1)),
        ("/[!]", .emptyBracket(offset: 1)),
        ("/[z-a]", .reversedRange(offset: 1)),
        ("/[a/b]", .unexpectedCharacter("/", offset: 3)),
        ("/{a/b}", .unexpectedCharacter("/", offset: 3)),
        ("/{a,{b}}", .unexpectedCharacter("{", offset: 4)),
        ("/{a*,b}", .unexpectedCharacter("*", offset: 3)),
    ])
    func malformedPatternsAreRejected(pattern: String, error: OSCAddressPatternError) {
        #expect(throws: error) { try OSCAddressPattern(pattern) }
    }

    @Test func patternsCompareByTheirText() throws {
        #expect(try OSCAddressPattern("/vol*") == OSCAddressPattern("/vol*"))
        #expect(try Set([OSCAddressPattern("/a"), OSCAddressPattern("/a")]).count == 1)
        #expect(try OSCAddressPattern("/{pan,tone}").description == "/{pan,tone}")
    }

    @Test func manyStarsDoNotTakeExponentialTime() throws {
        let pattern = try OSCAddressPattern("/" + String(repeating: "*a", count: 200) + "b")
        #expect(!pattern.matches("/" + String(repeating: "a", count: 2_000)))
    }
}
