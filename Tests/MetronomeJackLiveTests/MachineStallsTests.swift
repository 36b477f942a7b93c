import Foundation
import MetronomeTestSupport
import Testing

struct MachineStallsTests {
    @Test(
        "The stall canary's lines read back as stretches slept past their time; a stretch of ours is set against them: how much of it the canary slept through, or that it saw nothing there"
    )
    func stallsAgainstAGap() throws {
        let stalls = MachineStalls.parse("812.000000 101.250\nnot a line\n813.5 6\n-1 5\n")
        #expect(
            stalls == [
                .init(due: 812_000_000_000, woken: 812_101_250_000),
                .init(due: 813_500_000_000, woken: 813_506_000_000),
            ])
        // Our timer's gap of 104.79 ms ending at 812.1 s: the canary asleep from 812.0 to 812.10125 s.
        #expect(
            MachineStalls.during(start: 811_995_210_000, end: 812_100_000_000, stalls: stalls)
                == "the stall canary slept 100.0 ms of the 104.79 ms to 812.1 s on the monotonic clock past its time "
                + "(101.25 ms late from 812.0 s)")
        #expect(
            MachineStalls.during(start: 813_000_000_000, end: 813_030_000_000, stalls: stalls)
                == "the stall canary saw no wake-up over 5 ms late in the 30.0 ms to 813.03 s on the monotonic clock")
        #expect(
            MachineStalls.during(start: 0, end: 1, path: nil)
                == "no stall canary beside this run (METRONOME_STALL_TIMES unset)")
        // The file as .ci/stall-canary appends it.
        let path = NSTemporaryDirectory() + "metronome-stalls-\(UUID().uuidString.prefix(8))"
        defer { unlink(path) }
        try "812.000000 101.250\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(
            MachineStalls.during(start: 812_050_000_000, end: 812_060_000_000, path: path)
                == "the stall canary slept 10.0 ms of the 10.0 ms to 812.06 s on the monotonic clock past its time "
                + "(101.25 ms late from 812.0 s)")
        #expect(
            MachineStalls.during(start: 0, end: 1, path: path + "-none")
                == "the stall canary saw no wake-up over 5 ms late in this lane")
    }
}
