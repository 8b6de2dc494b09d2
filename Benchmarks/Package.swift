// swift-tools-version: 6.1
// Render benchmarks (`make bench`) and the curve-plot data tool (`make plots`), kept out of
// the main package so that its build, tests and CI never pay for the benchmark framework.
import PackageDescription

// A package reached by path is known by its folder's name (`paramd`, `main`, a worktree's…),
// not by its manifest's name, so the root package's identity is read from where this one lies.
let root = Context.packageDirectory.split(separator: "/").dropLast().last.map { String($0).lowercased() } ?? "paramd"

let package = Package(
    name: "paramd-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        // Only the malloc interposer: the default RuntimeInterposer trait would pull in
        // swift-runtime-interposer, which the project does not use.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The C kernel: the same per-sample math in plain C, -O2, the floor the Swift render is
        // read against (docs/PERFORMANCE.md).
        .target(
            name: "CKernel",
            cSettings: [.unsafeFlags(["-O2"])]),
        // What the benchmarks render: a renderer driven period by period, and the scenarios.
        .target(
            name: "RenderScenarios",
            dependencies: ["CKernel", .product(name: "ParamCore", package: root)]),
        // Benchmark executables must live in a folder named Benchmarks (the plugin finds them there).
        .executableTarget(
            name: "RenderBenchmarks",
            dependencies: [
                "RenderScenarios",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/RenderBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
        // 64 parameters with modulators, rendered a period at a time (SPEC §15's cost goal).
        .target(
            name: "ModulatorScenarios",
            dependencies: ["CKernel", .product(name: "ParamCore", package: root)]),
        .executableTarget(
            name: "ModulatorBenchmarks",
            dependencies: [
                "ModulatorScenarios",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/ModulatorBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
        // LTC decoded a period at a time (SPEC §18's cost goal), and libltc alone: the C floor.
        .target(
            name: "CTimecodeFloor",
            linkerSettings: [.linkedLibrary("ltc")]),
        .target(
            name: "TimecodeScenarios",
            dependencies: ["CTimecodeFloor", .product(name: "ParamCore", package: root), .product(name: "ParamLTC", package: root)]),
        .executableTarget(
            name: "TimecodeBenchmarks",
            dependencies: [
                "TimecodeScenarios",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/TimecodeBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
        // One scenario rendered without the framework, for callgrind (docs/PERFORMANCE.md).
        .executableTarget(
            name: "RenderProfile",
            dependencies: ["RenderScenarios", "ModulatorScenarios"]),
        // Renders every curve through the engine and prints CSV for scripts/plot-curves.sh.
        .executableTarget(
            name: "CurveData",
            dependencies: [.product(name: "ParamCore", package: root)]),
    ],
    swiftLanguageModes: [.v6]
)
