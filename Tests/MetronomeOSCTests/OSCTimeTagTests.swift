import MetronomeOSC
import MetronomeTestSupport
import Testing

@Suite("OSC time tags: NTP fixed point and nanoseconds")
struct OSCTimeTagTests {
    private let second: Int64 = 1_000_000_000
    /// Nanoseconds from 1900 to the end of NTP era 0.
    private let eraEnd: Int64 = (1 << 32) * 1_000_000_000

    @Test("immediately is the raw value 1; halves and description")
    func immediately() {
        #expect(OSCTimeTag.immediately.rawValue == 1)
        #expect(OSCTimeTag.immediately.isImmediate)
        #expect(OSCTimeTag.immediately == OSCTimeTag(seconds: 0, fraction: 1))
        #expect(!OSCTimeTag(rawValue: 0).isImmediate)
        #expect(OSCTimeTag.immediately.description == "immediately")
        let tag = OSCTimeTag(seconds: 0xE8FE_1C80, fraction: 0x8000_0000)
        #expect(tag.rawValue == 0xE8FE_1C80_8000_0000)
        #expect(tag.seconds == 0xE8FE_1C80)
        #expect(tag.fraction == 0x8000_0000)
        #expect(tag.description == "0xE8FE1C80.80000000")
        #expect(OSCTimeTag(rawValue: 0xA).description == "0x00000000.0000000A")
    }

    @Test("The Unix epoch is 2,208,988,800 s after the NTP epoch")
    func unixEpoch() throws {
        #expect(OSCTimeTag.unixEpochOffsetSeconds == 2_208_988_800)
        let epoch = try OSCTimeTag(unixNanoseconds: 0)
        #expect(epoch == OSCTimeTag(seconds: 0x83AA_7E80, fraction: 0))
        #expect(epoch.unixNanoseconds == 0)
        #expect(epoch.ntpNanoseconds == 2_208_988_800 * second)
        #expect(try OSCTimeTag(unixNanoseconds: second / 2) == OSCTimeTag(seconds: 0x83AA_7E80, fraction: 0x8000_0000))
        #expect(try OSCTimeTag(unixNanoseconds: -second / 2) == OSCTimeTag(seconds: 0x83AA_7E7F, fraction: 0x8000_0000))
    }

    @Test("Fractions round to the nearest unit and back to the nearest nanosecond")
    func fractionRounding() throws {
        #expect(try OSCTimeTag(ntpNanoseconds: 1) == OSCTimeTag(seconds: 0, fraction: 4))  // 4.29 units
        #expect(OSCTimeTag(seconds: 0, fraction: 4).ntpNanoseconds == 1)  // 0.93 ns
        #expect(OSCTimeTag(seconds: 0, fraction: 1).ntpNanoseconds == 0)  // 0.23 ns
        #expect(OSCTimeTag(seconds: 0, fraction: 3).ntpNanoseconds == 1)  // 0.70 ns
        #expect(try OSCTimeTag(ntpNanoseconds: second - 1) == OSCTimeTag(seconds: 0, fraction: 0xFFFF_FFFC))
        // 2²² units are 976,562.5 ns exactly: a tie, rounded up.
        #expect(OSCTimeTag(seconds: 0, fraction: 1 << 22).ntpNanoseconds == 976_563)
        // The last unit of a second rounds to the next whole second.
        #expect(OSCTimeTag(seconds: 7, fraction: 0xFFFF_FFFF).ntpNanoseconds == 8 * second)
    }

    @Test("Era 0's edges: 1900 and 2036-02-07T06:28:16Z")
    func eraEdges() throws {
        #expect(try OSCTimeTag(ntpNanoseconds: 0).rawValue == 0)
        #expect(throws: OSCError.timeOutOfRange(nanoseconds: -1)) { try OSCTimeTag(ntpNanoseconds: -1) }
        let last = try OSCTimeTag(ntpNanoseconds: eraEnd - 1)
        #expect(last == OSCTimeTag(seconds: 0xFFFF_FFFF, fraction: 0xFFFF_FFFC))
        #expect(last.ntpNanoseconds == eraEnd - 1)
        #expect(throws: OSCError.timeOutOfRange(nanoseconds: eraEnd)) { try OSCTimeTag(ntpNanoseconds: eraEnd) }
        let unixEnd = eraEnd - 2_208_988_800 * second
        #expect(try OSCTimeTag(unixNanoseconds: unixEnd - 1) == last)
        #expect(throws: OSCError.timeOutOfRange(nanoseconds: unixEnd)) { try OSCTimeTag(unixNanoseconds: unixEnd) }
        let unixStart = -2_208_988_800 * second
        #expect(try OSCTimeTag(unixNanoseconds: unixStart).rawValue == 0)
        #expect(throws: OSCError.timeOutOfRange(nanoseconds: unixStart - 1)) {
            try OSCTimeTag(unixNanoseconds: unixStart - 1)
        }
        #expect(throws: OSCError.timeOutOfRange(nanoseconds: .max)) { try OSCTimeTag(unixNanoseconds: .max) }
        #expect(throws: OSCError.timeOutOfRange(nanoseconds: .min)) { try OSCTimeTag(unixNanoseconds: .min) }
        #expect(
            OSCError.timeOutOfRange(nanoseconds: -1).description
                == "time -1 ns is outside the range of OSC time tags (1900-01-01 up to 2036-02-07T06:28:16Z)")
    }

    @Test("A monotonic clock through an offset sampled by the caller")
    func monotonic() throws {
        let offset: Int64 = 1_700_000_000_123_456_789
        let tag = try OSCTimeTag(monotonicNanoseconds: 5 * second, unixOffsetNanoseconds: offset)
        #expect(tag.unixNanoseconds == 1_700_000_005_123_456_789)
        #expect(try tag.monotonicNanoseconds(unixOffsetNanoseconds: offset) == 5 * second)
        #expect(
            try OSCTimeTag(monotonicNanoseconds: -offset, unixOffsetNanoseconds: offset)
                == OSCTimeTag(unixNanoseconds: 0))
        #expect(throws: OSCError.timeOutOfRange(nanoseconds: .max)) {
            try OSCTimeTag(monotonicNanoseconds: .max, unixOffsetNanoseconds: 1)
        }
        #expect(throws: OSCError.timeOutOfRange(nanoseconds: 5 * second)) {
            try OSCTimeTag(monotonicNanoseconds: 5 * second, unixOffsetNanoseconds: 3_000_000_000 * second)
        }
        let late = OSCTimeTag(seconds: 0xFFFF_FFFF, fraction: 0)
        #expect(throws: OSCError.timeOutOfRange(nanoseconds: late.unixNanoseconds)) {
            try late.monotonicNanoseconds(unixOffsetNanoseconds: .min)
        }
    }

    @Test(
        "200,000 seeded nanosecond counts survive nanoseconds → tag → nanoseconds exactly; tags move by at most 2 units"
    )
    func roundTripSweep() throws {
        var random = SplitMix(seed: 0x05C_71A6)
        for _ in 0..<100_000 {
            let nanoseconds = Int64.random(in: 0..<eraEnd, using: &random)
            #expect(try OSCTimeTag(ntpNanoseconds: nanoseconds).ntpNanoseconds == nanoseconds)
            let unix = Int64.random(in: -second...second, using: &random) + 1_700_000_000 * second
            #expect(try OSCTimeTag(unixNanoseconds: unix).unixNanoseconds == unix)
        }
        for _ in 0..<100_000 {
            let tag = OSCTimeTag(rawValue: UInt64.random(in: 0..<UInt64(0xFFFF_FFFF) << 32, using: &random))
            let back = try OSCTimeTag(ntpNanoseconds: tag.ntpNanoseconds)
            let distance = back.rawValue > tag.rawValue ? back.rawValue - tag.rawValue : tag.rawValue - back.rawValue
            #expect(distance <= 2)
        }
    }
}
