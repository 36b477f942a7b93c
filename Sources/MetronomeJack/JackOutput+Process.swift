import CJack
import Glibc
import MetronomeEngine
import MetronomeLive
import MetronomeModel
import Synchronization

/// The real-time path: the process callback (one period rendered straight from the mixer into the ports, the
/// takeover's alignment and skip, the cycle clock), and the xrun, latency and shutdown callbacks, which only store
/// atomics.
extension JackOutput {
    /// Reads the ports' playback latency (the largest of the range, over every port). Control or JACK thread.
    func readLatency() {
        var largest: Int64 = 0
        for channel in 0..<channels {
            guard let port = ports[channel] else { continue }
            var range = jack_latency_range_t()
            jack_port_get_latency_range(port, JackPlaybackLatency, &range)
            largest = max(largest, Int64(range.max))
        }
        latency.store(largest, ordering: .relaxed)
    }

    /// Fills the ports' buffers with a period of silence and no MIDI, without pulling the mixer. Real-time path.
    func silence(_ frameCount: Int) {
        for channel in 0..<channels {
            guard let port = ports[channel], let raw = jack_port_get_buffer(port, jack_nframes_t(frameCount)) else {
                continue
            }
            raw.assumingMemoryBound(to: Float.self).update(repeating: 0, count: frameCount)
        }
        if let midiPort, let buffer = jack_port_get_buffer(midiPort, jack_nframes_t(frameCount)) {
            jack_midi_clear_buffer(buffer)
        }
    }

    /// Renders `frames` of the mixer into nothing, a block at a time (a catch-up or a skip). Real-time path.
    func renderIntoNothing(_ frames: SampleTime) {
        guard frames > 0 else { return }
        let block = SampleTime(mixer.configuration.maximumBlockFrames)
        let target = mixer.framePosition + frames
        cycleFramesIntoNothing += frames
        while mixer.framePosition < target {
            mixer.render(into: scratch, frameCount: Int(min(block, target - mixer.framePosition)))
        }
    }

    /// `CLOCK_MONOTONIC` now, in nanoseconds, and `CLOCK_MONOTONIC_RAW` minus it (`RawClockOffset`: the tightest of a
    /// few brackets). Real-time safe (vDSO reads).
    static func clocks() -> (monotonic: Int64, rawOffset: Int64) { RawClockOffset.now() }

    /// The process callback: one period, rendered straight from the mixer into the ports. Real-time path.
    func process(_ frameCount: Int) {
        guard let client else { return }
        let frameTime = jack_last_frame_time(client)
        // A run of missed cycles found by the last call is known for what it was now: this call with the same frame
        // time means that one was woken late (not moved), any other that the server ran them without us (moved).
        if var pending = pendingMissed {
            pending.moved = frameTime != pending.frameTime
            missedLog.record(pending)
            pendingMissed = nil
        }
        // Called again for the cycle just processed (seen right after our process was stopped and went on: the call
        // it was stopped in, then the cycle's own, both with the cycle's frame time): following a clock, the second
        // call is left out, the ports keeping what the first wrote, so that the mixer stays on the server's frames
        // (pulled twice it ran a period ahead, and every later tick read a period late: a jump of phase).
        if clockInput != nil, transportLock == nil, let lastCycle, frameTime == lastCycle.frame,
            firstWrite.load(ordering: .relaxed) != 0
        {
            runCounts.addRepeatedCycle()
            return
        }
        missedFrames = 0
        if let lastCycle, frameTime &- lastCycle.frame > lastCycle.count, lastCycle.count > 0 {
            let skipped = Int((frameTime &- lastCycle.frame) / lastCycle.count) - 1
            missed.add(skipped, ordering: .relaxed)
            runCounts.addMissedCycles(skipped)
            if skipped > 0 { pendingMissed = MissedCycles(frameTime: frameTime, cycles: skipped, moved: true) }
            missedFrames = Int64(skipped) * Int64(lastCycle.count)
        }
        lastCycle = (frameTime, jack_nframes_t(frameCount))
        cycleFramesIntoNothing = 0
        guard connected.load(ordering: .acquiring) else {
            silence(frameCount)
            return
        }
        let probe = Self.allocationProbe
        let allocationsBefore = probe?() ?? 0
        let isFirst = firstWrite.load(ordering: .relaxed) == 0
        let (now, rawOffset) = Self.clocks()
        let usageBefore = ThreadUsage.now()
        #if METRONOME_FAULTS
            InjectedFault.processCallback(cycle: cycles.load(ordering: .relaxed))
        #endif
        defer {
            // The server began the next cycle before this call ended (it reads the newest cycle's frame time).
            let ended = jack_last_frame_time(client)
            if ended != frameTime {
                endedLateLog.record(MissedCycles(frameTime: ended, cycles: 0, moved: false))
                endedLateCount.add(1, ordering: .relaxed)
            }
            if let probe {
                let made = probe() &- allocationsBefore
                if isFirst {
                    firstAllocations.add(made, ordering: .relaxed)
                } else {
                    allocations.add(made, ordering: .relaxed)
                }
            }
            let cycle = cycles.add(1, ordering: .relaxed).oldValue
            if !isFirst {
                var end = timespec()
                clock_gettime(CLOCK_MONOTONIC, &end)
                let took = Int64(end.tv_sec) * 1_000_000_000 + Int64(end.tv_nsec) - now
                let used = ThreadUsage.now() - usageBefore
                let half = Int64(frameCount) * 500_000_000 / Int64(mixer.configuration.sampleRate.framesPerSecond)
                if took > half {
                    slow.add(1, ordering: .relaxed)
                    if used.cpuNanoseconds > half || used.waits > 0 { slowOfOurOwn.add(1, ordering: .relaxed) }
                }
                if took > longest.load(ordering: .relaxed) {
                    longest.store(took, ordering: .relaxed)
                    longestCycle.store(cycle, ordering: .relaxed)
                }
                if used.cpuNanoseconds > longestOnCPU.load(ordering: .relaxed) {
                    longestOnCPU.store(used.cpuNanoseconds, ordering: .relaxed)
                    longestOnCPUIntoNothing.store(cycleFramesIntoNothing, ordering: .relaxed)
                }
                if used.pageFaults > 0, faultingCycles.add(1, ordering: .relaxed).newValue == 1 {
                    firstFaultingCycle.store(cycle, ordering: .relaxed)
                }
            }
        }
        var cycleFrames: jack_nframes_t = 0
        var cycleMicros: jack_time_t = 0
        var nextMicros: jack_time_t = 0
        var periodMicros: Float = 0
        if isFirst {
            // Locked to the transport, a takeover's mixer goes where the transport's seek puts it, not on the clock.
            if let catchUp, transportLock == nil {
                renderIntoNothing(catchUp(HostTime(nanoseconds: now)) - mixer.framePosition)
            }
            firstWrite.store(now, ordering: .releasing)
        }
        let pending = pendingSkip.load(ordering: .relaxed)
        if pending > 0, let skipLimit, transportLock == nil {
            let frames = min(pending, skipLimit(frameCount))
            if frames > 0 {
                renderIntoNothing(frames)
                pendingSkip.subtract(frames, ordering: .relaxed)
            }
        }
        if !sounding.load(ordering: .relaxed), aligned.load(ordering: .acquiring),
            pendingSkip.load(ordering: .relaxed) == 0
        {
            if alignedSeen == 0 { alignedSeen = now }
            if mixer.isSilent || now - alignedSeen >= Self.silenceWait { sounding.store(true, ordering: .releasing) }
        }
        // Following a clock on midi_in, the mixer keeps to the server's frame clock: the frames of cycles the server
        // ran without calling us are rendered into nothing (what fell in them is not heard), so that the clock's
        // ticks after them lie on the line of those before and a tick that arrived in them counts as missing. Left
        // behind, the mixer put every later tick a period early, and a lost tick with it read as two changes of
        // tempo: the clock was followed a tick late from then on (docs/benchmarks.md, "Following a MIDI clock: live").
        if missedFrames > 0, clockInput != nil, transportLock == nil, !isFirst {
            mixer.skipping(to: mixer.framePosition + missedFrames)
            renderIntoNothing(missedFrames)
        }
        var midiBuffer: UnsafeMutableRawPointer?
        if let midiPort, let buffer = jack_port_get_buffer(midiPort, jack_nframes_t(frameCount)) {
            jack_midi_clear_buffer(buffer)
            midiBuffer = buffer
        }
        // Locked to the transport, a cycle pulls the mixer only while it rolls (after any seek's catch-up).
        let pulls = transportLock.map { followTransport($0, client: client, frameCount: frameCount) } ?? true
        // When the period's first frame is heard: the cycle's start on JACK's clock, plus the ports' latency.
        if jack_get_cycle_times(client, &cycleFrames, &cycleMicros, &nextMicros, &periodMicros) == 0,
            nextMicros > cycleMicros
        {
            let rate = Double(frameCount) * 1e6 / Double(nextMicros - cycleMicros)
            let latencyFrames = max(0, latency.load(ordering: .relaxed))
            let start = Int64(cycleMicros) * 1000 - rawOffset + Int64(Double(latencyFrames) * 1e9 / rate)
            clock.store(
                ClockMapping(frame: mixer.framePosition, hostTime: HostTime(nanoseconds: start), framesPerSecond: rate))
        }
        let silent = !sounding.load(ordering: .relaxed)
        // Notes are not played into a takeover's silence (nor their note ons sent): they would hold it.
        receiveMIDI(frameCount, mixerHeld: !pulls || silent)
        guard pulls else { return }
        let block = mixer.configuration.maximumBlockFrames
        let periodStart = mixer.framePosition
        var done = 0
        while done < frameCount {
            let count = min(block, frameCount - done)
            mixer.render(into: scratch, frameCount: count)
            if let midiBuffer, !silent { sendMIDI(into: midiBuffer, periodStart: periodStart, frameCount: frameCount) }
            for channel in 0..<channels {
                guard let port = ports[channel],
                    let raw = jack_port_get_buffer(port, jack_nframes_t(frameCount))
                else { continue }
                let out = raw.assumingMemoryBound(to: Float.self) + done
                if silent {
                    out.update(repeating: 0, count: count)
                } else {
                    for frame in 0..<count { out[frame] = scratch[frame * channels + channel] }
                }
            }
            done += count
        }
    }

    static let processCallback: JackProcessCallback = { frames, context in
        Unmanaged<JackOutput>.fromOpaque(context!).takeUnretainedValue().process(Int(frames))
        return 0
    }

    /// Runs a callback other than `process` on the process thread after the first process call, timed as `process`
    /// is (one over half a period on the CPU, or waiting, counts in `slowOfOurOwnCount`; its time on the CPU in
    /// `longestCallbackOnCPUNanoseconds`) and adding what it allocates to `callbackAllocations` (tests only: the
    /// probe). Real-time path.
    func countingAllocations<Result>(_ body: () -> Result) -> Result {
        guard firstWrite.load(ordering: .relaxed) != 0 else { return body() }
        let started = HostTime.now().nanoseconds
        let usageBefore = ThreadUsage.now()
        let probe = Self.allocationProbe
        let allocationsBefore = probe?() ?? 0
        let result = body()
        if let probe { allocations.add(probe() &- allocationsBefore, ordering: .relaxed) }
        let took = HostTime.now().nanoseconds - started
        let used = ThreadUsage.now() - usageBefore
        if let lastCycle {
            let half = Int64(lastCycle.count) * 500_000_000 / Int64(mixer.configuration.sampleRate.framesPerSecond)
            if took > half, used.cpuNanoseconds > half || used.waits > 0 { slowOfOurOwn.add(1, ordering: .relaxed) }
        }
        if used.cpuNanoseconds > longestOnCPU.load(ordering: .relaxed) {
            longestOnCPU.store(used.cpuNanoseconds, ordering: .relaxed)
            longestOnCPUIntoNothing.store(0, ordering: .relaxed)
        }
        return result
    }

    static let xrunCallback: JackXRunCallback = { context in
        Unmanaged<JackOutput>.fromOpaque(context!).takeUnretainedValue().xruns.add(1, ordering: .relaxed)
        return 0
    }

    static let latencyCallback: JackLatencyCallback = { mode, context in
        guard mode == JackPlaybackLatency else { return }
        Unmanaged<JackOutput>.fromOpaque(context!).takeUnretainedValue().readLatency()
    }

    static let shutdownCallback: JackInfoShutdownCallback = { _, message, context in
        let output = Unmanaged<JackOutput>.fromOpaque(context!).takeUnretainedValue()
        if let message { strncpy(output.reason, message, reasonCapacity - 1) }
        output.shutDown.store(true, ordering: .releasing)
    }
}
