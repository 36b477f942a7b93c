import MetronomeFiles
import MetronomeTestSupport
import Testing

@Suite("A render ends faded, never cut")
struct RenderEndTests {
    @Test("arp --bars 8: the last 5 ms fade to 0; the length stays 8 bars; before the fade, the same samples")
    func arpeggioFadesOut() throws {
        let scratch = try Scratch()
        let eight = scratch.file("eight.wav")
        let nine = scratch.file("nine.wav")
        for (bars, path) in [("8", eight), ("9", nine)] {
            let result = try CommandRunner.run([
                "arp", "C Am F G", "--bars", bars, "--channels", "1", "--quiet", "-o", path,
            ])
            #expect(result.status == 0)
        }
        let faded = try AudioFileReader.read(path: eight).channels[0]
        let longer = try AudioFileReader.read(path: nine).channels[0]
        #expect(faded.count == 8 * 96_000)
        #expect(faded.last == 0)
        // The notes still sound at the end: without the fade the last sample is far from 0.
        #expect(abs(longer[faded.count - 1]) > 0.001)
        let fade = 240
        #expect(Array(faded[..<(faded.count - fade)]) == Array(longer[..<(faded.count - fade)]))
        for index in (faded.count - fade)..<faded.count {
            let gain: Float = Float(faded.count - 1 - index) / Float(fade)
            #expect(faded[index] == longer[index] * gain, "frame \(index)")
        }
    }
}
