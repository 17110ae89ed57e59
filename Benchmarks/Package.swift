// swift-tools-version: 6.1
// Benchmarks for Intermission, kept out of the root package so the library never depends on the
// harness. Run with the core-only switch so the root's server dependencies are not built:
//
//   cd Benchmarks && INTERMISSION_CORE_ONLY=1 swift package benchmark
//   ../scripts/bench-parse.sh        (our parser vs Python's m3u8, same run, with the ratio)
//   ../scripts/bench-viewers.sh      (live viewers in one process; ViewerLoad needs the full
//                                     package, so it exists only without INTERMISSION_CORE_ONLY)
//   ../scripts/bench-decorate.sh     (the decoration pipeline; DecorateSpeed and the
//                                     DecorationBenchmarks need AdInsertion: full package only)
//   ../scripts/ci/benchmarks.sh      (the CI gate: five benchmarks, EngineBenchmarks among them,
//                                     so the full package, checked against Thresholds/<toolchain>/)
//   ../scripts/ci/instructions.sh    (the same five workloads in InstructionProbe, their
//                                     instructions counted by callgrind: full package too)
import PackageDescription

import class Foundation.ProcessInfo

/// A package-benchmark suite: the executable target `Benchmarks/<name>`, with package-benchmark, the
/// gate's configuration (BenchmarkGate) and the benchmark plugin, and `dependencies` besides.
func benchmarkSuite(_ name: String, dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["BenchmarkGate", .product(name: "Benchmark", package: "package-benchmark")] + dependencies,
        path: "Benchmarks/\(name)",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
    )
}

let package = Package(
    name: "IntermissionBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Intermission", path: "../"),
        .package(
            url: "https://github.com/ordo-one/package-benchmark.git",
            from: "1.38.1",
            traits: ["MallocInterposer"]
        ),
    ],
    targets: [
        .target(
            name: "BenchmarkSupport",
            dependencies: [
                .product(name: "HLSInterstitials", package: "Intermission"),
                .product(name: "HLSPlaylist", package: "Intermission"),
            ],
            path: "Sources/BenchmarkSupport"
        ),
        // The configuration of the benchmarks that gate CI (apart from BenchmarkSupport, so that the
        // hand-made speed executables do not link package-benchmark and its malloc interposer).
        .target(
            name: "BenchmarkGate",
            dependencies: [.product(name: "Benchmark", package: "package-benchmark")],
            path: "Sources/BenchmarkGate"
        ),
        benchmarkSuite(
            "PlaylistBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "HLSPlaylist", package: "Intermission"),
                .product(name: "HLSInterstitials", package: "Intermission"),
            ]
        ),
        .executableTarget(
            name: "ScheduleSpeed",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "HLSPlaylist", package: "Intermission"),
                .product(name: "HLSInterstitials", package: "Intermission"),
            ],
            path: "Sources/ScheduleSpeed"
        ),
        .executableTarget(
            name: "ParseSpeed",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "HLSPlaylist", package: "Intermission"),
            ],
            path: "Sources/ParseSpeed"
        ),
    ]
)

/// The products of the root package that the decision and player workloads use.
let engineProducts: [Target.Dependency] = [
    .product(name: "AdInsertion", package: "Intermission"),
    .product(name: "HLSInterstitials", package: "Intermission"),
    .product(name: "HLSPlaylist", package: "Intermission"),
    .product(name: "InterstitialPlayback", package: "Intermission"),
]

if ProcessInfo.processInfo.environment["INTERMISSION_CORE_ONLY"] == nil {
    package.dependencies += [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ]
    package.targets += [
        .executableTarget(
            name: "ViewerLoad",
            dependencies: [
                .product(name: "InterstitialPlayback", package: "Intermission"),
                .product(name: "ViewerLoadSupport", package: "Intermission"),
                .product(name: "HLSPlaylist", package: "Intermission"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Sources/ViewerLoad"
        ),
        .target(
            name: "DecorationSupport",
            dependencies: [
                .product(name: "AdInsertion", package: "Intermission"),
                .product(name: "HLSInterstitials", package: "Intermission"),
                .product(name: "HLSPlaylist", package: "Intermission"),
            ],
            path: "Sources/DecorationSupport"
        ),
        .executableTarget(
            name: "DecorateSpeed",
            dependencies: ["BenchmarkSupport", "DecorationSupport"],
            path: "Sources/DecorateSpeed"
        ),
        benchmarkSuite("DecorationBenchmarks", dependencies: ["BenchmarkSupport", "DecorationSupport"]),
        // The inputs of the asset-list decision (AdInsertion, in-memory store) and of one pass of the
        // player's run loop (InterstitialPlayback, in-memory loader).
        .target(
            name: "EngineSupport",
            dependencies: engineProducts,
            path: "Sources/EngineSupport"
        ),
        // Both gated in CI.
        benchmarkSuite(
            "EngineBenchmarks",
            dependencies: ["EngineSupport"] + engineProducts
        ),
        // The five gated workloads, run N times under `valgrind --tool=callgrind` to count their
        // instructions (scripts/ci/instructions.sh): no package-benchmark, no malloc interposer.
        .executableTarget(
            name: "InstructionProbe",
            dependencies: ["BenchmarkSupport", "DecorationSupport", "EngineSupport"] + engineProducts,
            path: "Sources/InstructionProbe"
        ),
    ]
}
