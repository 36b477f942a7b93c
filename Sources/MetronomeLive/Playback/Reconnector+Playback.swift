import Glibc
import MetronomeEngine
import MetronomeModel

/// Starting and ending live playback over any backend: what `metronome` does around its poll loop, for PulseAudio
/// today and JACK next.
extension Reconnector {
    /// Opens the first backend through `driver`, attaches it to the session and watches it.
    /// - Parameters:
    ///   - session: the session to play, already started (its first window scheduled).
    ///   - driver: opens this backend and, after a loss, new ones.
    ///   - timeout: how long the server may take to answer, and again to accept the stream (each try after a loss
    ///     too).
    ///   - reconnectTimeout: how long to retry after a loss; nil: a loss gives up at once.
    ///   - isCancelled: polled every 10 ms while waiting: true gives up.
    /// - Returns: the reconnector, its `output` playing.
    /// - Throws: the driver's reason when the first backend cannot be opened.
    public static func start(
        session: Session, driver: Driver, timeout: Duration, reconnectTimeout: Duration?, isCancelled: () -> Bool
    ) throws(Failure) -> Reconnector {
        let first = try driver.open(mixer: session.mixer, timeout: timeout, isCancelled: isCancelled, takeover: nil)
        session.attach(output: first)
        return Reconnector(
            output: first, session: session, driver: driver, timeout: reconnectTimeout, tryTimeout: timeout)
    }

    /// Ends playback within about 200 ms (sending MIDI clock, within a lookahead more, so the receivers get their
    /// Stop): the session stops (nothing new is scheduled, held notes are released), a
    /// gap's stand-in clock stops, and, while a backend plays, the sounding voices may ring for `ringOut` before
    /// the rest fades out over 50 ms; then what was rendered is drained and the backend closed. A backend that
    /// stopped pulling (a server stopped with SIGSTOP, or gone) gets neither the wait nor the drain: it would never
    /// answer. Control thread.
    /// - Parameters:
    ///   - ringOut: how long sounding voices may go on before the fade (zero: fade at once).
    ///   - latency: the backend's target latency: a server asks for frames at least every half of it, so a mixer
    ///     that has not moved for that plus 40 ms is not being pulled.
    public func finish(ringOut: Duration, latency: Duration) {
        let playing = isPlaying
        let midi = session.sendsMIDIClock
        let stopFrame = session.stop()
        stopStandIn()
        if playing {
            // The scheduler's timer is cancelled, so this thread may now push to the ring.
            let mixer = session.mixer
            let stall = latency / 2 + .milliseconds(40)
            // Sending MIDI, the receivers get their Stop (and note-offs) before the port closes: at most a lookahead.
            if midi { waitUntilRendered(past: stopFrame, stall: stall) }
            var silence = waitUntilSilent(for: ringOut, stall: stall)
            if silence == .sounding {
                mixer.commands.push(MixerCommand.fadeOutAll(at: mixer.framePosition))
                silence = waitUntilSilent(for: .milliseconds(50), stall: stall)
            }
            if silence != .stalled, isPulled(within: stall) { _ = output.drain(timeout: nil) }
        }
        output.close()
    }

    /// Waits until the mixer has rendered `frame`, or the backend stops pulling (as `waitUntilSilent`).
    private func waitUntilRendered(past frame: SampleTime, stall: Duration) {
        let mixer = session.mixer
        var moved = (position: mixer.framePosition, at: HostTime.now().nanoseconds)
        while mixer.framePosition <= frame, !output.isLost {
            let now = HostTime.now().nanoseconds
            if mixer.framePosition != moved.position {
                moved = (mixer.framePosition, now)
            } else if now - moved.at > stall.wholeNanoseconds {
                return
            }
            usleep(2_000)
        }
    }

    /// How a wait for silence ended.
    private enum Silence {
        /// No voice sounds.
        case silent
        /// Still sounding when the time was up.
        case sounding
        /// The backend stopped pulling the mixer: waiting longer is pointless.
        case stalled
    }

    /// Waits until no voice sounds, the time is up, or the backend stops pulling: the mixer's position has not moved
    /// for `stall`, or the backend is lost.
    private func waitUntilSilent(for time: Duration, stall: Duration) -> Silence {
        let mixer = session.mixer
        let start = HostTime.now().nanoseconds
        var moved = (position: mixer.framePosition, at: start)
        while !mixer.isSilent {
            let now = HostTime.now().nanoseconds
            if output.isLost { return .stalled }
            if mixer.framePosition != moved.position {
                moved = (mixer.framePosition, now)
            } else if now - moved.at > stall.wholeNanoseconds {
                return .stalled
            }
            if now - start >= time.wholeNanoseconds { return .sounding }
            usleep(2_000)
        }
        return .silent
    }

    /// Whether the backend pulls the mixer (its position moves) within `time`.
    private func isPulled(within time: Duration) -> Bool {
        let mixer = session.mixer
        let start = (position: mixer.framePosition, at: HostTime.now().nanoseconds)
        while !output.isLost, HostTime.now().nanoseconds - start.at <= time.wholeNanoseconds {
            if mixer.framePosition != start.position { return true }
            usleep(2_000)
        }
        return false
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    fileprivate var wholeNanoseconds: Int64 { Int64((inSeconds * 1e9).rounded()) }
}

extension Reconnector {
    /// How `play` ended.
    public enum Ending {
        /// `shouldStop` said so (a signal, a quit key or message).
        case stopped
        /// The session reached its end frame, or a finite map played out and every voice ended.
        case reachedEnd
        /// The backend was lost and not won back (`Event.gaveUp`).
        case gaveUp(Failure)
    }

    /// The poll loop of live playback: polls the backend every `interval` (handing each loss and return to
    /// `onEvent`) until `shouldStop` is true, the backend is given up, or, while `playsToEnd` is true, the session
    /// has played out: its end frame reached (`--duration`, `--bars`, even with notes held across it), or a finite map
    /// over with every voice ended. Control thread; follow it with `finish`.
    /// - Parameters:
    ///   - interval: the pause between polls (50 ms for a click, 10 ms when a service publishes beats).
    ///   - playsToEnd: whether the end of the session ends playback now (false for a service, or after the user
    ///     stopped the transport).
    ///   - shouldStop: polled every `interval`, and every 10 ms while a try waits on the server.
    ///   - onEvent: told of every `Event` but `.none` and `.gaveUp`.
    public mutating func play(
        interval: Duration, playsToEnd: () -> Bool, shouldStop: () -> Bool, onEvent: (Event) -> Void
    ) -> Ending {
        var reachedEnd = false
        while !shouldStop() {
            if playsToEnd() {
                if reachedEnd || session.isFinished { return .reachedEnd }
            }
            switch poll(isCancelled: shouldStop) {
            case .none: break
            case .gaveUp(let failure): return .gaveUp(failure)
            case let event: onEvent(event)
            }
            usleep(UInt32(interval.wholeNanoseconds / 1000))
            reachedEnd = playsToEnd() && session.hasReachedEnd
        }
        return .stopped
    }
}
