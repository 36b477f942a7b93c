// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Metronome",
    products: [
        .library(name: "MetronomeKit", targets: ["MetronomeKit"]),
        .library(name: "MetronomeFiles", targets: ["MetronomeFiles"]),
        .library(name: "MetronomePulse", targets: ["MetronomePulse"]),
        .library(name: "MetronomeOSC", targets: ["MetronomeOSC"]),
        .executable(name: "metronome", targets: ["metronome"]),
        .executable(name: "metronome-bench", targets: ["MetronomeBenchmarks"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-numerics.git", from: "1.1.1"),
        // `swift package generate-documentation` (.ci/docs); a command plugin, linked into nothing.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // libsndfile, reached only through MetronomeFiles.
        .systemLibrary(
            name: "CSndFile",
            pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]
        ),
        // libpulse, reached only through MetronomePulse.
        .systemLibrary(
            name: "CPulseAudio",
            pkgConfig: "libpulse",
            providers: [.apt(["libpulse-dev"])]
        ),
        // The library in layers, imports pointing down (no C module, no file I/O):
        // units, positions, sections and the timeline; chord symbols and arpeggio orders as plain values.
        .target(name: "MetronomeModel", dependencies: [.product(name: "RealModule", package: "swift-numerics")]),
        // Notes over a timeline: arpeggios, pattern note tracks, note events and sources.
        .target(name: "MetronomeMusic", dependencies: ["MetronomeModel"]),
        // The .metro language and klick tempo maps → a score; Standard MIDI Files ↔ the timeline and notes.
        .target(name: "MetronomePatterns", dependencies: ["MetronomeModel", "MetronomeMusic"]),
        // The real-time mixer, the command ring, generated sounds, the transport and the scheduler.
        .target(
            name: "MetronomeEngine",
            dependencies: ["MetronomeModel", "MetronomeMusic", .product(name: "RealModule", package: "swift-numerics")]),
        // Sessions (the one place the chain is built, live and offline), host clocks, the beat publisher; the MIDI
        // export (the engine's click timeline and the notes → the patterns layer's Standard MIDI File model).
        .target(
            name: "MetronomeLive",
            dependencies: ["MetronomeModel", "MetronomeMusic", "MetronomeEngine", "MetronomePatterns"]),
        // Every layer behind one `import MetronomeKit`.
        .target(
            name: "MetronomeKit",
            dependencies: ["MetronomeModel", "MetronomeMusic", "MetronomePatterns", "MetronomeEngine", "MetronomeLive"]),
        // Audio files in and out through libsndfile.
        .target(name: "MetronomeFiles", dependencies: ["MetronomeKit", "CSndFile"]),
        // Open Sound Control 1.0 packets as values: encoding, bounded decoding, address patterns; and a UDP socket
        // (no Foundation).
        .target(name: "MetronomeOSC"),
        // Live playback through a PulseAudio server.
        .target(name: "MetronomePulse", dependencies: ["MetronomeKit", "CPulseAudio"]),
        // The OSC service of `metronome serve`: the address space over a session, and the UDP server.
        .target(name: "MetronomeService", dependencies: ["MetronomeKit", "MetronomeOSC"]),
        .executableTarget(
            name: "metronome",
            dependencies: [
                "MetronomeKit", "MetronomeFiles", "MetronomePulse", "MetronomeService", "MetronomeOSC",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Counts malloc calls per thread; linked only into tests and benchmarks to prove the render path allocates nothing.
        .target(name: "CAllocationCounter"),
        // The benchmark suite (Benchmarks/run).
        .executableTarget(
            name: "MetronomeBenchmarks",
            dependencies: [
                "MetronomeKit", "MetronomeFiles", "MetronomePulse", "MetronomeService", "MetronomeOSC",
                "CAllocationCounter",
            ],
            path: "Benchmarks/MetronomeBenchmarks"
        ),
        .testTarget(
            name: "MetronomeKitTests",
            dependencies: [
                "MetronomeKit", "MetronomeModel", "MetronomeMusic", "MetronomePatterns", "MetronomeEngine",
                "MetronomeLive", "CAllocationCounter", "MetronomeTestSupport",
            ]),
        .testTarget(
            name: "MetronomeFilesTests", dependencies: ["MetronomeFiles", "MetronomeKit", "MetronomeTestSupport"]),
        .testTarget(name: "MetronomeOSCTests", dependencies: ["MetronomeOSC", "MetronomeTestSupport"]),
        // Test helpers: OSC traffic, child processes, seeded generators, SoundFonts built in memory.
        .target(
            name: "MetronomeTestSupport", dependencies: ["MetronomeOSC", "MetronomeEngine"],
            path: "Tests/MetronomeTestSupport"),
        .testTarget(
            name: "MetronomeServiceTests",
            dependencies: ["MetronomeService", "MetronomeKit", "MetronomeOSC", "MetronomeTestSupport"]),
        .testTarget(
            name: "MetronomeCLITests", dependencies: ["MetronomeFiles", "MetronomeKit", "MetronomeTestSupport"],
            exclude: ["Fingerprints"]),
        .testTarget(
            name: "MetronomePulseTests",
            dependencies: [
                "MetronomePulse", "MetronomeFiles", "MetronomeKit", "MetronomeOSC", "MetronomeService",
                "MetronomeTestSupport",
            ]),
    ]
)

// Fuzzing harnesses, built only by .ci/fuzz, which sets METRONOME_FUZZ to the names of the folders under Fuzz/ that
// hold a main.swift (so the normal build and tests never see them, and a new harness needs no line here). Each
// harness links every library module and FuzzSupport (Fuzz/Support: libFuzzer's driver and shared checks).
if let harnesses = Context.environment["METRONOME_FUZZ"] {
    package.targets.append(.target(name: "FuzzSupport", dependencies: ["MetronomeKit"], path: "Fuzz/Support"))
    for name in harnesses.split(separator: " ") {
        package.targets.append(
            .executableTarget(
                name: "fuzz-\(name)",
                dependencies: ["FuzzSupport", "MetronomeKit", "MetronomeFiles", "MetronomeOSC"],
                path: "Fuzz/\(name)"))
    }
}
