import CAllocationCounter
import Glibc
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import MetronomeMusic
import MetronomePulse
import MetronomeTestSupport
import Testing

/// PulseAudio's write callback — the live render path — allocates nothing, counted on the mainloop thread itself while
/// a session plays clicks and a chord through a private server; and it keeps the timings that explain an underrun.
@Suite("The PulseAudio write callback, live", .serialized)
struct RenderCallbackTests {
    @Test(
        "Two seconds of clicks and a held chord: every write callback after the first allocates nothing, and each is timed",
        .countsAllocations)
    func writeCallbackAllocatesNothing() throws {
        let server = try PulseServer()
        PulseOutput.allocationProbe = metronome_thread_allocation_count
        defer { PulseOutput.allocationProbe = nil }
        let map = try TempoMap.steady(tempo: BPM(240))
        let piano = InstrumentSynthesizer.bank(.piano, sampleRate: .standard)
        let player = NotePlayer(
            tracks: [.init(bank: piano)], source: NoteBatches([]), sampleRate: .standard)
        let session = try Session(
            map: map, clicks: ClickSynthesizer.clickSet(.standard, sampleRate: .standard),
            configuration: try MixerConfiguration(), players: [player])
        session.start(output: nil)
        let output = try PulseOutput(mixer: session.mixer, server: server.address, latency: .milliseconds(20))
        session.attach(output: output)
        for note in [60, 64, 67] { player.queue.noteOn(note, velocity: 100, at: 0) }
        player.queue.commit()
        session.wake()
        usleep(2_000_000)
        session.stop()
        output.close()
        let timings = output.callbackTimings
        // A 20 ms buffer is topped up every 10 ms or so: some 200 callbacks in 2 s.
        #expect(timings.count > 100)
        #expect(timings.longest > .zero)
        // Each callback's own doing (on the CPU, or waiting) is measured too: what a repeat is judged by.
        #expect(timings.longestOwn > .zero)
        // Our code in every callback after the first allocates nothing (the first may take the runtime's one-time
        // set-up); libpulse's buffer calls are measured apart (a CI run once counted 2 in a callback).
        #expect(output.callbackAllocations == 0)
        print(
            "write callbacks: \(timings.count); allocations: ours in the first \(output.firstCallbackAllocations), "
                + "libpulse's in its buffer calls \(output.libpulseCallbackAllocations)")
        #expect(session.scheduledClickCount >= 8)
        #expect(output.underrunReports.count == output.underrunCount)
    }

    @Test(
        "A stream that takes over a running mixer: silent while it warms up, sounding once aligned, and no write callback after the first allocates",
        .countsAllocations)
    func takeoverCallbacksAllocateNothing() throws {
        let server = try PulseServer()
        PulseOutput.allocationProbe = metronome_thread_allocation_count
        defer { PulseOutput.allocationProbe = nil }
        let session = try Session(
            map: try TempoMap.steady(tempo: BPM(240)), clicks: ClickSynthesizer.clickSet(.standard, sampleRate: .standard),
            configuration: try MixerConfiguration())
        session.start(output: nil)
        let allowance = session.skipAllowance
        let recording = try server.startRecording()
        // As a reconnect opens it (Reconnector): caught up to a frame at its first callback, skipped as the
        // allowance lets it, silent until `advance(by:)` has said how far it plays behind.
        let output = try PulseOutput(
            mixer: session.mixer, server: server.address, latency: .milliseconds(20), catchUp: { _ in 0 },
            skipLimit: { allowance.framesAhead(blockFrames: $0) })
        session.attach(output: output)
        usleep(300_000)
        #expect(!output.isSounding)
        #expect(session.mixer.framePosition > 9600, "the mixer moves with the silent stream")
        output.advance(by: 480)
        var waited = 0
        while !output.isSounding, waited < 1500 {
            session.wake()
            usleep(10_000)
            waited += 10
        }
        #expect(output.isSounding)
        #expect(output.pendingAdvance == 0)
        usleep(500_000)
        session.stop()
        output.close()
        let recorded = try recording.finish()
        #expect(output.callbackAllocations == 0)
        #expect(output.underrunReports.count == output.underrunCount)
        // The recording began before the stream; its first 300 ms of stream are zeros, though a click is due every
        // 12000 frames from the first; once sounding, the clicks are there.
        let firstSound = try #require(recorded.firstIndex { $0 != 0 })
        #expect(firstSound > 14_400)
        #expect(onsets(recorded).count >= 2)
    }
}
