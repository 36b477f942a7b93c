import MetronomeEngine
import MetronomeModel
import Synchronization

/// klick's controls over a live session (`KeyAction`), for keys, buttons or any other front end: tempo steps and
/// factors at the next beat, beats per bar at the next bar, volume at once, stop/play, pause/continue, tap tempo,
/// quit. The front end shows the list of keys itself (`KeyAction.help` does nothing here).
///
/// Threads: `perform` from any thread (the keys' thread, a web handler); the properties from any thread.
public final class SessionControls: Sendable {
    private let session: Session
    private let state: Locked<(quit: Bool, stopped: Bool)>
    /// The volume the session started at, which the volume steps start from until a volume is asked for.
    private let startVolume: Float

    /// Controls for a session.
    /// - Parameters:
    ///   - session: the session controlled.
    ///   - volume: the perceptual volume it starts at (0...1), which the volume steps start from until a volume is
    ///     asked for (`Session.askedVolume`).
    public init(session: Session, volume: Float) {
        self.session = session
        startVolume = volume
        state = Locked((false, false))
    }

    /// Whether a quit was asked for (`q` or Esc at a terminal).
    public var quitRequested: Bool { state.withLock { $0.quit } }

    /// Whether the music was stopped by `.stopOrPlay` (a player then waits for it again, or a quit).
    public var userStopped: Bool { state.withLock { $0.stopped } }

    /// Acts on an action: transport commands go to the session at their default quantization.
    /// - Parameter action: what to do.
    public func perform(_ action: KeyAction) {
        switch action {
        case .tempoStep(let step): setTempo { $0 + step }
        case .tempoFactor(let factor): setTempo { $0 * factor }
        case .beatsPerBar(let beats):
            let unit = session.tempoAndMeter.meter.unit
            if let meter = try? Meter(beats: beats, unit: unit) {
                session.send(.changeClicks(TempoMap.ClickChange(meter: meter)))
            }
        case .volumeStep(let step):
            // From the volume asked for last, by any control (a key, OSC, the page).
            session.send(.setVolume(min(1, max(0, (session.askedVolume ?? startVolume) + step))))
        case .stopOrPlay:
            let stopping = session.state != .stopped
            state.withLock { $0.stopped = stopping }
            session.send(stopping ? .stop : .play)
        case .pauseOrContinue: session.send(session.state == .paused ? .resume : .pause)
        case .tap: session.tap()
        case .quit: state.withLock { $0.quit = true }
        case .help: break
        }
    }

    /// Sends the tempo `change` makes of the one asked for last (`Session.askedTempo`: a step not yet landed
    /// counts), kept within 1...1000 BPM, for the next beat.
    private func setTempo(_ change: (Double) -> Double) {
        let tempo = change(session.askedTempo)
        guard tempo.isFinite, let bpm = try? BPM(min(1000, max(1, tempo))) else { return }
        session.send(.setTempo(bpm))
    }
}
