import MetronomeKit

/// A one-line progress bar on a terminal's stderr (`RenderProgress.line`), shown only for renders still running after
/// one second, and never written when stderr is not a terminal.
struct ProgressBar {
    let total: SampleTime
    let output: FileOutput
    let enabled: Bool
    /// The file's size when it is known (`AudioFileRender.knownFileBytes`).
    let bytes: Int64?
    /// Frames a second of the render's sound.
    let framesPerSecond: Int
    private let start = ContinuousClock.now
    private var lastDrawn: ContinuousClock.Instant?
    private var visible = false
    private var calls = 0

    init(total: SampleTime, output: FileOutput, enabled: Bool, bytes: Int64? = nil, framesPerSecond: Int = 48_000) {
        self.total = total
        self.output = output
        self.enabled = enabled && output.isTerminal && total > 0
        self.bytes = bytes
        self.framesPerSecond = framesPerSecond
    }

    /// Redraws at most ten times a second, once a second has passed.
    mutating func update(_ done: SampleTime) {
        guard enabled else { return }
        calls += 1
        guard calls % 32 == 0 else { return }
        let now = ContinuousClock.now
        guard now - start >= .seconds(1) else { return }
        if let lastDrawn, now - lastDrawn < .milliseconds(100) { return }
        lastDrawn = now
        output.write(
            "\r" + RenderProgress.line(done: done, of: total, bytes: bytes, elapsed: now - start, rate: framesPerSecond)
        )
        visible = true
    }

    /// Erases the bar.
    mutating func clear() {
        guard visible else { return }
        output.write("\r\u{1B}[2K")
        visible = false
    }
}
