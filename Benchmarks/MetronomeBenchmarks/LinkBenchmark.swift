import CAllocationCounter
import Glibc
import MetronomeKit
import MetronomeLink

/// The scheduler thread's cost of one look at a Link session (`LinkSession.timeline(at:)`: a capture of Link's app
/// state and the clock conversion), done every scheduler pass while following. Enables Link: it runs only inside a
/// network namespace whose only interface is loopback (Benchmarks/link runs it so), and refuses otherwise.
enum LinkBenchmark {
    struct Report {
        /// Nanoseconds per look: median and p99 over batches of 1000, and the slowest single look.
        var median: Double
        var p99: Double
        var slowest: Double
        /// Heap allocations per look on the calling thread.
        var allocationsPerLook: Double
        var looks: Int
    }

    /// The interfaces of this network namespace (/sys/class/net).
    static func interfaces() -> [String] {
        guard let directory = opendir("/sys/class/net") else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted()
    }

    static func run(batches: Int = 200) throws -> Report? {
        guard interfaces() == ["lo"] else { return nil }
        let link = try LinkSession(tempo: 120, quantum: 4)
        link.enable(true)
        defer { link.enable(false) }
        usleep(300_000)
        var perLook: [Double] = []
        var slowest = 0.0
        let allocationsBefore = metronome_thread_allocation_count()
        for _ in 0..<batches {
            let start = Measure.now()
            for _ in 0..<1000 {
                let single = Measure.now()
                _ = link.timeline(at: .now())
                slowest = max(slowest, (Measure.now() - single) * 1e9)
            }
            perLook.append((Measure.now() - start) * 1e9 / 1000)
        }
        let allocations = Double(metronome_thread_allocation_count() - allocationsBefore) / Double(batches * 1000)
        perLook.sort()
        return Report(
            median: Measure.median(perLook), p99: perLook[min(perLook.count - 1, perLook.count * 99 / 100)],
            slowest: slowest, allocationsPerLook: allocations, looks: batches * 1000)
    }
}
