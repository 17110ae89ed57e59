// swift-tools-version: 6.1
import PackageDescription

import class Foundation.ProcessInfo

// Intermission: HLS Interstitials end to end.
//
// Dependencies point one way:
//   HLSPlaylist <- HLSInterstitials <- InterstitialPlayback / AdInsertion <- IntermissionServer <- IntermissionCLI
// The two core modules (HLSPlaylist, HLSInterstitials) use the standard library only.
//
// Every target declares exactly the modules its sources import (checked with
// `swift build --build-tests --explicit-target-dependency-import-check error`), and every floor is
// the lowest version of the package that builds this package and passes its tests. The mirror
// holds one version of most packages; of Yams it holds 5.0.1 and 6.2.2, and both build and pass,
// so Yams takes a range across the two majors (`from:` would stop below 6).
//
// Environment switches (development only):
//   INTERMISSION_CORE_ONLY=1  the core modules and their tests only, with no package dependencies,
//                             so they build and test in seconds (`INTERMISSION_CORE_ONLY=1 swift test`).
//   INTERMISSION_FUZZ=1       adds the `intermission-fuzz` libFuzzer target (see README, "Fuzzing").
//   INTERMISSION_STRICT=1     compiles this package's own targets with warnings as errors
//                             (package dependencies keep their warnings); CI sets it (scripts/ci).

let environment = ProcessInfo.processInfo.environment
let coreOnly = environment["INTERMISSION_CORE_ONLY"] != nil
let fuzz = environment["INTERMISSION_FUZZ"] != nil
let strict = environment["INTERMISSION_STRICT"] != nil

let swiftSettings: [SwiftSetting] =
    [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ] + (strict ? [.unsafeFlags(["-warnings-as-errors"])] : [])

var products: [Product] = [
    .library(name: "HLSPlaylist", targets: ["HLSPlaylist"]),
    .library(name: "HLSInterstitials", targets: ["HLSInterstitials"]),
]

var dependencies: [Package.Dependency] = []

var targets: [Target] = [
    .target(
        name: "HLSPlaylist",
        swiftSettings: swiftSettings,
        linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]
    ),
    .target(name: "HLSInterstitials", dependencies: ["HLSPlaylist"], swiftSettings: swiftSettings),
    // Shared by the test targets: the seeded generator and the fixture loader (Tests/Fixtures).
    .target(
        name: "IntermissionTestSupport",
        dependencies: ["HLSPlaylist"],
        path: "Tests/TestSupport",
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "HLSPlaylistTests",
        dependencies: ["HLSPlaylist", "IntermissionTestSupport"],
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "HLSInterstitialsTests",
        dependencies: ["HLSInterstitials", "HLSPlaylist", "IntermissionTestSupport"],
        swiftSettings: swiftSettings
    ),
]

if !coreOnly {
    products += [
        .library(name: "HTTPFetch", targets: ["HTTPFetch"]),
        .library(name: "InterstitialPlayback", targets: ["InterstitialPlayback"]),
        .library(name: "GroupPlayback", targets: ["GroupPlayback"]),
        .library(name: "AdInsertion", targets: ["AdInsertion"]),
        .library(name: "IntermissionServer", targets: ["IntermissionServer"]),
        .executable(name: "intermission", targets: ["IntermissionCLI"]),
    ]
    dependencies += [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams.git", "5.0.1"..<"7.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
    ]
    targets += [
        .target(
            name: "HTTPFetch",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "InterstitialPlayback",
            dependencies: [
                "HLSInterstitials",
                "HLSPlaylist",
                "HTTPFetch",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Coordinated playback (issue 12): the decisions (clock, timeline, hub, participant) are value
        // types; PlaybackCoordinator attaches them to a Player over a WebSocket.
        .target(
            name: "GroupPlayback",
            dependencies: [
                "HLSPlaylist",
                "HLSInterstitials",
                "InterstitialPlayback",
                "HTTPFetch",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AdInsertion",
            dependencies: [
                "HLSInterstitials",
                "HLSPlaylist",
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "IntermissionServer",
            dependencies: [
                "AdInsertion",
                "GroupPlayback",
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                "HLSPlaylist",
                "HLSInterstitials",
                "HTTPFetch",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["Demo/make.sh", "Demo/README.md"],
            resources: [.copy("Demo")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "IntermissionCLI",
            dependencies: [
                "GroupPlayback",
                "HLSPlaylist",
                "HLSInterstitials",
                "HTTPFetch",
                "InterstitialPlayback",
                "IntermissionServer",
                "AdInsertion",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "InterstitialPlaybackTests",
            dependencies: [
                "InterstitialPlayback",
                "HLSInterstitials",
                "HLSPlaylist",
                "IntermissionTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HTTPFetchTests",
            dependencies: [
                "HTTPFetch", "IntermissionTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GroupPlaybackTests",
            dependencies: [
                "AdInsertion",
                "GroupPlayback",
                "HLSPlaylist",
                "HLSInterstitials",
                "InterstitialPlayback",
                "IntermissionServer",
                "IntermissionTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AdInsertionTests",
            dependencies: ["AdInsertion", "HLSInterstitials", "HLSPlaylist", "IntermissionTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IntermissionServerTests",
            dependencies: [
                "IntermissionServer",
                "AdInsertion",
                "GroupPlayback",
                "HTTPFetch",
                "HLSInterstitials",
                "HLSPlaylist",
                "IntermissionTestSupport",
                "InterstitialPlayback",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IntermissionCLITests",
            // The tests run the `intermission` binary (the dependency makes `swift build
            // --build-tests` build it first) and share the test-support target.
            dependencies: ["IntermissionCLI", "IntermissionTestSupport"],
            swiftSettings: swiftSettings
        ),
    ]
}

if fuzz {
    targets.append(
        .executableTarget(
            name: "HLSPlaylistFuzz",
            dependencies: ["HLSPlaylist", "HLSInterstitials"],
            path: "Fuzz/HLSPlaylistFuzz",
            // Build with `-Xswiftc -sanitize=fuzzer,address` so the parser is instrumented too
            // (scripts/fuzz.sh); libFuzzer provides `main`.
            swiftSettings: swiftSettings + [.unsafeFlags(["-parse-as-library"])]
        )
    )
    products.append(.executable(name: "intermission-fuzz", targets: ["HLSPlaylistFuzz"]))
}

let package = Package(
    name: "Intermission",
    platforms: [.macOS(.v15)],
    products: products,
    dependencies: dependencies,
    targets: targets
)
