import MetronomeModel

/// The line of a render's progress bar: the share done, the file's bytes so far of its size (a WAV or AIFF's, known
/// before it starts), the time left at the rate so far, and that rate against real time —
/// `[################------------------------] 40%  92.2 MB of 230.5 MB  12 s left  83× real time`.
public enum RenderProgress {
    /// The bar's text for `done` frames of `total` after `elapsed`.
    /// - Parameters:
    ///   - done: the frames rendered so far.
    ///   - total: the frames of the whole render.
    ///   - bytes: the file's size when known (`AudioFileRender.knownFileBytes`), else nil (FLAC, Ogg).
    ///   - elapsed: the time since the render started.
    ///   - rate: frames a second of the render's sound.
    public static func line(done: SampleTime, of total: SampleTime, bytes: Int64?, elapsed: Duration, rate: Int)
        -> String
    {
        let width = 40
        let fraction = total > 0 ? Double(min(done, total)) / Double(total) : 1
        let filled = Int(fraction * Double(width))
        var text = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
        text += "\(Int(fraction * 100))%"
        if let bytes {
            text += "  \(RenderError.size(Int64(fraction * Double(bytes)))) of \(RenderError.size(bytes))"
        }
        let seconds = elapsed.inSeconds
        guard seconds > 0, done > 0, rate > 0 else { return text }
        let framesPerSecond = Double(done) / seconds
        let left = Int((Double(max(0, total - done)) / framesPerSecond).rounded(.up))
        text += left >= 120 ? "  \(left / 60) min left" : "  \(left) s left"
        let speed = framesPerSecond / Double(rate)
        text += speed < 10 ? "  \((speed * 10).rounded() / 10)× real time" : "  \(Int(speed.rounded()))× real time"
        return text
    }
}
