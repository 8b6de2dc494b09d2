import Testing
@testable import ParamCore

@Suite struct SceneBookTests {
    func scene(_ name: String, _ members: [(String, Double)] = [("volume", 0.5)]) -> Scene {
        Scene(name: name, members: members.map { SceneMember(parameter: $0.0, value: $0.1) })
    }

    @Test(arguments: ["a", "dark", "look-2", "x_y", String(repeating: "z", count: 32), "0"])
    func goodNames(_ name: String) {
        #expect(SceneBook.nameProblem(name) == nil)
    }

    @Test(arguments: ["", "Dark", "a b", "é", "a/b", String(repeating: "z", count: 33), "a.b"])
    func badNames(_ name: String) {
        #expect(SceneBook.nameProblem(name) != nil)
    }

    @Test func theHundredAndTwentyNinthSceneIsRefusedAndAReplacementIsNot() throws {
        var book = SceneBook()
        for k in 0..<SceneBook.capacity { try book.save(scene("s\(k)")) }
        #expect(book.count == 128)
        #expect(throws: ControlError.self) { try book.save(scene("one-more")) }
        #expect(book.scene(named: "one-more") == nil)
        try book.save(scene("s7", [("pan", 1)]))
        #expect(book.scene(named: "s7")?.members == [SceneMember(parameter: "pan", value: 1)])
        #expect(book.count == 128)
    }

    @Test func previousIsParamdsOwn() {
        var book = SceneBook()
        #expect(throws: ControlError.self) { try book.save(scene("_previous")) }
        #expect(throws: ControlError.self) { try book.delete("_previous") }
        book.setPrevious([SceneMember(parameter: "volume", value: 0.2)])
        #expect(book.scene(named: "_previous")?.members.first?.value == 0.2)
        #expect(book.count == 0)
        #expect(book.all.map(\.name) == ["_previous"])
    }

    @Test func aSavedSceneReplacesAConfigSceneUntilDeleted() throws {
        var book = SceneBook()
        book.replaceConfigured([scene("dark", [("volume", 0.3)])])
        try book.save(scene("dark", [("volume", 0.9)]))
        #expect(book.scene(named: "dark")?.members.first?.value == 0.9)
        #expect(book.count == 1)
        try book.delete("dark")
        #expect(book.scene(named: "dark")?.members.first?.value == 0.3)
        try book.delete("dark")
        #expect(book.scene(named: "dark") == nil)
        #expect(throws: ControlError.self) { try book.delete("dark") }
        // Reading the config file again brings its scenes back.
        book.replaceConfigured([scene("dark", [("volume", 0.3)])])
        #expect(book.scene(named: "dark") != nil)
    }

    @Test func listIsSortedByNameAndSavedScenesAreKeptSorted() throws {
        var book = SceneBook()
        book.replaceConfigured([scene("zeta"), scene("alpha")])
        try book.save(scene("mid"))
        #expect(book.all.map(\.name) == ["alpha", "mid", "zeta"])
        #expect(book.savedScenes.map(\.name) == ["mid"])
    }

    @Test func restoringSkipsWhatCannotBeAScene() {
        var book = SceneBook()
        book.restoreSaved([scene("ok"), scene("Bad"), scene("_previous"), Scene(name: "empty", members: [])])
        #expect(book.all.map(\.name) == ["ok"])
    }

    @Test func aSceneWithoutAnActionRecallsOverOneSecondAlongDefault() {
        #expect(scene("a").recallAction == DefaultAction(seconds: 1, curve: .default))
        var s = scene("b")
        s.defaultAction = DefaultAction(seconds: 4, curve: .easeInEaseOut)
        #expect(s.recallAction.seconds == 4)
    }
}
