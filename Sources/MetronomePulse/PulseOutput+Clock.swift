import CPulseAudio
import Glibc
import MetronomeLive

/// The host clock of a PulseAudio stream: a mainloop timer asks the server for timing information, each reply becomes
/// an observation "this mixer frame was being heard at this `CLOCK_MONOTONIC` time", and the fit is published.
///
/// Threads: everything here runs on the mainloop thread, or on a thread holding the mainloop lock.
extension PulseOutput {
    /// The slowest pace of timing requests: one small round trip to the server every 100 ms.
    static let clockUpdateInterval: Duration = .milliseconds(100)
    /// The slowest pace while a takeover stream waits to be compared with its grid (`awaitsAlignment`): some ten
    /// reports in the 250 ms before the comparison rather than five.
    static let alignmentUpdateInterval: Duration = .milliseconds(25)

    /// Starts the timer that asks for timing updates (lock held, stream ready).
    func startClock() {
        clockTimer = pa_context_rttime_new(
            connection.context, pa_rtclock_now() + PulseOutput.microseconds(clockInterval),
            { _, _, _, userData in
                Unmanaged<PulseOutput>.fromOpaque(userData!).takeUnretainedValue().requestTiming()
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Stops the timer and cancels the update in flight, so no callback reaches this object again (lock held).
    func stopClock() {
        if let clockTimer {
            pa_threaded_mainloop_get_api(connection.mainloop).pointee.time_free(clockTimer)
            self.clockTimer = nil
        }
        if let pendingUpdate {
            pa_operation_cancel(pendingUpdate)
            pa_operation_unref(pendingUpdate)
            self.pendingUpdate = nil
        }
    }

    /// The timer fired (mainloop thread): sends one timing request unless one is still in flight, and re-arms.
    private func requestTiming() {
        guard let stream, let clockTimer else { return }
        if pendingUpdate == nil {
            updateSent = HostTime.now()
            pendingUpdate = pa_stream_update_timing_info(
                stream,
                { stream, success, userData in
                    let output = Unmanaged<PulseOutput>.fromOpaque(userData!).takeUnretainedValue()
                    output.timingArrived(stream!, success: success != 0)
                }, Unmanaged.passUnretained(self).toOpaque())
        }
        clockInterval = min(
            clockInterval * 2,
            awaitsAlignment ? PulseOutput.alignmentUpdateInterval : PulseOutput.clockUpdateInterval)
        pa_context_rttime_restart(
            connection.context, clockTimer, pa_rtclock_now() + PulseOutput.microseconds(clockInterval))
    }

    /// A timing reply arrived (mainloop thread): turns it into an observation, refits and publishes.
    private func timingArrived(_ stream: OpaquePointer, success: Bool) {
        let (received, realtime) = PulseOutput.clocksNow()
        if let pendingUpdate {
            pa_operation_unref(pendingUpdate)
            self.pendingUpdate = nil
        }
        guard success, let info = pa_stream_get_timing_info(stream)?.pointee else { return }
        guard info.playing != 0 else {
            // Not playing (prebuffering after an underrun): the read index stands still while time goes on.
            estimator.reset()
            return
        }
        guard let report = observation(info, sent: updateSent, received: received, realtime: realtime) else { return }
        let fitted = estimator.observe(frame: report.frame, at: report.hostTime, delayBound: report.delayBound)
        clockLeftOut.store(estimator.leftOut, ordering: .relaxed)
        clockRestarts.store(estimator.restarts, ordering: .relaxed)
        clockLargestRestartShift.store(Int((estimator.largestRestartShift * 1e6).rounded()), ordering: .relaxed)
        clock.store(fitted)
        // The least-delayed report's line with its bound, in one store. Without synchronized clocks the line is the
        // fit and nothing bounds it, whatever reports from before say (`observation`).
        let bound = info.synchronized_clocks != 0 ? estimator.earliestDelayBound : .infinity
        earliestClock.store(
            info.synchronized_clocks != 0 ? estimator.earliest ?? fitted : fitted,
            tag: bound.isFinite ? Int64((bound * 1e9).rounded()) : .max)
    }

    /// What a timing report says: the mixer frame at the speaker (`read_index − sink_usec`) and when. The server
    /// stamps the report with `gettimeofday` once its I/O thread has answered (late by that answer's return, never
    /// early); that time is moved to `CLOCK_MONOTONIC` with the offset between the two clocks read when the reply
    /// arrived (`clocksNow()`), and clamped to the request's round trip. PulseAudio's own server measures the position
    /// after the request was sent, so the stamp's delay is at most its time since then (`delayBound`, in seconds: the
    /// way there and the server's work, not the reply's way back); from any other server (pipewire-pulse answers
    /// from its last cycle) nothing bounds it. Without synchronized clocks the round trip's midpoint stands
    /// in, and nothing bounds a delay. Nil if the report cannot say (no first write yet, read index unknown).
    private func observation(
        _ info: pa_timing_info, sent: HostTime, received: HostTime, realtime: Int64
    ) -> (hostTime: HostTime, frame: Double, delayBound: Double)? {
        let origin = streamOrigin.load(ordering: .relaxed)
        guard origin != .min, info.read_index_corrupt == 0 else { return nil }
        let rate = Double(mixer.configuration.sampleRate.framesPerSecond)
        let heard = Double(info.read_index) / Double(4 * channels) - Double(info.sink_usec) * rate / 1e6
        guard let frame = mixerFrame(ofStreamFrame: heard, origin: origin) else { return nil }
        guard info.synchronized_clocks != 0 else {
            let midpoint = sent.nanoseconds + (received.nanoseconds - sent.nanoseconds) / 2
            return (HostTime(nanoseconds: midpoint), frame, .infinity)
        }
        let remote = Int64(info.timestamp.tv_sec) * 1_000_000_000 + Int64(info.timestamp.tv_usec) * 1000
        let stamped = remote - (realtime - received.nanoseconds)
        let stamp = min(max(stamped, sent.nanoseconds), received.nanoseconds)
        // PulseAudio's server measures the position once the request has come (an atomic snapshot, then the stamp);
        // PipeWire's answers from its last graph cycle, which may be before the request was sent: no bound there.
        let bounded = connection.serverName == "pulseaudio"
        return (
            HostTime(nanoseconds: stamp), frame, bounded ? Double(stamp - sent.nanoseconds) / 1e9 : .infinity
        )
    }

    /// The mixer frame a (fractional) stream frame carries: the stream's origin plus, after an `advance(by:)`, the
    /// frames skipped. Nil for a frame written before the last skip once something was skipped (its offset is not
    /// kept; the fit restarts after each skip anyway).
    func mixerFrame(ofStreamFrame frame: Double, origin: Int64) -> Double? {
        guard skippedFrames > 0 else { return Double(origin) + frame }
        guard frame >= Double(lastSkipStreamFrame) else { return nil }
        return Double(origin + skippedFrames) + frame
    }

    /// PulseAudio's own answers to "which frame is being heard", for checking `mapping` against them. Asks the server
    /// for fresh timing information; in the reply's callback reads `pa_stream_get_time` (libpulse's
    /// `read_index + transport_usec − sink_usec`, which assumes the reply took as long to arrive as the request) and
    /// then `CLOCK_MONOTONIC`, and also converts the report itself as `mapping` does. Blocks for one round trip.
    ///
    /// Threads: a control thread (not the mainloop's own callbacks).
    /// - Returns: `now`: the monotonic time read and the fractional mixer frame `pa_stream_get_time` says is being
    ///   heard then; `report`: the frame and time of the server's report; `roundTrip`: the request's round trip. Nil
    ///   if the stream is not playing or the server did not answer within a second.
    package func pulseAudioPlayingFrame() -> (
        now: (hostTime: HostTime, frame: Double), report: (hostTime: HostTime, frame: Double), roundTrip: Duration
    )? {
        guard let stream, !isLost else { return nil }
        return connection.withLock {
            reference = nil
            referenceSent = HostTime.now()
            let operation = pa_stream_update_timing_info(
                stream,
                { stream, success, userData in
                    let output = Unmanaged<PulseOutput>.fromOpaque(userData!).takeUnretainedValue()
                    output.referenceArrived(stream!, success: success != 0)
                    pa_threaded_mainloop_signal(output.connection.mainloop, 0)
                }, Unmanaged.passUnretained(self).toOpaque())
            guard connection.complete(operation, timeout: .seconds(1)) else { return nil }
            return reference
        }
    }

    /// The reply to `pulseAudioPlayingFrame()`'s request (mainloop thread).
    private func referenceArrived(_ stream: OpaquePointer, success: Bool) {
        var time: pa_usec_t = 0
        guard success, pa_stream_get_time(stream, &time) == 0 else { return }
        let (received, realtime) = PulseOutput.clocksNow()
        let origin = streamOrigin.load(ordering: .relaxed)
        guard let info = pa_stream_get_timing_info(stream)?.pointee, info.playing != 0,
            let report = observation(info, sent: referenceSent, received: received, realtime: realtime)
        else { return }
        let rate = Double(mixer.configuration.sampleRate.framesPerSecond)
        guard let frame = mixerFrame(ofStreamFrame: Double(time) * rate / 1e6, origin: origin) else { return }
        reference = (
            (received, frame), (report.hostTime, report.frame),
            .nanoseconds(received.nanoseconds - referenceSent.nanoseconds)
        )
    }

    /// `CLOCK_MONOTONIC` and `CLOCK_REALTIME` (the clock of `gettimeofday`) at one instant, in nanoseconds: the offset
    /// between them from the tightest of a few brackets (`RawClockOffset.tightest`), set against the last monotonic
    /// reading. A thread preempted between two plain readings would move every report converted with them by as long,
    /// early (the server itself never stamps early).
    static func clocksNow() -> (monotonic: HostTime, realtime: Int64) {
        let reading = RawClockOffset.tightest {
            (HostTime.now().nanoseconds, RawClockOffset.nanoseconds(CLOCK_REALTIME), HostTime.now().nanoseconds)
        }
        return (HostTime(nanoseconds: reading.monotonic), reading.monotonic + reading.rawOffset)
    }

    private static func microseconds(_ duration: Duration) -> pa_usec_t {
        pa_usec_t(duration.components.seconds) * 1_000_000
            + pa_usec_t(duration.components.attoseconds / 1_000_000_000_000)
    }
}
