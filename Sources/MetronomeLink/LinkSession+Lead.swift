import CLink
import MetronomeLive
import MetronomeModel

extension LinkSession {
    /// Leading the session from a clock it does not hear (a MIDI clock we follow): makes the session hear `beat` at
    /// `hostTime` at `tempo`, for every peer, unless its timeline already does within `tolerance` — Link's
    /// `forceBeatAtTime`, which its documentation keeps for bridging an external clock into a session (it moves every
    /// peer's phase, unlike `propose(beat:at:tempo:)`, which waits for the session's). The tempo is clamped to
    /// `tempoRange`.
    /// - Parameters:
    ///   - beat: the session beat (a quarter note of ours) heard at `hostTime`.
    ///   - hostTime: when it is heard.
    ///   - tempo: the tempo from there on.
    ///   - tolerance: how far the session's time for `beat` may be from `hostTime`, in microseconds, before it is
    ///     moved; a tempo differing by more than 0.0005 BPM is set whatever the phase.
    /// - Returns: how far the session's time for `beat` was from `hostTime` when it was moved, in microseconds
    ///   (positive: the session heard it later), or 0 when the tempo changed by more than 0.05 BPM (the old tempo's
    ///   time for it is no correction); nil when nothing was committed (in tolerance, or Link off).
    public func lead(beat: Double, at hostTime: HostTime, tempo: BPM, tolerance: Double) -> Double? {
        guard isEnabled else { return nil }
        let quantum = self.quantum
        let bpm = min(max(tempo.quarterNotesPerMinute, Self.tempoRange.lowerBound), Self.tempoRange.upperBound)
        let micros = LinkClock.micros(of: hostTime)
        var state = clink_state()
        clink_capture_app_state(handle, &state)
        let offset = Double(clink_state_time_at_beat(&state, beat, quantum) - micros)
        let tempoChange = abs(clink_state_tempo(&state) - bpm)
        guard abs(offset) > tolerance || tempoChange > 0.0005 else { return nil }
        clink_state_set_tempo(&state, bpm, micros)
        clink_state_force_beat_at_time(&state, beat, micros, quantum)
        clink_commit_app_state(handle, &state)
        return tempoChange > 0.05 ? 0 : offset
    }
}
