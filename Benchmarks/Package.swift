// swift-tools-version: 6.1
// Benchmarks for Intermission, kept out of the root package so the library never depends on the
// harness. Run with the core-only switch so the root's server dependencies are not built:
//
//   cd Benchmarks && INTERMISSION_CORE_ONLY=1 swift package benchmark
//   ../scripts/bench-parse.sh        (our parser vs Python's m3u8, same run, with the ratio)
import PackageDescription

let package = Package(
    name: "IntermissionBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Intermission", path: "../"),
        .package(url: "https://github.com/ordo-one/package-benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(
            name: "BenchmarkSupport",
            dependencies: [.product(name: "HLSPlaylist", package: "Intermission")],
            path: "Sources/BenchmarkSupport"
        ),
        .executableTarget(
            name: "PlaylistBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "HLSPlaylist", package: "Intermission"),
                .product(name: "HLSInterstitials", package: "Intermission"),
            ],
            path: "Benchmarks/PlaylistBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
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
