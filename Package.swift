// swift-tools-version: 6.0
import Foundation
import PackageDescription

let package = Package(
    name: "Metronome",
    products: [
        .library(name: "MetronomeKit", targets: ["MetronomeKit"]),
        .library(name: "MetronomeFiles", targets: ["MetronomeFiles"]),
        .library(name: "MetronomePulse", targets: ["MetronomePulse"]),
        .library(name: "MetronomeJack", targets: ["MetronomeJack"]),
        .library(name: "MetronomeOSC", targets: ["MetronomeOSC"]),
        // Ableton Link (GPL-2.0-or-later, as Link is: see the README's Licence).
        .library(name: "MetronomeLink", targets: ["MetronomeLink"]),
        .executable(name: "metronome", targets: ["metronome"]),
        .executable(name: "metronome-bench", targets: ["MetronomeBenchmarks"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-numerics.git", from: "1.1.1"),
        // `swift package generate-documentation` (.ci/docs); a command plugin, linked into nothing.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // HTTP/1.1 and WebSocket for the web remote (`serve --http`): NIOHTTP1 and NIOWebSocket only (see docs/web.md
        // for why not Hummingbird).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        // libsndfile, reached only through MetronomeFiles.
        .systemLibrary(
            name: "CSndFile",
            pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]
        ),
        // libqrencode, reached only through MetronomeWeb (the web remote's URL as a QR code at the terminal).
        .systemLibrary(
            name: "CQRencode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        // libsqlite3 (Debian's libsqlite3-dev), reached only through MetronomeLog.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // libpulse, reached only through MetronomePulse.
        .systemLibrary(
            name: "CPulseAudio",
            pkgConfig: "libpulse",
            providers: [.apt(["libpulse-dev"])]
        ),
        // The library in layers, imports pointing down (no C module, no file I/O). docs/layout.md draws the graph.
        // Units, positions, meters, sections and the timeline (closed form both ways); chord symbols and arpeggio
        // orders as plain values.
        .target(name: "MetronomeModel", dependencies: [.product(name: "RealModule", package: "swift-numerics")]),
        // Over a timeline: its clicks (ClickTimeline), arpeggios, pattern note tracks, note events and sources.
        .target(name: "MetronomeMusic", dependencies: ["MetronomeModel"]),
        // The .metro language, klick tempo maps and bank files → a score.
        .target(name: "MetronomePatterns", dependencies: ["MetronomeModel"]),
        // Standard MIDI Files read and written; the export of clicks and notes to one.
        .target(name: "MetronomeMIDI", dependencies: ["MetronomeModel", "MetronomeMusic"]),
        // SoundFont 2/3 data: the RIFF reader, presets, zones, generators and modulators (not the voices).
        .target(name: "MetronomeSoundFont"),
        // Below the mixer: its input (commands, the ring, MIDI in and out), sample buffers, and the voices that
        // render them (samples and SoundFont zones).
        .target(
            name: "MetronomeVoices",
            dependencies: [
                "MetronomeModel", "MetronomeSoundFont", .product(name: "RealModule", package: "swift-numerics"),
            ]),
        // The real-time mixer over the voices, generated sounds and note players, the transport and the scheduler.
        .target(
            name: "MetronomeEngine",
            dependencies: [
                "MetronomeModel", "MetronomeMusic", "MetronomeSoundFont", "MetronomeVoices",
                .product(name: "RealModule", package: "swift-numerics"),
            ]),
        // Sessions (the one place the chain is built, live and offline), host clocks, the output backend seam, the
        // beat publisher, keys and tap tempo.
        .target(name: "MetronomeLive", dependencies: ["MetronomeModel", "MetronomeMusic", "MetronomeEngine"]),
        // Audio files in and out through libsndfile.
        .target(
            name: "MetronomeFiles",
            dependencies: [
                "MetronomeModel", "MetronomePatterns", "MetronomeSoundFont", "MetronomeEngine", "CSndFile",
            ]),
        // The application layer: typed settings → a plan → a session (click, pattern and MIDI file plans, pattern
        // lookup, instruments and voicing); what the CLI, the OSC service and a library user share.
        .target(
            name: "MetronomeApp",
            dependencies: [
                "MetronomeModel", "MetronomeMusic", "MetronomePatterns", "MetronomeMIDI", "MetronomeSoundFont",
                "MetronomeEngine", "MetronomeLive", "MetronomeFiles",
            ]),
        // Every library layer behind one `import MetronomeKit` (the adapters for sound servers and OSC apart).
        .target(
            name: "MetronomeKit",
            dependencies: [
                "MetronomeModel", "MetronomeMusic", "MetronomePatterns", "MetronomeMIDI", "MetronomeSoundFont",
                "MetronomeVoices", "MetronomeEngine", "MetronomeLive", "MetronomeFiles", "MetronomeApp",
            ]),
        // Open Sound Control 1.0 packets as values: encoding, bounded decoding, address patterns; and a UDP socket
        // (no Foundation).
        .target(name: "MetronomeOSC"),
        // The practice log (docs/practice.md): every live run's record in an SQLite database, written on a queue of
        // its own, and the summaries of `metronome log`. Over libsqlite3 directly, not GRDB.swift: GRDB would add a
        // large Swift package to every one of CI's builds for a dozen statements.
        .target(name: "MetronomeLog", dependencies: ["MetronomeModel", "CSQLite"]),
        // Live playback through a PulseAudio server.
        .target(
            name: "MetronomePulse",
            dependencies: ["MetronomeModel", "MetronomeEngine", "MetronomeLive", "CPulseAudio"]),
        // Ableton Link (Debian's ableton-link-dev, header-only C++, and libasio-dev) behind a C surface of ours: the
        // only C++ in the package. GPL-2.0-or-later, as Link is: kept apart so the library layers never link it.
        .target(
            name: "CLink",
            cxxSettings: [.define("LINK_PLATFORM_LINUX", to: "1")],
            linkerSettings: [.linkedLibrary("pthread")]),
        // libjack (jackd2), through a C shim of ours: jack_client_open is variadic, and Swift cannot call it.
        .target(name: "CJack", linkerSettings: [.linkedLibrary("jack")]),
        // Live playback through a JACK server: a client with one port per channel, its process callback pulling the
        // mixer; an OutputBackend and its OutputDriver.
        .target(name: "MetronomeJack", dependencies: ["MetronomeModel", "MetronomeEngine", "MetronomeLive", "CJack"]),
        // Joining a Link session: the session as a TempoSource a Session follows both ways, Link's clock, and Link's
        // rules for a plan (its tempo range, the plan scaled to the session's tempo, the quantized start); the
        // service's Link.
        .target(
            name: "MetronomeLink",
            dependencies: [
                "MetronomeModel", "MetronomeEngine", "MetronomeLive", "MetronomeApp", "MetronomeService", "CLink",
            ]),
        // The OSC service of `metronome serve`: the service core over a session, our address space and klick's, and the
        // UDP server.
        .target(
            name: "MetronomeService",
            dependencies: [
                "MetronomeModel", "MetronomeMusic", "MetronomeEngine", "MetronomeLive", "MetronomePatterns",
                "MetronomeApp",
                "MetronomeOSC",
            ]),
        // The web remote of `metronome serve --http`: one page and a WebSocket over the service core (swift-nio's
        // HTTP/1.1 and WebSocket; the page is in the binary).
        .target(
            name: "MetronomeWeb",
            dependencies: [
                "MetronomeModel", "MetronomeLive", "MetronomeApp", "MetronomeOSC", "MetronomeService", "CQRencode",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
            ]),
        // A live command composed from its typed settings (`LiveCommand`): the output (PulseAudio or JACK), Link, the
        // JACK transport, MIDI in and out, the OSC service and the web remote on one `LiveRun`. The glue above the
        // adapters, so that the executable holds none.
        .target(
            name: "MetronomeHub",
            dependencies: [
                "MetronomeModel", "MetronomeMusic", "MetronomeMIDI", "MetronomeEngine", "MetronomeLive", "MetronomeApp",
                "MetronomePulse", "MetronomeJack", "MetronomeLink", "MetronomeOSC", "MetronomeService", "MetronomeWeb",
                "MetronomeLog",
            ]),
        .executableTarget(
            name: "metronome",
            dependencies: [
                "MetronomeKit", "MetronomeFiles", "MetronomeHub", "MetronomePulse", "MetronomeJack", "MetronomeWeb",
                "MetronomeLog", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Counts malloc calls per thread; linked only into tests and benchmarks to prove the render path allocates nothing.
        .target(name: "CAllocationCounter"),
        // The benchmark suite (Benchmarks/run).
        .executableTarget(
            name: "MetronomeBenchmarks",
            dependencies: [
                "MetronomeKit", "MetronomeFiles", "MetronomePulse", "MetronomeService", "MetronomeOSC",
                "MetronomeLink", "CAllocationCounter", "MetronomeLog",
            ],
            path: "Benchmarks/MetronomeBenchmarks"
        ),
        // Tests mirror modules: a target per module, named after it. The targets that start private PulseAudio
        // daemons are named Metronome<Name>LiveTests (MetronomePulseLiveTests, MetronomeServeLiveTests); every other
        // target is pure (offline renders, the binary without a sound server). The pure lane alone:
        //     swift test --skip '^Metronome[A-Za-z]+LiveTests\.'
        // (MetronomeLiveTests, the MetronomeLive module's tests, has no <Name>: the pattern leaves it in).
        // MetronomeTestSupport holds the helpers more than one target uses: OSC traffic, child processes, seeded
        // generators, SoundFonts built in memory, impulse clicks, the scheduler rig, the built-in banks, private
        // PulseAudio daemons.
        .target(
            name: "MetronomeTestSupport",
            dependencies: [
                "MetronomeModel", "MetronomeMusic", "MetronomeSoundFont", "MetronomeEngine", "MetronomeFiles",
                "MetronomeOSC", "CAllocationCounter",
            ],
            path: "Tests/MetronomeTestSupport"),
        .testTarget(
            name: "MetronomeModelTests", dependencies: ["MetronomeModel", "MetronomeMusic", "MetronomeTestSupport"]),
        .testTarget(name: "MetronomeMusicTests", dependencies: ["MetronomeModel", "MetronomeMusic"]),
        .testTarget(
            name: "MetronomePatternsTests",
            dependencies: ["MetronomeModel", "MetronomeMusic", "MetronomePatterns", "MetronomeTestSupport"]),
        .testTarget(
            name: "MetronomeMIDITests",
            dependencies: [
                "MetronomeModel", "MetronomeMusic", "MetronomeMIDI", "MetronomeEngine", "MetronomeTestSupport",
            ]),
        .testTarget(name: "MetronomeSoundFontTests", dependencies: ["MetronomeSoundFont", "MetronomeTestSupport"]),
        .testTarget(
            name: "MetronomeEngineTests",
            dependencies: [
                "MetronomeModel", "MetronomeMusic", "MetronomePatterns", "MetronomeSoundFont", "MetronomeEngine",
                "CAllocationCounter", "MetronomeTestSupport", .product(name: "RealModule", package: "swift-numerics"),
            ]),
        .testTarget(
            name: "MetronomeLiveTests",
            dependencies: [
                "MetronomeModel", "MetronomeMusic", "MetronomePatterns", "MetronomeEngine", "MetronomeLive",
                "CAllocationCounter", "MetronomeTestSupport",
            ]),
        // The README's offline example, as a user writes it: `import MetronomeKit`.
        .testTarget(name: "MetronomeKitTests", dependencies: ["MetronomeKit"]),
        // Link's rules for a plan (its tempo range, the plan scaled to the session's tempo), with no Link instance.
        .testTarget(
            name: "MetronomeLinkTests",
            dependencies: ["MetronomeModel", "MetronomeApp", "MetronomeLink", "MetronomeTestSupport"]),
        // MetronomeApp's rules on their own: settings to a request, the plan's length, pattern lookup.
        .testTarget(
            name: "MetronomeAppTests",
            dependencies: [
                "MetronomeModel", "MetronomeMusic", "MetronomePatterns", "MetronomeEngine", "MetronomeLive",
                "MetronomeApp",
                "MetronomeTestSupport",
            ]),
        .testTarget(
            name: "MetronomeFilesTests",
            dependencies: [
                "MetronomeModel", "MetronomePatterns", "MetronomeSoundFont", "MetronomeEngine", "MetronomeFiles",
                "MetronomeTestSupport",
            ]),
        .testTarget(name: "MetronomeOSCTests", dependencies: ["MetronomeOSC", "MetronomeTestSupport"]),
        // The practice log: its schema and migrations, the recorder's queue, the summaries; two writers at once.
        .testTarget(
            name: "MetronomeLogTests", dependencies: ["MetronomeModel", "MetronomeLog", "MetronomeTestSupport"]),
        .testTarget(
            name: "MetronomeServiceTests",
            dependencies: [
                "MetronomeModel", "MetronomeMusic", "MetronomeEngine", "MetronomeLive", "MetronomeApp", "MetronomeOSC",
                "MetronomeService", "MetronomeTestSupport",
            ]),
        // The web remote without a sound server: its checks, its commands, a real server over an idle session; its
        // QR code read back by zbarimg.
        .testTarget(
            name: "MetronomeWebTests",
            dependencies: [
                "MetronomeModel", "MetronomeEngine", "MetronomeLive", "MetronomeApp", "MetronomeOSC",
                "MetronomeService",
                "MetronomeWeb",
                "MetronomeTestSupport",
            ]),
        // The binary, offline: renders, errors, options, and live options refused before any server is reached.
        .testTarget(
            name: "MetronomeCLITests",
            dependencies: [
                "MetronomeModel", "MetronomeMusic", "MetronomePatterns", "MetronomeMIDI", "MetronomeSoundFont",
                "MetronomeEngine", "MetronomeFiles", "MetronomeApp", "MetronomeTestSupport",
                .product(name: "RealModule", package: "swift-numerics"),
            ],
            exclude: ["Fingerprints"]),
        // Live: playback through PulseAudio (PulseOutput, the reconnector, the binary's live commands).
        .testTarget(
            name: "MetronomePulseLiveTests",
            dependencies: [
                "MetronomeModel", "MetronomeMusic", "MetronomeMIDI", "MetronomeEngine", "MetronomeLive", "MetronomeKit",
                "MetronomeFiles", "MetronomePulse", "MetronomeTestSupport", "CAllocationCounter",
            ]),
        // Live: Ableton Link with real peers, each inside a network namespace of the test's own.
        .testTarget(
            name: "MetronomeLinkLiveTests",
            dependencies: [
                "MetronomeModel", "MetronomeMusic", "MetronomeEngine", "MetronomeLive", "MetronomePulse",
                "MetronomeLink",
                "MetronomeFiles", "MetronomeTestSupport",
            ],
            exclude: ["Peers"]),
        // Live: playback through a private JACK server (jackd's dummy backend), recorded with jack_capture and, where
        // a recorder's missed cycle must not read as a click of ours out of place, a client of the test's own on the
        // server's frame clock (CJack: FrameCapture).
        .testTarget(
            name: "MetronomeJackLiveTests",
            dependencies: [
                "MetronomeModel", "MetronomeEngine", "MetronomeLive", "MetronomeJack", "MetronomeFiles",
                "MetronomeTestSupport", "CAllocationCounter", "CJack",
            ],
            exclude: ["Peers"]),
        // Live: `metronome serve` through PulseAudio, driven over OSC and from a terminal.
        .testTarget(
            name: "MetronomeServeLiveTests",
            dependencies: [
                "MetronomeModel", "MetronomeMusic", "MetronomePatterns", "MetronomeMIDI", "MetronomeEngine",
                "MetronomeLive", "MetronomeFiles", "MetronomeOSC", "MetronomeService", "MetronomeTestSupport",
            ]),
        // Live: `metronome serve --http` through PulseAudio, its page in headless Chromium (Peers/web_page.py,
        // selenium), and under a flood of hostile connections (Peers/web_flood.py).
        .testTarget(
            name: "MetronomeWebLiveTests", dependencies: ["MetronomeOSC", "MetronomeTestSupport"], exclude: ["Peers"]),
        // Every fuzzing harness (the fuzz-NAME executables below) replaying its seed corpus, Fuzz/corpus/NAME.
        .testTarget(name: "FuzzCorpusTests", dependencies: ["MetronomeTestSupport"]),
    ],
    cxxLanguageStandard: .cxx17
)

// Fuzzing harnesses, one executable per folder under Fuzz/ that holds a main.swift (a new harness needs no line here).
// Each links FuzzSupport (Fuzz/Support: the driver and shared checks, over MetronomeKit) and the modules its main.swift
// imports of those below: they are built in every build but CI's release build (below), so none links what it does
// not use (swift-nio's, for one). Outside .ci/fuzz each replays the files it is given (FuzzCorpusTests runs it over
// its seed corpus, Fuzz/corpus/NAME; in CI under AddressSanitizer); .ci/fuzz builds them with libFuzzer
// (-sanitize=fuzzer and -D METRONOME_LIBFUZZER) in its own scratch folder.
let fuzzFolder = URL(fileURLWithPath: Context.packageDirectory).appendingPathComponent("Fuzz")
let harnesses = ((try? FileManager.default.contentsOfDirectory(atPath: fuzzFolder.path)) ?? []).filter {
    FileManager.default.fileExists(atPath: fuzzFolder.appendingPathComponent("\($0)/main.swift").path)
}.sorted()
let harnessModules: [(name: String, dependency: Target.Dependency)] = [
    ("MetronomeKit", "MetronomeKit"), ("MetronomeFiles", "MetronomeFiles"), ("MetronomeOSC", "MetronomeOSC"),
    ("MetronomeService", "MetronomeService"), ("MetronomeWeb", "MetronomeWeb"),
    ("NIOCore", .product(name: "NIOCore", package: "swift-nio")),
    ("NIOEmbedded", .product(name: "NIOEmbedded", package: "swift-nio")),
]
package.targets.append(.target(name: "FuzzSupport", dependencies: ["MetronomeKit"], path: "Fuzz/Support"))
for name in harnesses {
    let main = fuzzFolder.appendingPathComponent("\(name)/main.swift")
    let source = (try? String(contentsOf: main, encoding: .utf8)) ?? ""
    let imports = Set(source.split(separator: "\n").filter { $0.hasPrefix("import ") }.map { String($0.dropFirst(7)) })
    let linked = harnessModules.filter { imports.contains($0.name) }.map(\.dependency)
    package.targets.append(
        .executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzSupport"] + linked, path: "Fuzz/\(name)"))
}

// The test targets compile without optimization in every configuration (the non-live build, below, too): the code
// they test is built as its configuration says (optimized in the release build every lane runs on), and optimizing
// their own code (the expectations, Swift Testing's expanded macros) took about a sixth of a clean release build
// (docs/benchmarks.md, "CI and the test suite"). Still whole-module: one job a module type-checks each declaration once, where batch mode
// took 474 s of CPU for the test targets alone against 343 s (264 s of wall time against 190; that second build
// also wrote no index store, about 6 % of it).
//
// A build made only for the non-live tests (`METRONOME_NON_LIVE_BUILD=1`: AddressSanitizer's lane in CI, .ci/sanitize
// --ci address) leaves the live test targets and the benchmarks out. Its test targets compile at -Onone too: the
// build is done sooner and its lane takes longer (204 s against 148), which came to the same end of a CI run within
// seconds (docs/benchmarks.md, "The non-live tests once, under AddressSanitizer"): one rule for all test code.
// SwiftPM keys its manifest cache on the environment, so the release build in .build never sees this one's graph.
let nonLiveBuild = Context.environment["METRONOME_NON_LIVE_BUILD"] == "1"
if nonLiveBuild {
    // Nor does its lane run the benchmarks (Benchmarks/run builds them).
    package.products.removeAll { $0.name == "metronome-bench" }
    package.targets.removeAll { $0.name == "MetronomeBenchmarks" }
    // The live targets as CI's filter names them (`^Metronome[A-Za-z]+LiveTests\.`): MetronomeLiveTests, the live
    // module's own tests, is not one of them.
    package.targets.removeAll {
        $0.type == .test && $0.name.hasPrefix("Metronome") && $0.name.hasSuffix("LiveTests")
            && $0.name != "MetronomeLiveTests"
    }
}
// The release build CI makes (`METRONOME_LIVE_BUILD=1`, set by .ci/test for its release build and everything run on
// it) holds only what runs on it: the library and the binary, the live test targets, and MetronomeFilesTests (for
// SoundFontFileTests, whose resident-set check a sanitizer changes). The other test targets run in
// AddressSanitizer's build, the fuzzing harnesses in .ci/fuzz's and that build's replay, and the benchmarks in
// Benchmarks/run's own build; compiling them here too took about a fifth of CI's release build, at the front of the
// run where nothing else waits (docs/benchmarks.md, "A release build of what runs on it"). A build with neither
// variable set (a contributor's, .ci/release-build by hand) holds every target.
let liveBuild = Context.environment["METRONOME_LIVE_BUILD"] == "1"
if liveBuild {
    precondition(!nonLiveBuild, "METRONOME_LIVE_BUILD and METRONOME_NON_LIVE_BUILD describe different builds")
    package.products.removeAll { $0.name == "metronome-bench" }
    package.targets.removeAll {
        let live = $0.name.hasPrefix("Metronome") && $0.name.hasSuffix("LiveTests") && $0.name != "MetronomeLiveTests"
        return $0.name == "MetronomeBenchmarks" || $0.name == "FuzzSupport" || $0.name.hasPrefix("fuzz-")
            || ($0.type == .test && $0.name != "MetronomeFilesTests" && !live)
    }
}
for index in package.targets.indices where package.targets[index].type == .test {
    package.targets[index].swiftSettings =
        (package.targets[index].swiftSettings ?? []) + [.unsafeFlags(["-Onone"], .when(configuration: .release))]
}
// SwiftPM gives a target's compilation the module files of the targets it declares as inputs, not those of the
// targets they depend on in turn, whose layouts the target's code may still hold: through a module that re-exports
// them (`@_exported import`), or in the bodies of another module's inlinable code. After a change to a stored layout
// in a layer, such a target is not compiled again and keeps the old layout (swiftlang/swift#89636): in an
// incremental AddressSanitizer build, fuzz-web (which sees MetronomeLive only through MetronomeKit) allocated a
// `Session` of the old size and its initializer wrote past it (docs/testing.md, "Incremental builds"). So each
// target also depends on every target its dependencies depend on, directly or not; .ci/layout leaves those it
// does not import out of the module graph it compares with the README.
let packageTargets = Set(package.targets.map(\.name))
func targetDependencies(of target: Target) -> [String] {
    target.dependencies.compactMap { dependency -> String? in
        switch dependency {
        case .targetItem(let name, _), .byNameItem(let name, _): packageTargets.contains(name) ? name : nil
        default: nil
        }
    }
}
let declaredDependencies = Dictionary(
    uniqueKeysWithValues: package.targets.map { ($0.name, targetDependencies(of: $0)) })
for index in package.targets.indices {
    let declared = declaredDependencies[package.targets[index].name] ?? []
    var seen = Set(declared)
    var pending = declared
    while let name = pending.popLast() {
        for module in declaredDependencies[name] ?? [] where !seen.contains(module) {
            seen.insert(module)
            pending.append(module)
            package.targets[index].dependencies.append(.target(name: module))
        }
    }
}
