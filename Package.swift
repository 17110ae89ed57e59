// swift-tools-version: 6.1
import PackageDescription

import class Foundation.ProcessInfo

// Intermission: HLS Interstitials end to end.
//
// Dependencies point one way:
//   HLSPlaylist <- HLSInterstitials <- InterstitialPlayback / AdInsertion <- IntermissionServer <- IntermissionCLI
//   InterstitialPlayback <- ViewerLoadSupport (the load generator's loader and clock, for Benchmarks)
//   AdInsertion <- IntermissionStore (storage protocols) <- IntermissionSQLite, IntermissionPostgres <- IntermissionServer
//   HLSInterstitials <- GroupCoordination <- IntermissionServer, GroupPlayback (with InterstitialPlayback)
//   IntermissionHTTP (the servers' HTTP plumbing) <- IntermissionServer, ReceiverServer (with GroupPlayback)
//   IntermissionServer, ReceiverServer <- IntermissionCLI
// The two core modules (HLSPlaylist, HLSInterstitials) and GroupCoordination use the standard
// library only.
//
// Every target declares exactly the modules its sources import (checked with
// `swift build --build-tests --explicit-target-dependency-import-check error`), and every floor is
// the lowest version of the package that builds this package and passes its tests. The mirror
// holds one version of most packages; of Yams it holds 5.0.1 and 6.2.2, and both build and pass,
// so Yams takes a range across the two majors (`from:` would stop below 6).
//
// A package that depends on this one chooses what it resolves with the traits below. The
// environment switches are for working in this repository only (a dependent cannot set them):
//   INTERMISSION_CORE_ONLY=1  the core modules and their tests only, so they build and test in
//                             seconds (`INTERMISSION_CORE_ONLY=1 swift test`): a trait can leave a
//                             dependency out, but not a target, and the test runner builds every
//                             test target.
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

// Package traits: what a package that depends on this one resolves and builds.
//   Playback  the player modules (HTTPFetch, InterstitialPlayback, GroupPlayback, ViewerLoadSupport)
//             and their networking dependencies (AsyncHTTPClient, SwiftNIO, the WebSocket client).
//   Server    the servers and the CLI (IntermissionHTTP, IntermissionServer, ReceiverServer,
//             IntermissionCLI) and theirs (Hummingbird, GRDB, swift-crypto, ...); enables Playback.
//             On by default.
//   PostgreSQL  the PostgreSQL store (IntermissionPostgres, postgres-nio); enables Server. On by
//             default; a SQLite deployment (`traits: ["Server"]`) links no postgres-nio.
// With no trait, only the core (HLSPlaylist, HLSInterstitials) and GroupCoordination are usable,
// and SwiftPM resolves no package dependency at all: `.package(url: ..., from: ..., traits: [])`.
// A trait-conditioned dependency is only left out of resolution, so the root package itself builds
// every target with the default trait; scripts/ci/core-alone.sh proves it with a scratch package.
let playbackTrait = "Playback"
let serverTrait = "Server"
let postgresTrait = "PostgreSQL"

/// A product of a package dependency that a player module uses, resolved only with `Playback`.
func playbackProduct(_ name: String, _ package: String) -> Target.Dependency {
    .product(name: name, package: package, condition: .when(traits: [playbackTrait]))
}

/// A product of a package dependency that the server, the CLI or a test target uses, resolved only
/// with `Server`.
func serverProduct(_ name: String, _ package: String) -> Target.Dependency {
    .product(name: name, package: package, condition: .when(traits: [serverTrait]))
}

/// A product of a package dependency that the PostgreSQL store uses, resolved only with `PostgreSQL`.
func postgresProduct(_ name: String, _ package: String) -> Target.Dependency {
    .product(name: name, package: package, condition: .when(traits: [postgresTrait]))
}

var products: [Product] = [
    .library(name: "HLSPlaylist", targets: ["HLSPlaylist"]),
    .library(name: "HLSInterstitials", targets: ["HLSInterstitials"]),
    .library(name: "GroupCoordination", targets: ["GroupCoordination"]),
]

var dependencies: [Package.Dependency] = []

var targets: [Target] = [
    .target(
        name: "HLSPlaylist",
        swiftSettings: swiftSettings,
        linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]
    ),
    .target(name: "HLSInterstitials", dependencies: ["HLSPlaylist"], swiftSettings: swiftSettings),
    // The one place that starts child processes (posix_spawn), for the server's tools and the tests.
    .target(name: "ProcessSpawn", swiftSettings: swiftSettings),
    // The decisions of coordinated playback (clock, timeline, hub, participant, wire messages):
    // value types on the core alone, so they build with no trait and no networking dependency.
    // GroupPlayback attaches them to a player; the server's groups attach them to WebSockets.
    .target(
        name: "GroupCoordination",
        dependencies: ["HLSInterstitials", "HLSPlaylist"],
        swiftSettings: swiftSettings
    ),
    // Shared by the test targets: the seeded generator and the fixture loader (Tests/Fixtures).
    .target(
        name: "IntermissionTestSupport",
        dependencies: ["HLSPlaylist", "ProcessSpawn"],
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
    .testTarget(
        name: "GroupCoordinationTests",
        dependencies: ["GroupCoordination", "HLSPlaylist", "IntermissionTestSupport"],
        swiftSettings: swiftSettings
    ),
]

if !coreOnly {
    products += [
        .library(name: "HTTPFetch", targets: ["HTTPFetch"]),
        .library(name: "InterstitialPlayback", targets: ["InterstitialPlayback"]),
        // For the Benchmarks package's ViewerLoad, which reaches this package through products only.
        .library(name: "ViewerLoadSupport", targets: ["ViewerLoadSupport"]),
        .library(name: "GroupPlayback", targets: ["GroupPlayback"]),
        .library(name: "AdInsertion", targets: ["AdInsertion"]),
        .library(name: "IntermissionServer", targets: ["IntermissionServer"]),
        .library(name: "ReceiverServer", targets: ["ReceiverServer"]),
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
                playbackProduct("AsyncHTTPClient", "async-http-client"),
                playbackProduct("NIOCore", "swift-nio"),
                playbackProduct("NIOHTTP1", "swift-nio"),
                playbackProduct("NIOPosix", "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "InterstitialPlayback",
            dependencies: [
                "HLSInterstitials",
                "HLSPlaylist",
                "HTTPFetch",
                playbackProduct("AsyncHTTPClient", "async-http-client"),
            ],
            swiftSettings: swiftSettings
        ),
        // The load generator's parts (Benchmarks/Sources/ViewerLoad): KeepAliveLoader, plain HTTP/1.1
        // on one event loop, and a playback clock that sleeps on that loop. Beside the player, not in
        // it: the player reaches the network through HTTPFetch and AsyncHTTPClient only.
        .target(
            name: "ViewerLoadSupport",
            dependencies: [
                "HLSPlaylist",
                "HTTPFetch",
                "InterstitialPlayback",
                playbackProduct("NIOCore", "swift-nio"),
                playbackProduct("NIOHTTP1", "swift-nio"),
                playbackProduct("NIOPosix", "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Coordinated playback's attachments: PlaybackCoordinator drives a Player from
        // GroupCoordination's decisions over a WebSocket; Receiver and ReceiverClient hand a
        // session over to a receiver.
        .target(
            name: "GroupPlayback",
            dependencies: [
                "GroupCoordination",
                "HLSPlaylist",
                "HLSInterstitials",
                "InterstitialPlayback",
                "HTTPFetch",
                playbackProduct("AsyncHTTPClient", "async-http-client"),
                playbackProduct("HummingbirdWSClient", "hummingbird-websocket"),
                playbackProduct("Logging", "swift-log"),
                playbackProduct("NIOCore", "swift-nio"),
                playbackProduct("NIOHTTP1", "swift-nio"),
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
        // Storage (issue 26): the protocols, the schema and the codecs the drivers share, and each
        // driver in a target of its own; the server reaches the PostgreSQL one only with its trait.
        .target(
            name: "IntermissionStore",
            dependencies: ["AdInsertion", "HLSInterstitials", "HLSPlaylist"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "IntermissionSQLite",
            dependencies: [
                "AdInsertion", "HLSInterstitials", "HLSPlaylist", "IntermissionStore",
                serverProduct("GRDB", "GRDB.swift"), serverProduct("SystemPackage", "swift-system"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "IntermissionPostgres",
            dependencies: [
                "AdInsertion", "HLSInterstitials", "HLSPlaylist", "IntermissionStore",
                postgresProduct("Logging", "swift-log"), postgresProduct("PostgresNIO", "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The HTTP plumbing both servers share (the ad-insertion server, the receiver app): JSON
        // errors, the request context, the guarded HTTP/1.1 channel, connection limits, CORS,
        // metrics. `package` access only, so no product.
        .target(
            name: "IntermissionHTTP",
            dependencies: [
                "HLSInterstitials",
                serverProduct("HTTPTypes", "swift-http-types"),
                serverProduct("Hummingbird", "hummingbird"),
                serverProduct("HummingbirdCore", "hummingbird"),
                serverProduct("Logging", "swift-log"),
                serverProduct("NIOCore", "swift-nio"),
                serverProduct("NIOHTTP1", "swift-nio"),
                serverProduct("Prometheus", "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),
        // The receiver app (`intermission receiver`): GroupPlayback's Receiver over HTTP.
        .target(
            name: "ReceiverServer",
            dependencies: [
                "GroupPlayback",
                "IntermissionHTTP",
                serverProduct("Hummingbird", "hummingbird"),
                serverProduct("Logging", "swift-log"),
                serverProduct("NIOCore", "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "IntermissionServer",
            dependencies: [
                "AdInsertion",
                "GroupCoordination",
                "IntermissionHTTP",
                serverProduct("HummingbirdWebSocket", "hummingbird-websocket"),
                "HLSPlaylist",
                "HLSInterstitials",
                "HTTPFetch",
                serverProduct("HTTPTypes", "swift-http-types"),
                serverProduct("Hummingbird", "hummingbird"),
                serverProduct("HummingbirdCore", "hummingbird"),
                serverProduct("AsyncHTTPClient", "async-http-client"),
                serverProduct("NIOCore", "swift-nio"),
                serverProduct("NIOHTTP1", "swift-nio"),
                serverProduct("NIOWebSocket", "swift-nio"),
                serverProduct("NIOPosix", "swift-nio"),
                serverProduct("NIOHTTPTypes", "swift-nio-extras"),
                serverProduct("_NIOFileSystem", "swift-nio"),
                "IntermissionStore",
                "IntermissionSQLite",
                .target(name: "IntermissionPostgres", condition: .when(traits: [postgresTrait])),
                serverProduct("Yams", "Yams"),
                serverProduct("Prometheus", "swift-prometheus"),
                serverProduct("ServiceLifecycle", "swift-service-lifecycle"),
                serverProduct("Logging", "swift-log"),
                serverProduct("CompressNIO", "compress-nio"),
                serverProduct("Crypto", "swift-crypto"),
                "ProcessSpawn",
            ],
            exclude: ["Demo/make.sh", "Demo/README.md"],
            resources: [.copy("Demo")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "IntermissionCLI",
            dependencies: [
                "GroupCoordination",
                "GroupPlayback",
                "HLSPlaylist",
                "HLSInterstitials",
                "HTTPFetch",
                "InterstitialPlayback",
                "IntermissionServer",
                "IntermissionStore",
                "AdInsertion",
                "ReceiverServer",
                serverProduct("ArgumentParser", "swift-argument-parser"),
                serverProduct("AsyncHTTPClient", "async-http-client"),
                serverProduct("Logging", "swift-log"),
                serverProduct("Hummingbird", "hummingbird"),
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
                serverProduct("HTTPTypes", "swift-http-types"),
                serverProduct("Hummingbird", "hummingbird"),
                serverProduct("Logging", "swift-log"),
                serverProduct("NIOCore", "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ViewerLoadSupportTests",
            dependencies: [
                "ViewerLoadSupport",
                "InterstitialPlayback",
                "HLSInterstitials",
                "HLSPlaylist",
                "IntermissionTestSupport",
                serverProduct("NIOCore", "swift-nio"),
                serverProduct("NIOHTTP1", "swift-nio"),
                serverProduct("NIOPosix", "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HTTPFetchTests",
            dependencies: [
                "HTTPFetch", "IntermissionTestSupport",
                serverProduct("AsyncHTTPClient", "async-http-client"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GroupPlaybackTests",
            // The player's and the receiver's attachments alone; the groups and the receiver app
            // over loopback are tested with the server (IntermissionServerTests).
            dependencies: ["GroupPlayback", "HLSInterstitials", "HLSPlaylist", "IntermissionTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AdInsertionTests",
            dependencies: ["AdInsertion", "HLSInterstitials", "HLSPlaylist", "IntermissionTestSupport"],
            swiftSettings: swiftSettings
        ),
        // Shared by the storage tests and the server's: the task group that runs the stores'
        // background work, the test PostgreSQL server, scratch folders and decisions.
        .target(
            name: "IntermissionStoreTestSupport",
            dependencies: [
                "AdInsertion", "HLSPlaylist", "IntermissionStore", "IntermissionTestSupport",
                .target(name: "IntermissionPostgres", condition: .when(traits: [postgresTrait])),
                postgresProduct("Logging", "swift-log"), postgresProduct("PostgresNIO", "postgres-nio"),
            ],
            path: "Tests/StoreTestSupport",
            swiftSettings: swiftSettings
        ),
        // The storage targets' tests follow the arrows: none depends on the server.
        .testTarget(
            name: "IntermissionStoreTests",
            dependencies: [
                "AdInsertion", "HLSPlaylist", "IntermissionStore", "IntermissionStoreTestSupport",
                "IntermissionTestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IntermissionSQLiteTests",
            dependencies: [
                "AdInsertion", "HLSPlaylist", "IntermissionSQLite", "IntermissionStore",
                "IntermissionStoreTestSupport", "IntermissionTestSupport", serverProduct("GRDB", "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IntermissionPostgresTests",
            dependencies: [
                "AdInsertion", "HLSPlaylist", "IntermissionStore", "IntermissionStoreTestSupport",
                "IntermissionTestSupport",
                .target(name: "IntermissionPostgres", condition: .when(traits: [postgresTrait])),
                postgresProduct("Logging", "swift-log"), postgresProduct("PostgresNIO", "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IntermissionHTTPTests",
            dependencies: ["IntermissionHTTP"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IntermissionServerTests",
            // Also the integration tests of the groups (hub, relay, sockets) and of the receiver
            // app playing media the server serves.
            dependencies: [
                "IntermissionServer",
                "AdInsertion",
                "GroupCoordination",
                "GroupPlayback",
                "IntermissionHTTP",
                "ReceiverServer",
                "HTTPFetch",
                "HLSInterstitials",
                "HLSPlaylist",
                "IntermissionTestSupport",
                "InterstitialPlayback",
                serverProduct("AsyncHTTPClient", "async-http-client"),
                serverProduct("HTTPTypes", "swift-http-types"),
                serverProduct("Hummingbird", "hummingbird"),
                serverProduct("HummingbirdTesting", "hummingbird"),
                serverProduct("HummingbirdWSClient", "hummingbird-websocket"),
                serverProduct("CompressNIO", "compress-nio"),
                serverProduct("GRDB", "GRDB.swift"),
                serverProduct("Logging", "swift-log"),
                serverProduct("NIOCore", "swift-nio"),
                serverProduct("NIOEmbedded", "swift-nio"),
                serverProduct("NIOHTTP1", "swift-nio"),
                serverProduct("NIOHTTPTypes", "swift-nio-extras"),
                serverProduct("NIOPosix", "swift-nio"),
                serverProduct("NIOWebSocket", "swift-nio"),
                serverProduct("ServiceLifecycle", "swift-service-lifecycle"),
                "IntermissionStore",
                "IntermissionStoreTestSupport",
                "IntermissionSQLite",
                .target(name: "IntermissionPostgres", condition: .when(traits: [postgresTrait])),
                postgresProduct("PostgresNIO", "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ProcessSpawnTests",
            dependencies: ["ProcessSpawn", "IntermissionTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IntermissionCLITests",
            // The tests run the `intermission` binary (the dependency makes `swift build
            // --build-tests` build it first) and share the test-support target.
            dependencies: ["GroupCoordination", "IntermissionCLI", "IntermissionTestSupport", "ProcessSpawn"],
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
    traits: [
        .trait(
            name: playbackTrait,
            description: "The headless player, group playback and HTTP fetching, with their networking dependencies."
        ),
        .trait(
            name: serverTrait,
            description: "The ad-insertion server and the intermission CLI, with their dependencies.",
            enabledTraits: [playbackTrait]
        ),
        .trait(
            name: postgresTrait,
            description: "The PostgreSQL store (postgres-nio) beside SQLite, for several server instances.",
            enabledTraits: [serverTrait]
        ),
        .default(enabledTraits: [serverTrait, postgresTrait]),
    ],
    dependencies: dependencies,
    targets: targets
)
