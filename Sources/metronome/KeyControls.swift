import Glibc
import MetronomeKit
import Synchronization

/// What the keys do to a live session (see `KeyAction`): tempo steps and factors at the next beat, beats per bar at
/// the next bar, volume at once, stop/play, pause/continue, tap tempo, quit, and `?` for the list of keys.
///
/// Threads: `handle` from the keys' thread; `quitRequested` and `userStopped` from any thread.
final class KeyControls: Sendable {
    private let session: Session
    private let state: Mutex<(volume: Float, quit: Bool, stopped: Bool)>

    /// Controls for a session playing at a perceptual volume.
    init(session: Session, volume: Float) {
        self.session = session
        state = Mutex((volume, false, false))
    }

    /// Whether `q` or Esc was pressed.
    var quitRequested: Bool { state.withLock { $0.quit } }

    /// Whether the music was stopped with space (the command then waits for space again, or `q`).
    var userStopped: Bool { state.withLock { $0.stopped } }

    /// Acts on a key.
    func handle(_ key: Key) {
        guard let action = KeyAction(key) else { return }
        switch action {
        case .tempoStep(let step): setTempo { $0 + step }
        case .tempoFactor(let factor): setTempo { $0 * factor }
        case .beatsPerBar(let beats):
            let unit = session.tempoAndMeter.meter.unit
            if let meter = try? Meter(beats: beats, unit: unit) {
                session.send(.changeClicks(TempoMap.ClickChange(meter: meter)))
            }
        case .volumeStep(let step):
            let volume = state.withLock { state in
                state.volume = min(1, max(0, state.volume + step))
                return state.volume
            }
            session.send(.setVolume(volume))
        case .stopOrPlay:
            let stopping = session.state != .stopped
            state.withLock { $0.stopped = stopping }
            session.send(stopping ? .stop : .play)
        case .pauseOrContinue: session.send(session.state == .paused ? .resume : .pause)
        case .tap: session.tap()
        case .quit: state.withLock { $0.quit = true }
        case .help: FileOutput.standardError.write("\r\n" + KeyAction.summary + "\r\n")
        }
    }

    /// Sends the tempo `change` makes of the current one, kept within 1...1000 BPM, for the next beat.
    private func setTempo(_ change: (Double) -> Double) {
        let tempo = change(session.tempoAndMeter.tempo)
        guard tempo.isFinite, let bpm = try? BPM(min(1000, max(1, tempo))) else { return }
        session.send(.setTempo(bpm))
    }
}
