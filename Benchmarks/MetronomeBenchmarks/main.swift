import Glibc
import MetronomeKit

// The benchmark suite. Run with `bash Benchmarks/run` (release build). Prints a Markdown report.

let runs = 7
let executableDirectory: String = {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    let path = String(cString: Array(buffer[0..<max(0, count)]) + [0])
    return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
}()
let metronome = executableDirectory + "/metronome"
let scratch = "/tmp/metronome-bench-\(getpid())"
mkdir(scratch, 0o755)
defer { rmdir(scratch) }

print("# Metronome benchmarks\n")
print(
    "Machine: \(Measure.machine()). Medians of \(runs) runs; outputs written to \(scratch) and deleted after each run.\n"
)

// 1. One hour of 120 BPM 4/4 clicks to 48 kHz WAV, against klick -W.
print("## Render one hour of 120 BPM 4/4 to 48 kHz WAV\n")
print("| renderer | format | wall s | CPU s | peak RSS MB |")
print("|---|---|---|---|---|")
let klick = Measure.which("klick")
var rows: [(String, String, [ProcessCost])] = [
    ("metronome", "mono 16-bit", []), ("klick -W", "mono 16-bit", []), ("metronome", "stereo 32-bit float", []),
]
for _ in 0..<runs {
    let ours = "\(scratch)/ours.wav"
    rows[0].2.append(
        Measure.spawn(
            metronome,
            ["--bpm", "120", "--bars", "1800", "--channels", "1", "--format", "pcm16", "--quiet", "--output", ours]))
    unlink(ours)
    if let klick {
        let theirs = "\(scratch)/klick.wav"
        rows[1].2.append(Measure.spawn(klick, ["-W", theirs, "1800", "4/4", "120"]))
        unlink(theirs)
    }
    rows[2].2.append(Measure.spawn(metronome, ["--bpm", "120", "--bars", "1800", "--quiet", "--output", ours]))
    unlink(ours)
}
for (name, format, costs) in rows where !costs.isEmpty {
    precondition(costs.allSatisfy { $0.status == 0 }, "\(name) failed")
    let wall = Measure.median(costs.map(\.wallSeconds))
    let cpu = Measure.median(costs.map(\.cpuSeconds))
    let rss = Double(costs.map(\.peakResidentKilobytes).max()!) / 1024
    print("| \(name) | \(format) | \(Measure.format(wall)) | \(Measure.format(cpu)) | \(Measure.format(rss, 1)) |")
}
if klick == nil { print("\n(klick is not installed: `apt-get install klick` to compare.)") }

// 2. Mixer throughput with 4-point interpolation.
print("\n## Mixer throughput (4-point interpolation, stereo, 48 kHz, 256-frame blocks)\n")
print("| voices | voices per core in real time | allocations per block |")
print("|---|---|---|")
for voices in [256, 1024] {
    let result = try MixerThroughput.measure(voices: voices)
    print(
        "| \(voices) | \(Int(result.voicesPerCore)) | \(Measure.format(result.allocationsPerBlock, 3)) (\(result.blocks) blocks) |"
    )
}
