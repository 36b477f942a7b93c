import Glibc
import MetronomeLive
import Testing

/// The reading of `CLOCK_MONOTONIC_RAW` against `CLOCK_MONOTONIC`: brackets handed in by the test, some of them
/// preempted (wide), so that which one is kept, and when the reading stops, are exact.
@Suite("The raw clock's offset: the tightest bracket, never a preempted one")
struct RawClockOffsetTests {
    /// A bracket `width` ns wide starting at `early`, the raw clock `offset` ns past the monotonic at `rawAt` ns into
    /// it (a thread preempted before its raw read has `rawAt` near the end, after it near the start).
    private static func bracket(early: Int64, width: Int64, rawAt: Int64, offset: Int64) -> (
        early: Int64, raw: Int64, late: Int64
    ) {
        (early, early + rawAt + offset, early + width)
    }

    @Test("A bracket preempted for 2 ms is outvoted by the next, unpreempted one, which ends the reading")
    func preemptedThenTight() {
        let offset: Int64 = 140_000_000
        var brackets = [
            Self.bracket(early: 1_000_000, width: 2_000_000, rawAt: 2_000_000 - 40, offset: offset),
            Self.bracket(early: 3_000_100, width: 80, rawAt: 40, offset: offset),
            Self.bracket(early: 3_000_300, width: 2_000_000, rawAt: 40, offset: offset),
        ]
        var reads = 0
        let reading = RawClockOffset.tightest {
            reads += 1
            return brackets.removeFirst()
        }
        #expect(reading.rawOffset == offset)
        #expect(reading.width == 80)
        #expect(reading.monotonic == 3_000_180)
        #expect(reads == 2)
    }

    @Test("A first bracket exactly as wide as enough ends the reading at once")
    func firstBracketEnough() {
        var reads = 0
        let reading = RawClockOffset.tightest {
            reads += 1
            return Self.bracket(early: 7_000, width: RawClockOffset.enough, rawAt: 300, offset: 42)
        }
        #expect(reads == 1)
        #expect(reading.width == RawClockOffset.enough)
        #expect(reading.rawOffset == 42 + 300 - RawClockOffset.enough / 2)
        #expect(reading.monotonic == 7_000 + RawClockOffset.enough)
    }

    @Test("With every bracket wider than enough, the tightest of the attempts is kept")
    func everyBracketWide() {
        let offset: Int64 = -5_000
        // Widths 3000, 1600, 2400, 9000 ns; the raw read 100 ns into each: the 1600-ns one is off by 700 ns only.
        let widths: [Int64] = [3_000, 1_600, 2_400, 9_000]
        var index = 0
        let reading = RawClockOffset.tightest {
            let width = widths[index]
            index += 1
            return Self.bracket(early: Int64(index) * 100_000, width: width, rawAt: 100, offset: offset)
        }
        #expect(index == RawClockOffset.attempts)
        #expect(reading.rawOffset == offset + 100 - 800)
        #expect(reading.width == 1_600)
        #expect(reading.monotonic == 4 * 100_000 + 9_000)
    }

    @Test(
        "The clocks themselves: a reading's monotonic time lies between two read around it, and its offset is the raw clock minus ours to 10 µs, as two readings in a row agree"
    )
    func realClocks() {
        let before = HostTime.now().nanoseconds
        let first = RawClockOffset.now()
        let after = HostTime.now().nanoseconds
        let second = RawClockOffset.now()
        #expect(first.monotonic >= before && first.monotonic <= after)
        #expect(second.monotonic >= first.monotonic)
        #expect(abs(second.rawOffset - first.rawOffset) <= 10_000)
        // The raw clock read right after ours, three times; the closest pair is the least preempted.
        let direct = (0..<3).map { _ in
            let ours = HostTime.now().nanoseconds
            return RawClockOffset.nanoseconds(CLOCK_MONOTONIC_RAW) - ours
        }
        #expect(direct.map { abs($0 - first.rawOffset) }.min()! <= 10_000)
    }
}
