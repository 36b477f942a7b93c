import CLink
import MetronomeLive
import MetronomeModel

/// What a Link session tells its owner, on Link's own thread.
public enum LinkEvent: Sendable, Equatable {
    /// The number of other peers in the session changed.
    case peers(Int)
    /// The session's tempo changed (a peer's change, or ours committed), in Link beats per minute.
    case tempo(Double)
    /// With start/stop sync: the session started or stopped playing.
    case playing(Bool)
}

/// Link's failures, as one line each.
public struct LinkError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    /// An error with its whole message.
    public init(_ description: String) { self.description = description }
}

/// One Ableton Link instance: joins the session of every Link peer on the network, and is the `TempoSource` a
/// `Session` follows (`Session.follow(_:)`), both ways: the session's tempo and phase are followed, and a tempo
/// change of ours is proposed to it (`propose(tempo:atBeat:hostTime:)`).
///
/// Beats: a Link beat is one of our quarter notes. Phase: our bar downbeats fall on multiples of `quantum` Link
/// beats (by default the first bar's length in quarter notes: 4 in 4/4, 3 in 6/8), so peers with the same quantum
/// agree on the downbeat. Link is off until `enable(_:)`.
///
/// Threads: any. The session state is captured and committed with Link's app-thread pair (which may wait briefly on
/// Link's lock): on the scheduling thread, never on the render thread. `onEvent` runs on Link's thread.
public final class LinkSession: TempoSource, @unchecked Sendable {
    // @unchecked: `handle` is created in init and freed in deinit, and every clink_* function used here is safe from
    // any thread (Link's app-state capture and commit take Link's own lock; the audio pair is not used); `context`
    // is immutable; the mutable settings are behind `settings`' lock.
    let handle: OpaquePointer
    private let context: Context
    private let settings: Locked<Settings>

    /// The tempo range a Link session can carry (Link clamps to it; its TEST-PLAN's TEMPO-4).
    public static let tempoRange: ClosedRange<Double> = 20...999

    private struct Settings {
        var quantum: Double
        var followsStartStop = false
        /// When Link was last turned on (nil while off).
        var enabledAt: HostTime?
    }

    /// The callbacks' context, handed to C as an unretained pointer: the session owns it and outlives the Link
    /// instance (destroyed first, in deinit, which stops Link's thread).
    private final class Context: @unchecked Sendable {
        // @unchecked: `handler` is set once in init and only read after.
        let handler: @Sendable (LinkEvent) -> Void
        init(handler: @escaping @Sendable (LinkEvent) -> Void) { self.handler = handler }
    }

    /// Creates a disabled instance.
    /// - Parameters:
    ///   - tempo: the tempo a session started here begins with, in quarter notes per minute (clamped to
    ///     `tempoRange`).
    ///   - quantum: Link beats per phase cycle (values below 1 count as 1).
    ///   - onEvent: called on Link's thread when the peers, the tempo or the playing state change.
    /// - Throws: `LinkError` when Link cannot start its network context.
    public init(tempo: Double, quantum: Double, onEvent: @escaping @Sendable (LinkEvent) -> Void = { _ in })
        throws(LinkError)
    {
        var message = [CChar](repeating: 0, count: 256)
        let bpm = min(max(tempo, Self.tempoRange.lowerBound), Self.tempoRange.upperBound)
        guard let handle = clink_create(bpm, &message, message.count) else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw LinkError("Ableton Link could not start: \(text)")
        }
        self.handle = handle
        context = Context(handler: onEvent)
        settings = Locked(Settings(quantum: Self.checked(quantum)))
        LinkSession.installCallbacks(handle, context: Unmanaged.passUnretained(context).toOpaque())
    }

    deinit { clink_destroy(handle) }

    /// The C callbacks, formed outside any actor: Link calls them on its own thread.
    nonisolated private static func installCallbacks(_ handle: OpaquePointer, context: UnsafeMutableRawPointer) {
        clink_set_callbacks(
            handle,
            { peers, context in
                Unmanaged<Context>.fromOpaque(context!).takeUnretainedValue().handler(.peers(Int(peers)))
            },
            { bpm, context in
                Unmanaged<Context>.fromOpaque(context!).takeUnretainedValue().handler(.tempo(bpm))
            },
            { playing, context in
                Unmanaged<Context>.fromOpaque(context!).takeUnretainedValue().handler(.playing(playing))
            },
            context)
    }

    /// Whether Link is on (discovering peers, sharing the session).
    public var isEnabled: Bool { clink_is_enabled(handle) }

    /// The seam's word for `isEnabled`: a session following a disabled Link sleeps through idle stretches.
    public var isActive: Bool { isEnabled }

    /// Alone in the session (enabled, no other peer), an offered beat is mapped where it is offered
    /// (`propose(beat:at:tempo:)`): there is no one else's phase to keep.
    public var takesOfferedBeat: Bool { isEnabled && peers == 0 }

    /// Turns Link on or off. Off, the session plays alone from where it is, at the tempo it has.
    public func enable(_ on: Bool) {
        settings.withLock { $0.enabledAt = on ? ($0.enabledAt ?? HostTime.now()) : nil }
        clink_enable(handle, on)
    }

    /// Whether Link is on, alone, and within `joinWindow` of being turned on: a peer's session may not have been
    /// found yet.
    func isDiscovering(at time: HostTime) -> Bool {
        guard let since = settings.withLock({ $0.enabledAt }), peers == 0 else { return false }
        return time.nanoseconds - since.nanoseconds < Int64(Self.joinWindow.inSeconds * 1e9)
    }

    /// Whether play and stop are shared with the session's peers that share them too.
    public var isStartStopSyncEnabled: Bool { clink_is_start_stop_sync_enabled(handle) }

    /// Shares play and stop, or stops sharing them.
    public func enableStartStopSync(_ on: Bool) {
        clink_enable_start_stop_sync(handle, on)
        settings.withLock { $0.followsStartStop = on }
    }

    /// The other peers in the session (0 when alone or disabled).
    public var peers: Int { Int(clink_num_peers(handle)) }

    /// Link beats per phase cycle (at least 1).
    public var quantum: Double {
        get { settings.withLock { $0.quantum } }
        set { settings.withLock { $0.quantum = Self.checked(newValue) } }
    }

    /// The session's tempo, in Link beats (quarter notes) per minute.
    public var tempo: Double {
        var state = clink_state()
        clink_capture_app_state(handle, &state)
        return clink_state_tempo(&state)
    }

    /// The session's beat timeline at an instant, or nil while Link is off, and while it is discovering: on, alone,
    /// within `joinWindow` of being turned on (as `join` waits before the first click). A follower that saw the
    /// timeline then would offer our tempo and phase to a session that only seems ours alone
    /// (`propose(beat:at:tempo:)` commits them), and a session found a moment later could take our tempo (Link's
    /// TEST-PLAN TEMPO-2: joining must not change it; CI at 04d8a51, `/metronome/link 1` beside a peer at 97 left the
    /// session at our 120). Until a peer is found or the window has passed, the session plays on as it was.
    public func timeline(at time: HostTime) -> BeatTimeline? {
        guard isEnabled, !isDiscovering(at: time) else { return nil }
        let quantum = self.quantum
        var state = clink_state()
        clink_capture_app_state(handle, &state)
        let micros = LinkClock.micros(of: time)
        let beat = clink_state_beat_at_time(&state, micros, quantum)
        // The beat at the whole microsecond, carried to the nanosecond asked for.
        let at = LinkClock.hostTime(ofMicros: micros)
        let bpm = clink_state_tempo(&state)
        guard let tempo = try? BPM(bpm) else { return nil }
        let timeline = BeatTimeline(tempo: tempo, beat: beat, hostTime: at, quantum: quantum)
        return BeatTimeline(tempo: tempo, beat: timeline.beat(at: time), hostTime: time, quantum: quantum)
    }

    /// Proposes a tempo of ours to the session from a beat on: the session keeps that beat where it is heard and
    /// takes the tempo from there (Link applies it to the whole timeline, anchored at that beat).
    public func propose(tempo: BPM, atBeat beat: Double, hostTime: HostTime) -> Bool {
        guard isEnabled else { return false }
        var state = clink_state()
        clink_capture_app_state(handle, &state)
        let bpm = min(max(tempo.quarterNotesPerMinute, Self.tempoRange.lowerBound), Self.tempoRange.upperBound)
        clink_state_set_tempo(&state, bpm, clink_state_time_at_beat(&state, beat, quantum))
        clink_commit_app_state(handle, &state)
        return true
    }

    /// Asks the session to hear `beat` at `hostTime`: alone, the session takes our tempo and phase as they are
    /// (nothing moves); with peers, their tempo stays and the beat goes to the next time the session's phase matches
    /// it (Link's quantized launch).
    public func propose(beat: Double, at hostTime: HostTime, tempo: BPM) {
        guard isEnabled else { return }
        var state = clink_state()
        clink_capture_app_state(handle, &state)
        let micros = LinkClock.micros(of: hostTime)
        if peers == 0 {
            let bpm = min(max(tempo.quarterNotesPerMinute, Self.tempoRange.lowerBound), Self.tempoRange.upperBound)
            clink_state_set_tempo(&state, bpm, micros)
        }
        clink_state_request_beat_at_time(&state, beat, micros, quantum)
        clink_commit_app_state(handle, &state)
    }

    /// With start/stop sync on: whether the session plays, and since (or from) when; nil otherwise, and while Link is
    /// off.
    public func playState() -> SourcePlayState? {
        guard isEnabled, settings.withLock({ $0.followsStartStop }) else { return nil }
        var state = clink_state()
        clink_capture_app_state(handle, &state)
        return SourcePlayState(
            isPlaying: clink_state_is_playing(&state),
            hostTime: LinkClock.hostTime(ofMicros: clink_state_time_for_is_playing(&state)))
    }

    /// With start/stop sync on: starts the session (beat 0 where Link's quantized launch puts it: at `hostTime`
    /// alone, else the session's next quantum boundary) or stops it at `hostTime`.
    /// - Returns: the instant of the start's beat 0 or of the stop; nil when start/stop sync is off.
    public func propose(playing: Bool, at hostTime: HostTime) -> HostTime? {
        guard isEnabled, settings.withLock({ $0.followsStartStop }) else { return nil }
        let quantum = self.quantum
        var state = clink_state()
        clink_capture_app_state(handle, &state)
        let micros = LinkClock.micros(of: hostTime)
        if playing {
            clink_state_set_is_playing_and_request_beat_at_time(&state, true, micros, 0, quantum)
        } else {
            clink_state_set_is_playing(&state, false, micros)
        }
        clink_commit_app_state(handle, &state)
        guard playing else { return hostTime }
        clink_capture_app_state(handle, &state)
        return LinkClock.hostTime(ofMicros: clink_state_time_at_beat(&state, 0, quantum))
    }

    /// Where a start at `time` falls (Link's quantized launch): alone, at `time` itself, the session taking beat 0
    /// there; with peers, at the session's next quantum boundary at or after it, which becomes beat 0.
    /// - Parameter time: the earliest start.
    /// - Returns: the instant beat 0 is heard.
    public func startTime(atOrAfter time: HostTime) -> HostTime {
        guard isEnabled else { return time }
        let quantum = self.quantum
        var state = clink_state()
        clink_capture_app_state(handle, &state)
        clink_state_request_beat_at_time(&state, 0, LinkClock.micros(of: time), quantum)
        clink_commit_app_state(handle, &state)
        clink_capture_app_state(handle, &state)
        return LinkClock.hostTime(ofMicros: clink_state_time_at_beat(&state, 0, quantum))
    }

    private static func checked(_ quantum: Double) -> Double { quantum.isFinite ? max(1, quantum) : 1 }
}
