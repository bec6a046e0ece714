// swift-tools-version: 6.1
// BeatMapKit — beat maps for rhythm games: generate, validate, audition.
// SPDX-License-Identifier: GPL-3.0-or-later

import PackageDescription

let package = Package(
    name: "BeatMapKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .visionOS(.v1)],
    products: [
        .library(name: "BeatMapKit", targets: ["BeatMapKit"]),
        .library(name: "BeatAudio", targets: ["BeatAudio"]),
        .library(name: "BeatAnalysis", targets: ["BeatAnalysis"]),
        .library(name: "BeatPreview", targets: ["BeatPreview"]),
        .library(name: "BeatStudio", targets: ["BeatStudio"]),
        .executable(name: "beatmap", targets: ["beatmap"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.14.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
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
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .systemLibrary(
            name: "CPortAudio",
            pkgConfig: "portaudio-2.0",
            providers: [.apt(["portaudio19-dev"]), .brew(["portaudio"])]
        ),

        // Decoding and encoding with libsndfile (the streaming reader and writer, decoding ahead on a
        // thread, the audio inspector), resampling with libsoxr, and audio files' SHA-256 with libcrypto.
        .target(name: "BeatAudio", dependencies: ["BeatMapKit", "CSndfile", "CSoxr", "CCrypto"]),

        // Onset/tempo detection at the analysis rate and grid fitting.
        .target(
            name: "BeatAnalysis",
            dependencies: [
                "BeatMapKit", "BeatAudio", "CAubio", .product(name: "HeapModule", package: "swift-collections"),
            ]),

        // Click synthesis, the mixer, the streaming renderer and realtime output through PortAudio.
        .target(name: "BeatPreview", dependencies: ["BeatMapKit", "BeatAudio", "CPortAudio"]),

        // `beatmap studio`: a loopback HTTP server for one map and its audio, and the page it serves.
        .target(
            name: "BeatStudio",
            dependencies: [
                "BeatMapKit", "BeatAudio", "BeatPreview", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Page")]
        ),

        // The command-line tool: parses, calls a library, prints, exits.
        .executableTarget(
            name: "beatmap",
            dependencies: [
                "BeatMapKit",
                "BeatAudio",
                "BeatAnalysis",
                "BeatPreview",
                "BeatStudio",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .testTarget(
            name: "BeatMapKitTests",
            dependencies: ["BeatMapKit", "TestSynth"],
            exclude: ["Fixtures"]
        ),
        // Test support shared by the tests: synthesised audio (drum sounds, click tracks, a WAV writer)
        // and the one subprocess runner.
        .target(name: "TestSynth", path: "Tests/TestSynth"),
        .testTarget(
            name: "BeatAnalysisTests",
            dependencies: ["BeatAnalysis", "BeatAudio", "BeatMapKit", "TestSynth"]
        ),
        .testTarget(
            name: "BeatPreviewTests",
            dependencies: ["BeatPreview", "BeatAudio", "BeatMapKit", "TestSynth"]
        ),
        .testTarget(name: "BeatStudioTests", dependencies: ["BeatStudio", "BeatMapKit", "BeatAnalysis", "BeatAudio"]),
        .testTarget(
            name: "beatmapTests",
            dependencies: ["BeatMapKit", "beatmap", "TestSynth"],
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Every Swift target builds with the upcoming language features that keep a package honest about its
// interface: `any` spelled out for existentials, members visible only from modules a file imports
// itself, and imports internal unless a file says `public import` (so a public API names the modules
// its clients must see).
for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
