import MetronomeTestSupport
import Testing

/// The practice drills live: what PulseAudio records is what the render wrote, so the offline tests' exact frames
/// (`PracticeDrillTests`) hold live too.
@Suite("Practice drills live through a real PulseAudio server", .serialized)
struct PracticeLiveTests {
    @Test(
        "--random-mute 50% --mute-seed 5 --practice 4s at 240 BPM: the recording is the render sample for sample — bars 3 and 4 muted, the chime on frame 192000 — and the run ends by itself, exit 0"
    )
    func randomMuteAndPracticeLive() throws {
        let server = try PulseServer()
        let scratch = try Scratch()
        let (recorded, offline) = try playLiveAndRender(
            ["--bpm", "240", "--random-mute", "50%", "--mute-seed", "5", "--practice", "4s", "--quiet"], server: server,
            scratch: scratch)
        // Bars 1 and 2 sound (a click every 12000 frames), bars 3 and 4 (2 and 3 from 0) are muted, then the chime.
        #expect(onsets(offline) == stride(from: 0, to: 96_000, by: 12_000).map { $0 } + [192_000])
        #expect(holds(recorded, offline))
    }
}
