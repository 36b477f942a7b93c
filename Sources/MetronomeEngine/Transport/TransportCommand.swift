import MetronomeModel

/// When a transport command takes effect.
public enum Quantization: Sendable, Hashable {
    /// At the first frame not yet scheduled (about one lookahead after the request, live).
    case now
    /// At the first beat not yet scheduled.
    case nextBeat
    /// At the first downbeat not yet scheduled.
    case nextBar
    /// At a musical position (at once if it has passed); while stopped or paused, as `now`.
    case position(Position)
    /// At an output frame (at once if it has passed): for exact, reproducible command sequences.
    case frame(SampleTime)
    /// At the first beat whose output frame is this frame or later (and not yet scheduled): a command meant for a
    /// wall-clock instant (an OSC time tag) that lands on the grid. While stopped or paused, as `frame`.
    case beat(atOrAfter: SampleTime)
    /// At the first downbeat whose output frame is this frame or later (and not yet scheduled). While stopped or
    /// paused, as `frame`.
    case bar(atOrAfter: SampleTime)

    /// This quantization, not before `frame`: `now` becomes `frame(frame)`, the next beat and bar become the first
    /// beat and bar at or after `frame`; a position or a frame is kept (it is already a moment of its own).
    public func notBefore(_ frame: SampleTime) -> Quantization {
        switch self {
        case .now: .frame(frame)
        case .nextBeat: .beat(atOrAfter: frame)
        case .nextBar: .bar(atOrAfter: frame)
        case .beat(let other): .beat(atOrAfter: max(other, frame))
        case .bar(let other): .bar(atOrAfter: max(other, frame))
        case .position, .frame: self
        }
    }

    /// The earliest frame this quantization allows, when it names one.
    var floorFrame: SampleTime? {
        switch self {
        case .frame(let frame), .beat(let frame), .bar(let frame): frame
        case .now, .nextBeat, .nextBar, .position: nil
        }
    }
}

/// What a transport can be told, from any thread, through `Scheduler.send(_:at:)`.
public enum TransportCommand: Sendable, Hashable {
    /// Play: from the paused position when paused, from the start (count-in included) when stopped.
    case play
    /// Stop: sounding notes are released, and the next `play` starts from the beginning.
    case stop
    /// Pause where the command takes effect; sounding notes are released.
    case pause
    /// Continue from the paused position (the same as `play` while paused).
    case resume
    /// Jump to the downbeat of a bar (numbered as `check` and the status line show it, from 1) …
    case locateBar(Int)
    /// … or to the first bar of a labelled section.
    case locateLabel(String)
    /// A new tempo from here on: a steady click takes it, a song is scaled keeping its structure
    /// (`TempoMap.settingTempo(_:from:)`).
    case setTempo(BPM)
    /// Reach a tempo linearly over a number of beats (1 to `TempoMap.maximumRampBeats`; values beyond are
    /// clamped), from here
    /// (`TempoMap.rampingTempo(to:beats:from:)`).
    case rampTempo(to: BPM, beats: Int)
    /// A speed trainer from here: the tempo rises (or falls) by `step` quarter notes per minute every `bars` bars
    /// until it reaches `limit` (`TempoMap.steppingTempo(by:everyBars:limit:from:)`), klick's tempo increment.
    case stepTempo(by: Double, everyBars: Int, limit: BPM)
    /// Meter, accents, subdivision or swing of the bars from here to the end of their section. A new meter starts
    /// on a downbeat: taking effect inside a bar, it applies from the next one.
    case changeClicks(TempoMap.ClickChange)
    /// Play another map from here (its own count-in included).
    case load(TempoMap)
    /// Master volume, perceptual 0...1 (gain = volume³), ramped across the mixer block holding its frame. It
    /// replaces the gain the session started with.
    case setVolume(Float)
    /// Re-anchors a running transport so that `position` is heard at the exact output frame `frame`, leaving the
    /// tempo map as it is: how an external tempo source (`TempoFollower`) brings the beat onto its phase. What is
    /// already scheduled stays where it is and nothing is released; send it quantized to a frame not after either
    /// the position's current frame or `frame`. Ignored while not running.
    case align(Position, frame: Double)
    /// Plays on from the map's exact frame `mapFrame` (its time from the top, in frames), heard at the exact output
    /// frame `frame`, from any state: an external transport's locate (JACK's transport lock), whose frames are the map's.
    /// Every position's output frame is then its map frame plus `frame - mapFrame`, exactly. Send it quantized to
    /// a frame not after `frame`.
    case seek(mapFrame: Double, frame: Double)

    /// The quantization a command has when none is given: pause, tempo and ramps at the next beat; locate, click
    /// changes, trainers and load at the next bar; the rest now.
    public var defaultQuantization: Quantization {
        switch self {
        case .pause, .setTempo, .rampTempo: .nextBeat
        case .locateBar, .locateLabel, .changeClicks, .load, .stepTempo: .nextBar
        case .play, .stop, .resume, .setVolume, .align, .seek: .now
        }
    }

    /// The tempo the command asks for: a set tempo, or the tempo a ramp reaches; nil for any other command.
    public var askedTempo: BPM? {
        switch self {
        case .setTempo(let tempo), .rampTempo(let tempo, _): tempo
        default: nil
        }
    }
}
