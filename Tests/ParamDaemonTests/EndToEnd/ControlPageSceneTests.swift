import Foundation
import ParamCore
import Testing

/// The page's scene strip (SPEC §13's page point) in headless Chromium
/// (Tests/Support/control_page.py, scenario `scenes`): the strip is drawn from paramd's
/// `/scene/list` reply, and what each control sends is read off the page's WebSocket as OSC.
@Suite(.serialized, .jackServer(rate: 48000, period: 256))
struct ControlPageSceneTests {
    typealias Sent = [ControlPage.JSONScalar]

    struct Strip: Decodable {
        struct Button: Decodable { var scene: String; var text: String }
        var hidden: Bool
        var visible: Bool
        var buttons: [Button]
        var from: [String]
        var to: [String]
        var nameInvalid: Bool
    }

    struct Message: Decodable, CustomStringConvertible {
        var address: String
        var arguments: [ControlPage.JSONScalar]
        init(from decoder: Decoder) throws {
            var c = try decoder.unkeyedContainer()
            address = try c.decode(String.self)
            arguments = try c.decode([ControlPage.JSONScalar].self)
        }
        var description: String { ([address] + arguments.map(\.description)).joined(separator: " ") }
    }

    struct BadSave: Decodable { var sent: [Message]; var strip: Strip }

    struct Result: Decodable {
        var sentAtConnect: [Message]
        var listAnswer: [Message]
        var stripAfterAnswer: Strip
        var strip: Strip
        var recallDefault: [Message]
        var duration: String
        var recall: [Message]
        var notesAfterRecall: [ControlPage.Note]
        var badSave: BadSave
        var save: [Message]
        var fieldAfterSave: String
        var listAnswerAfterSave: [Message]
        var stripAfterSave: Strip
        var morph: [Message]
        var release: [Message]
        var pickersAfterRelease: [String]
        var narrow: ControlPage.Narrow
        var console: [[String: ControlPage.JSONScalar]]
    }

    @Test func theStripIsDrawnFromTheSceneListAndSendsWhatSpec13Names() async throws {
        let server = try JackServer.required()
        try ControlPage.requireBrowser()
        let paramd = try await ControlPage.Daemon.start(server: server, name: "paramd-ui-scenes")
        let out = TestDirectory.file("ui-scenes") + ".json"
        try await ControlPage.run("scenes", url: paramd.url, out: out,
                                  extra: ["--screenshot", try ControlPage.artifact("ui-scenes.png")])
        #expect(try await paramd.stop() == .exited(0))
        let r = try JSONDecoder().decode(Result.self, from: Data(contentsOf: URL(fileURLWithPath: out)))
        TestLog.write("scene strip: at connect \(r.sentAtConnect), paramd answered \(r.listAnswer); recall \(r.recallDefault) and \(r.recall); "
                      + "save \(r.save); morph \(r.morph); release \(r.release); notes \(r.notesAfterRecall.map { "\($0.title): \($0.text)" })")

        #expect(r.sentAtConnect.map(\.address) == ["/scene/list"], "the page asks for the list when it connects")
        // paramd's own answer: a paramd without scenes refuses /scene/list, and the strip stays
        // hidden; a list (even empty) shows it.
        let refused = r.listAnswer.contains { $0.address == "/error" }
        #expect(refused || r.listAnswer.contains { $0.address == "/scene/list/end" }, "paramd answered /scene/list: \(r.listAnswer)")
        #expect(r.stripAfterAnswer.hidden == refused && r.stripAfterAnswer.visible == !refused, "\(r.stripAfterAnswer)")
        // The list handed over as paramd's reply: a button per scene, `_previous` as undo, the pickers.
        #expect(!r.strip.hidden && r.strip.visible)
        #expect(r.strip.buttons.map(\.scene) == ["dark", "bright", "_previous"])
        #expect(r.strip.buttons.map(\.text) == ["dark3", "bright2", "undo5"], "name and member count")
        #expect(r.strip.from == ["", "dark", "bright"] && r.strip.to == ["", "dark", "bright"], "morph pickers: \(r.strip.from)")

        // Recall with the page's curve and duration: none chosen is the scene's own action.
        #expect(r.recallDefault.map(\.description) == ["/scene/recall bright"])
        #expect(r.duration == "3.00 s")
        #expect(r.recall.map(\.description) == ["/scene/recall dark 3.0 easeInOutCubic"])
        // paramd's answer to that recall (a scene it does not have, or an address it does not
        // know yet) shows as a note about /scene/recall.
        #expect(r.notesAfterRecall.contains { $0.kind == "error" && $0.title == "/scene/recall" }, "\(r.notesAfterRecall)")

        #expect(r.badSave.sent.isEmpty && r.badSave.strip.nameInvalid, "a name paramd would refuse is not sent: \(r.badSave.sent)")
        #expect(r.save.map(\.description) == ["/scene/save look-1", "/scene/list"], "save, then the list again")
        #expect(r.fieldAfterSave.isEmpty)
        #expect(r.listAnswerAfterSave.count == 1, "paramd answered the list asked for after the save: \(r.listAnswerAfterSave)")
        #expect(r.stripAfterSave.buttons.map(\.scene) == ["dark", "bright", "look-1"], "the strip drawn from the new list")
        #expect(r.morph.map(\.description) == ["/scene/morph dark bright"])
        #expect(r.release.map(\.description) == ["/scene/release"])
        #expect(r.pickersAfterRelease == ["", ""])
        #expect(r.narrow.scrollWidth <= r.narrow.clientWidth, "no horizontal scroll at 375 px: \(r.narrow)")
        #expect(r.console.isEmpty, "no errors in the browser console: \(r.console)")
    }
}
