import ParamSystem
import Testing

/// Reading `/proc/self/maps` for the futexes libjack holds (pure logic, on text in its form).
struct LibjackWakeSlotsTests {
    static let maps = """
        00400000-00452000 r--p 00000000 08:01 131 /usr/bin/paramd
        7f0000001000-7f0000002000 rw-s 00000000 00:19 4001                       /dev/shm/jack_sem.0_studio_paramd
        7f0000002000-7f0000003000 rw-s 00000000 00:19 4002                       /dev/shm/jack_sem.0_studio_system
        7f0000003000-7f0000004000 rw-s 00000000 00:19 4003                       /dev/shm/jack_sem.0_studio_lsp (deleted)
        7f0000004000-7f0000005000 rw-s 00000000 00:19 4004                       /dev/shm/jack_sem.0_studio_my synth_1
        7f0000005000-7f0000006000 rw-s 00000000 00:19 4005                       /dev/shm/jack_sem.0_studio-b_ardour
        7f0000006000-7f0000007000 rw-s 00000000 00:19 4006                       /dev/shm/jack_sem.1000_studio_qjackctl
        7f0000007000-7f0000008000 rw-p 00000000 00:00 0
        7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
        not a mapping
        """

    @Test func mappingsKeepTheirPathsWithSpacesAndSayWhichWereUnlinked() {
        let mappings = ProcessMappings.parse(Self.maps)
        #expect(mappings.count == 9)
        #expect(mappings[0] == ProcessMapping(addresses: 0x400000..<0x452000, permissions: "r--p", path: "/usr/bin/paramd", isDeleted: false, inode: 131))
        #expect(mappings[0].isFile && mappings[0].isReadOnly)
        #expect(mappings[3].path == "/dev/shm/jack_sem.0_studio_lsp" && mappings[3].isDeleted)
        #expect(mappings[4].path == "/dev/shm/jack_sem.0_studio_my synth_1" && !mappings[4].isDeleted)
        #expect(mappings[7].path.isEmpty && !mappings[7].isFile)
        #expect(mappings[8].path == "[stack]" && !mappings[8].isFile && !mappings[8].isReadOnly)
    }

    @Test func theSlotsHeldAreTheOtherClientsOfThatServerForThatUser() throws {
        let held = try #require(LibjackWakeSlots.held(in: ProcessMappings.parse(Self.maps), server: "studio",
                                                      ownName: "paramd", uid: 0, environment: [:]))
        #expect(held.map { $0.client } == ["system", "lsp", "my synth_1"])
        #expect(held.map { $0.unlinked } == [false, true, false])
        #expect(held.map { $0.inode } == [4002, 4003, 4004])
    }

    @Test func withoutAFutexOfItsOwnNothingIsRead() {
        let mappings = ProcessMappings.parse(Self.maps)
        // PipeWire's libjack maps none; another user's or server's slots are not this client's.
        #expect(LibjackWakeSlots.held(in: mappings, server: "studio", ownName: "paramd-2", uid: 0, environment: [:]) == nil)
        #expect(LibjackWakeSlots.held(in: mappings, server: "studio", ownName: "paramd", uid: 1000, environment: [:]) == nil)
        #expect(LibjackWakeSlots.held(in: ProcessMappings.parse("7f0000001000-7f0000002000 rw-s 00000000 00:19 4001 /dev/shm/jack_sem.0_studio_paramd (deleted)"),
                                      server: "studio", ownName: "paramd", uid: 0, environment: [:]) == nil)
    }

    @Test func aPromiscuousServersFutexesHaveNoUserAndSlashesInNamesAreUnderscores() throws {
        let maps = """
            7f0000001000-7f0000002000 rw-s 00000000 00:19 4001 /dev/shm/jack_sem.shared_a_b
            7f0000002000-7f0000003000 rw-s 00000000 00:19 4002 /dev/shm/jack_sem.shared_rec (deleted)
            """
        let held = try #require(LibjackWakeSlots.held(in: ProcessMappings.parse(maps), server: "shared", ownName: "a/b",
                                                      uid: 0, environment: ["JACK_PROMISCUOUS_SERVER": "audio"]))
        #expect(held.map { $0.client } == ["rec"] && held.map { $0.unlinked } == [true])
    }

    @Test func theServerIsTheOneNamedThenJACK_DEFAULT_SERVERThenDefault() {
        #expect(LibjackWakeSlots.serverName("studio", environment: ["JACK_DEFAULT_SERVER": "x"]) == "studio")
        #expect(LibjackWakeSlots.serverName("", environment: ["JACK_DEFAULT_SERVER": "x"]) == "x")
        #expect(LibjackWakeSlots.serverName(nil, environment: [:]) == "default")
    }
}
