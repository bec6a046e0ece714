// swift-tools-version: 6.1
// BeatMapKit — beat maps for rhythm games: generate, validate, audition.
// SPDX-License-Identifier: GPL-3.0-or-later

import PackageDescription

let package = Package(
    name: "BeatMapKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .visionOS(.v1)],
    products: [
        .library(name: "BeatMapKit", targets: ["BeatMapKit"]),
        .library(name: "BeatAnalysis", targets: ["BeatAnalysis"]),
        .executable(name: "beatmap", targets: ["beatmap"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.14.0"),
    ],
    targets: [
        // Pure Swift, Foundation only: what a game imports.
        .target(name: "BeatMapKit"),

        // System libraries: a modulemap and a shim header each, nothing else.
        .systemLibrary(
            name: "CSndfile",
            pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"]), .brew(["libsndfile"])]
        ),

        .systemLibrary(
            name: "CAubio",
            pkgConfig: "aubio",
            providers: [.apt(["libaubio-dev"]), .brew(["aubio"])]
        ),
        .systemLibrary(
            name: "CSoxr",
            pkgConfig: "soxr",
            providers: [.apt(["libsoxr-dev"]), .brew(["libsoxr"])]
        ),
        .systemLibrary(
            name: "CPortAudio",
            pkgConfig: "portaudio-2.0",
            providers: [.apt(["portaudio19-dev"]), .brew(["portaudio"])]
        ),

        // Decoding, resampling to the analysis rate, onset/tempo detection and grid fitting.
        .target(name: "BeatAnalysis", dependencies: ["BeatMapKit", "CSndfile", "CSoxr", "CAubio"]),

        // Click synthesis, the offline renderer/mixer and realtime output through PortAudio.
        .target(name: "BeatPreview", dependencies: ["BeatMapKit", "BeatAnalysis", "CPortAudio"]),

        // `beatmap studio`: a loopback HTTP server for one map and its audio, and the page it serves.
        .target(
            name: "BeatStudio",
            dependencies: [
                "BeatMapKit", "BeatAnalysis", "BeatPreview", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Page")],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ]
        ),

        // The command-line tool: parses, calls a library, prints, exits.
        .executableTarget(
            name: "beatmap",
            dependencies: [
                "BeatMapKit",
                "BeatAnalysis",
                "BeatPreview",
                "BeatStudio",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .testTarget(
            name: "BeatMapKitTests",
            dependencies: ["BeatMapKit"],
            resources: [.copy("Fixtures")]
        ),
        // Synthesised audio fixtures (drum sounds, click tracks, a WAV writer) shared by the tests.
        .target(name: "TestSynth", path: "Tests/TestSynth"),
        .testTarget(
            name: "BeatAnalysisTests",
            dependencies: ["BeatAnalysis", "BeatMapKit", "TestSynth"]
        ),
        .testTarget(
            name: "BeatPreviewTests",
            dependencies: ["BeatPreview", "BeatAnalysis", "BeatMapKit", "TestSynth"]
        ),
        .testTarget(name: "BeatStudioTests", dependencies: ["BeatStudio", "BeatMapKit"]),
        .testTarget(
            name: "beatmapTests",
            dependencies: ["BeatMapKit", "beatmap", "TestSynth"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
