// swift-tools-version: 6.1
import PackageDescription

// `@_noLocks` is proven by a mandatory pass that needs to see the bodies of everything the
// audio path calls. In a debug build SwiftPM compiles files separately, hiding bodies in
// other files, so the realtime modules are compiled whole-module in every configuration.
// `-function-sections` gives every function, not only public ones, a section of its own, so
// that the linker can lay the audio path out together (ParamDaemon's `audio-path.order`).
let realtimeChecked: [SwiftSetting] = [.unsafeFlags(["-wmo", "-num-threads", "2", "-Xfrontend", "-function-sections"])]

let package = Package(
    name: "paramd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "paramd", targets: ["ParamDaemon"]),
        .executable(name: "paramd-jacktool", targets: ["JackTool"]),
        .executable(name: "paramd-linkprobe", targets: ["LinkProbe"]),
        .library(name: "ParamCore", targets: ["ParamCore"]),
        .library(name: "ParamLTC", targets: ["ParamLTC"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
        // HTTP, WebSocket and OSCQuery (SPEC §9): one event-loop thread (docs/ARCHITECTURE.md).
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
    ],
    targets: [
        .systemLibrary(
            name: "CJack", pkgConfig: "jack",
            providers: [.apt(["libjack-jackd2-dev"])]),
        .systemLibrary(
            name: "CLiblo", pkgConfig: "liblo",
            providers: [.apt(["liblo-dev"])]),
        // Zeroconf through the Avahi daemon (SPEC §9).
        .systemLibrary(
            name: "CAvahi", pkgConfig: "avahi-client",
            providers: [.apt(["libavahi-client-dev"])]),
        // Tokens beyond loopback (SPEC §16): random bits and a constant-time comparison.
        .systemLibrary(
            name: "CSodium", pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]),
        // The QR code of `paramd --show-url` (SPEC §16).
        .systemLibrary(
            name: "CQRencode", pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]),
        // Timecode (SPEC §18): libltc decodes `ltc_in`; the test tool encodes with it.
        .systemLibrary(
            name: "CLTC", pkgConfig: "ltc",
            providers: [.apt(["libltc-dev"])]),
        // Linux calls Glibc's module leaves out (eventfd, signalfd, prctl, gettid).
        .systemLibrary(name: "CLinux"),
        // Pure Swift: curves, animation engine, renderer, rings, OSC codec, routes.
        .target(name: "ParamCore", swiftSettings: realtimeChecked),
        // The OS layer: UDP sockets and their addresses, eventfd, ppoll, name resolution, and
        // JACK's client, port and connection calls (not its audio-path ones).
        // Realtime-checked too: the audio thread signals an eventfd through it.
        .target(name: "ParamSystem", dependencies: ["CLinux", "CJack"], swiftSettings: realtimeChecked),
        // LTC decoded with libltc (SPEC §18), for the process callback and the benchmarks.
        .target(name: "ParamLTC", dependencies: ["ParamCore", "CLTC"], swiftSettings: realtimeChecked),
        .executableTarget(
            name: "ParamDaemon",
            dependencies: [
                "ParamCore", "ParamSystem", "ParamLTC", "CJack", "CLinux", "CAvahi", "CSodium", "CQRencode", "CLinkBridge",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            // The control page (SPEC §9), compiled into the binary: nothing is read at run time.
            exclude: ["Jack/audio-path.order"],
            resources: [.embedInCode("UI/index.html"), .embedInCode("UI/app.css"), .embedInCode("UI/app.js"),
                        .embedInCode("UI/osc.js"), .embedInCode("UI/curves.js"), .embedInCode("UI/scale.js"),
                        .embedInCode("UI/state.js"), .embedInCode("UI/timeline.js"), .embedInCode("UI/namespace.js"),
                        .embedInCode("UI/sliders.js"), .embedInCode("UI/messages.js"), .embedInCode("UI/toasts.js"),
                        .embedInCode("UI/plot.js"), .embedInCode("UI/motion.js"), .embedInCode("UI/scenes.js"),
                        .embedInCode("UI/modulators.js"), .embedInCode("UI/connection.js"), .embedInCode("UI/takes.js"),
                        .embedInCode("UI/timecode.js")],
            swiftSettings: realtimeChecked,
            // The functions each JACK period runs, laid out together (gold; Swift emits a
            // section per function): a period touches a few code pages, not one per function
            // scattered over 700 KB (docs/PERFORMANCE.md, "Cold memory").
            // `-z now` binds paramd's own imports at load, so no period's first call out of paramd
            // runs the dynamic linker's lazy binding on the JACK thread.
            linkerSettings: [.unsafeFlags(["-Xlinker", "--section-ordering-file=\(Context.packageDirectory)/Sources/ParamDaemon/Jack/audio-path.order",
                                           "-Xlinker", "-z", "-Xlinker", "now"],
                                          .when(platforms: [.linux]))]),
        // Test JACK client: feeds constant signals into ports and records ports to files.
        .executableTarget(
            name: "JackTool",
            dependencies: [
                "ParamCore", "ParamSystem", "ParamLTC", "CJack",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // Ableton Link (SPEC §14) behind a C ABI of paramd's own: Debian's ableton-link-dev
        // (C++ headers) and libasio-dev. docs/DEPENDENCIES.md.
        .target(
            name: "CLinkBridge",
            cxxSettings: [.define("LINK_PLATFORM_LINUX", to: "1", .when(platforms: [.linux]))],
            linkerSettings: [.linkedLibrary("pthread"), .linkedLibrary("atomic")]),
        // A Link peer over stdin and stdout, for the tests that join a session (Tests/README.md).
        .executableTarget(name: "LinkProbe", dependencies: ["CLinkBridge", "ParamSystem", "CJack"]),
        .testTarget(name: "ParamCoreTests", dependencies: ["ParamCore"]),
        .testTarget(name: "ParamDaemonTests", dependencies: ["ParamCore", "ParamSystem", "CLiblo"]),
    ],
    swiftLanguageModes: [.v6]
)
