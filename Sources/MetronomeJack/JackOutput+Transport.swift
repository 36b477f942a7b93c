import CJack
import Glibc
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import Synchronization

/// The JACK transport: our controls moving it, the lock that follows it (start-stop, seek, a timebase master's
/// bar, beat and tick), and the timebase master's answer.
extension JackOutput {
    /// Starts, stops or locates the JACK transport for the session's own controls (`TransportLock.setController`).
    /// Any thread; nothing once closed.
    func moveTransport(_ request: TransportLock.Request) {
        closing.withLock { closed in
            guard !closed, let client else { return }
            switch request {
            case .start: jack_transport_start(client)
            case .stop: jack_transport_stop(client)
            case .locate(let frame): _ = jack_transport_locate(client, jack_nframes_t(clamping: max(0, frame)))
            }
        }
    }

    /// Locked to the transport: whether this cycle pulls the mixer. A locate (or the first cycle) asks the session to
    /// seek and keeps the ports silent until it has; a stopped transport keeps them silent and the mixer still (a
    /// Stop on `midi_out` when it stops, a Continue when it rolls on). Real-time path.
    func followTransport(_ lock: TransportLock, client: OpaquePointer, frameCount: Int) -> Bool {
        var position = jack_position_t()
        let state = jack_transport_query(client, &position)
        let rolling = state == JackTransportRolling
        if lock.followsTimebase { lock.timebase.store(Self.timebasePosition(position)) }
        guard positioned(lock, atTransportFrame: Int64(position.frame), rolling: rolling) else {
            silence(frameCount)
            return false
        }
        guard rolling else {
            silence(frameCount)
            if !midiStopped, !midiSeeking, midiPort != nil {
                writeMIDIStatus(0xFC, frameCount: frameCount)
                midiStopped = true
            }
            return false
        }
        if midiSeeking {
            // The seek's own Stop, Song Position and Continue are in this cycle's render.
            midiSeeking = false
            midiStopped = false
        } else if midiStopped {
            midiStopped = false
            writeMIDIStatus(0xFB, frameCount: frameCount)
        }
        return true
    }

    /// A timebase master's bar, beat, tick, tempo and meter in a position, or nil without them (no master, or one
    /// that gives none). Real-time path.
    static func timebasePosition(_ position: jack_position_t) -> TimebasePosition? {
        guard position.valid.rawValue & JackPositionBBT.rawValue != 0 else { return nil }
        return TimebasePosition(
            frame: Int64(position.frame), bar: Int(position.bar), beat: Int(position.beat), tick: Int(position.tick),
            ticksPerBeat: position.ticks_per_beat, beatsPerMinute: position.beats_per_minute,
            beatsPerBar: Double(position.beats_per_bar), beatType: Double(position.beat_type))
    }

    /// Whether the mixer is where the transport frame is heard. If not, asks the session to seek there (a locate, the
    /// first cycle) and answers false until it has; then renders the mixer into nothing up to where the transport has
    /// rolled since (nothing when it waited in Starting for us, a slow-sync client). Process thread.
    func positioned(_ lock: TransportLock, atTransportFrame frame: Int64, rolling: Bool) -> Bool {
        let invalidations = lock.invalidationCount
        if invalidations != lockInvalidations {
            // A new map: its frames are not the transport's until a seek puts them there.
            lockInvalidations = invalidations
            lockDelta = nil
        }
        if lockAwaiting != 0 {
            guard let granted = lock.granted(lockAwaiting) else { return false }
            lockAwaiting = 0
            // Granted for the frame asked: the transport is still there (stopped, or held in Starting for us), or
            // has only rolled on since. Moved back, or moved while not rolling (another locate meanwhile), the grant
            // is for a frame no longer wanted: asked again below.
            let rolledSince = frame - lockRequestFrame
            if rolledSince == 0 || (rolling && rolledSince > 0) {
                // Rolled on before the session was on its frame (JACK's sync timeout ran out, or it already rolled
                // when we came): what fell in between is not heard.
                if rolledSince > 0 { runCounts.addLateJoin() }
                // Nothing from before the transport's frame is heard cut short: a click the catch-up starts (the
                // transport rolled on while the session sought) or one still sounding.
                mixer.skipping(to: granted + rolledSince)
                renderIntoNothing(granted + rolledSince - mixer.framePosition)
                lockDelta = frame - mixer.framePosition
            }
        }
        if let lockDelta, frame - lockDelta == mixer.framePosition { return true }
        if lock.followsTimebase, let lockDelta, rolling, missedFrames > 0,
            frame - lockDelta == mixer.framePosition + missedFrames
        {
            // Following a timebase master, the transport rolled on through cycles the server ran without calling us:
            // the mixer goes on to where it is (what fell in them, MIDI clock included, is not heard), with no seek.
            // A seek puts the map's own time on the transport's frame, which the follower has moved onto the
            // master's beats: the beats after it were off the master's until the follower put the next one back,
            // leaving out the rest of a bar (a click lost). Without a master the map's time is the transport's, and
            // a seek (which also tells MIDI receivers the Song Position again) is kept.
            mixer.skipping(to: frame - lockDelta)
            renderIntoNothing(missedFrames)
            return true
        }
        lockRequestFrame = frame
        lockAwaiting = lock.request(transportFrame: frame)
        // The seek sends its own Stop, Song Position and Continue: nothing more from here until it has played.
        midiSeeking = true
        return false
    }

    /// A slow-sync client's answer: the transport starts (or rolls on after a locate) only once the mixer is at its
    /// frame, so the first click after a start or a locate is on its frame. Process thread, before `process`.
    static let syncCallback: JackSyncCallback = { state, position, context in
        let output = Unmanaged<JackOutput>.fromOpaque(context!).takeUnretainedValue()
        guard let lock = output.transportLock, let position, output.connected.load(ordering: .acquiring) else {
            return 1
        }
        return output.countingAllocations {
            output.positioned(
                lock, atTransportFrame: Int64(position.pointee.frame), rolling: state == JackTransportRolling) ? 1 : 0
        }
    }

    /// The timebase master's answer: bar, beat, tick and tempo at the position's frame, the map's own (the map's
    /// time is the transport's frame). Process thread, after `process`; real-time safe.
    /// Led by a MIDI clock (`ClockTimebase`), the position is the clock's at the next cycle's first mixer frame, the
    /// transport's frame aside.
    static let timebaseCallback: JackTimebaseCallback = { _, _, position, _, context in
        let output = Unmanaged<JackOutput>.fromOpaque(context!).takeUnretainedValue()
        guard let position else { return }
        let answer: BarBeatTick?
        if let timebase = output.clockTimebase {
            answer = output.countingAllocations { timebase.barBeatTick(atMixerFrame: output.mixer.framePosition) }
        } else if let lock = output.transportLock {
            answer = output.countingAllocations { lock.barBeatTick(atMapFrame: Int64(position.pointee.frame)) }
        } else {
            return
        }
        guard let bbt = answer else {
            position.pointee.valid = jack_position_bits_t(position.pointee.valid.rawValue & ~JackPositionBBT.rawValue)
            return
        }
        position.pointee.valid = jack_position_bits_t(position.pointee.valid.rawValue | JackPositionBBT.rawValue)
        position.pointee.bar = Int32(clamping: bbt.bar)
        position.pointee.beat = Int32(clamping: bbt.beat)
        position.pointee.tick = Int32(clamping: bbt.tick)
        position.pointee.bar_start_tick = bbt.barStartTick
        position.pointee.beats_per_bar = Float(bbt.beatsPerBar)
        position.pointee.beat_type = Float(bbt.beatType)
        position.pointee.ticks_per_beat = Double(bbt.ticksPerBeat)
        position.pointee.beats_per_minute = bbt.beatsPerMinute
    }
}
