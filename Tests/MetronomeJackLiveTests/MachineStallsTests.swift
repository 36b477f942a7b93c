import Foundation
import MetronomeTestSupport
import Testing

struct MachineStallsTests {
    @Test(
        "The stall canaries' lines read back as stretches slept past their time on each CPU; a stretch of ours is set against them: how much of it every CPU's canary slept through, or that none saw a stall there"
    )
    func stallsAgainstAGap() throws {
        let record = MachineStalls.parse(
            "cpus 0 1\n812.000000 101.250 0\nnot a line\n812.050000 20 1\n813.5 6 1\n-1 5 0\n814 2 7777\n815.0 3\n")
        #expect(record.cpus == [0, 1])
        #expect(
            record.stalls == [
                .init(due: 812_000_000_000, woken: 812_101_250_000, cpu: 0),
                .init(due: 812_050_000_000, woken: 812_070_000_000, cpu: 1),
                .init(due: 813_500_000_000, woken: 813_506_000_000, cpu: 1),
                .init(due: 815_000_000_000, woken: 815_003_000_000, cpu: -1),
            ])
        // Our timer's gap of 104.79 ms ending at 812.1 s: CPU 0's canary asleep through it, CPU 1's for 20 ms of it.
        #expect(
            MachineStalls.everyCPUStopped(start: 811_995_210_000, end: 812_100_000_000, record: record) == 20_000_000)
        #expect(
            MachineStalls.during(start: 811_995_210_000, end: 812_100_000_000, record: record)
                == "the stall canaries of every CPU slept 20.0 ms of the 104.79 ms to 812.1 s on the monotonic clock "
                + "past their time (101.25 ms late from 812.0 s on CPU 0, 20.0 ms late from 812.05 s on CPU 1)")
        // CPU 1 alone asleep: the machine ran CPU 0.
        #expect(MachineStalls.everyCPUStopped(start: 813_400_000_000, end: 813_600_000_000, record: record) == 0)
        #expect(
            MachineStalls.during(start: 813_000_000_000, end: 813_030_000_000, record: record)
                == "the stall canary saw no wake-up over 1 ms late in the 30.0 ms to 813.03 s on the monotonic clock")
        // A single canary's file (no CPUs named) cannot say whether the other CPUs ran.
        let single = MachineStalls.parse("815.0 3\n")
        #expect(single.cpus.isEmpty)
        #expect(MachineStalls.everyCPUStopped(start: 815_000_000_000, end: 815_003_000_000, record: single) == 0)
        #expect(
            MachineStalls.during(start: 0, end: 1, path: nil)
                == "no stall canary beside this run (METRONOME_STALL_TIMES unset)")
        // The file as .ci/stall-canary appends it.
        let path = NSTemporaryDirectory() + "metronome-stalls-\(UUID().uuidString.prefix(8))"
        defer { unlink(path) }
        try "cpus 0 1\n812.000000 101.250 0\n812.000000 101.250 1\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        #expect(
            MachineStalls.during(start: 812_050_000_000, end: 812_060_000_000, path: path)
                == "the stall canaries of every CPU slept 10.0 ms of the 10.0 ms to 812.06 s on the monotonic clock "
                + "past their time (101.25 ms late from 812.0 s on CPU 0, 101.25 ms late from 812.0 s on CPU 1)")
        #expect(
            MachineStalls.during(start: 0, end: 1, path: path + "-none")
                == "the stall canary saw no wake-up over 1 ms late in this lane")
    }
}
