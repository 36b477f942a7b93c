import MetronomeJack
import MetronomeTestSupport
import Testing

/// The slot a JACK process callback stores the timebase master's position in for the scheduling thread.
@Suite("The timebase slot between JACK's process thread and the scheduler")
struct TimebaseSlotTests {
    @Test(
        "A timebase slot reads back as stored, nil included, counts its stores, and is never torn under a concurrent writer"
    )
    func timebaseSlot() {
        let slot = TimebaseSlot()
        #expect(slot.load().position == nil && slot.load().number == 0)
        let position = TimebasePosition(
            frame: 4800, bar: 3, beat: 2, tick: 17, ticksPerBeat: 1920, beatsPerMinute: 97.5, beatsPerBar: 6,
            beatType: 8)
        slot.store(position)
        #expect(slot.load().position == position && slot.load().number == 1)
        slot.store(nil)
        #expect(slot.load().position == nil && slot.load().number == 2)

        // Every position stored has each field made from its frame; a torn read (fields of two stores) breaks that.
        @Sendable func made(_ frame: Int64) -> TimebasePosition {
            let n = Int(frame)
            return TimebasePosition(
                frame: frame, bar: n + 1, beat: n + 2, tick: n + 3, ticksPerBeat: Double(n + 4),
                beatsPerMinute: Double(n + 5), beatsPerBar: Double(n + 6), beatType: Double(n + 7))
        }
        var torn = 0
        var last: (frame: Int64, number: UInt64) = (0, 0)
        whileWriting({ slot.store(made($0)) }) {
            while slot.load().number <= 2 {}
            for _ in 0..<500_000 {
                let (read, number) = slot.load()
                guard let read else { continue }
                if read != made(read.frame) || read.frame < last.frame || number < last.number { torn += 1 }
                last = (read.frame, number)
            }
        }
        #expect(last.frame >= 1)
        #expect(torn == 0)
    }
}
