import CJack
import Foundation

/// A recorder of a JACK server's audio ports that puts each cycle's frames where the cycle's `jack_last_frame_time`
/// says they belong, and so knows the frames it did not hear.
///
/// jack_capture writes the cycles it is called for one after another: a cycle the server runs without calling it
/// (on these 2-core machines, several in a 3 s recording at a 64-frame period) leaves a period out of its file, and
/// every click after it reads a period early, as if ours were off. Told apart from a click of ours out of place only
/// by counting the server's late cycles, such a run had to be repeated, and two recorder cycles lost together fitted
/// no count (docs/benchmarks.md, "JACK"). Here a missed cycle is a hole at a known place: the clicks that fell in it
/// are unheard, not moved, and every click heard is still held to its frame.
///
/// A client of this test process (beside the players' clients, as the tests' own `JackOutput`s are), written in Swift
/// through libjack: Python's JACK-Client was tried and ran its process callback past the 1.3 ms period 202 times in
/// 3 s at a 64-frame period on an idle server (2026-12-02).
///
/// Threads: `init` and `finish` from one thread; the process callback on JACK's, only copying into memory allocated
/// before it starts.
final class FrameCapture {
    /// What was recorded.
    struct Recording {
        /// One channel per port, from the first cycle the recorder was called for to the end of the last; zeros where
        /// it was not called.
        var channels: [[Float]]
        /// The server's frame the channels start on.
        var firstFrame: Int
        /// The frames (from the channels' start) of the cycles the recorder was not called for, in runs.
        var missed: [Range<Int>]

        /// The MIDI messages read, in the order they came: the MIDI port's index, the server's frame, the bytes (at
        /// most 3 kept).
        var midi: [(port: Int, frame: Int, bytes: [UInt8])]

        /// Whether the server's frame `frame` fell in a cycle the recorder was not called for (or outside the
        /// recording).
        func unheard(frame: Int) -> Bool {
            let at = frame - firstFrame
            guard at >= 0, at < channelLength else { return true }
            return missed.contains { $0.contains(at) }
        }

        /// The frames recorded per channel (from `firstFrame`).
        var channelLength: Int

        /// Calls whose frame time was the next call's, filed a period back; second calls that repeated the first,
        /// left out; periods whose holding cannot be told, made holes (`place`).
        var refiled = 0
        var leftOut = 0
        var distrusted = 0

        /// How many cycles' worth of frames were missed, and in how many runs: for a run's printed figures.
        var missedLine: String {
            "the recorder missed \(missed.map(\.count).reduce(0, +)) frames in \(missed.count) run(s)"
                + (missed.isEmpty ? "" : " \(missed.prefix(8))")
                + (refiled + leftOut + distrusted > 0
                    ? " (calls filed a period back: \(refiled), repeats left out: \(leftOut), periods made holes: "
                        + "\(distrusted))" : "")
        }
    }

    enum CaptureError: Error, CustomStringConvertible {
        case open(String)
        case activate(String)
        case connect(String, Int32)
        case overflow
        case neverCalled

        var description: String {
            switch self {
            case .open(let server): "frame capture: cannot open a client of the JACK server \(server)"
            case .connect(let port, let status): "frame capture: cannot connect \(port) (\(status))"
            case .activate(let server): "frame capture: cannot activate a client of the JACK server \(server)"
            case .overflow: "frame capture: the recording outgrew its room"
            case .neverCalled: "frame capture: the server never called the recorder"
            }
        }
    }

    /// What the process callback writes: plain memory, no reference counted.
    struct State {
        var client: OpaquePointer
        var ports: UnsafeMutablePointer<OpaquePointer?>
        var portCount: Int
        var room: Int
        /// `portCount` channels of `room` frames, one after the other.
        var samples: UnsafeMutablePointer<Float>
        var heard: UnsafeMutablePointer<Bool>
        var midiPorts: UnsafeMutablePointer<OpaquePointer?>
        var midiPortCount: Int
        /// MIDI messages: `midiRoom` of them at most, each its port, its frame from the first cycle and 3 bytes.
        var midiRoom: Int
        var midiCount = 0
        var midiPort: UnsafeMutablePointer<Int>
        var midiFrame: UnsafeMutablePointer<Int>
        var midiBytes: UnsafeMutablePointer<UInt8>
        var midiSize: UnsafeMutablePointer<Int>
        var first: Int64 = -1
        var end = 0
        var overflowed = false
        /// The call before: where it wrote (frames from the first cycle, -1 before any), how many frames, and the
        /// first of its MIDI messages.
        var lastAt = -1
        var lastCount = 0
        var lastMidiStart = 0
        /// Calls refiled a period back (their frame time the next call's), and calls left out (a second call with
        /// the first's frame time that held the same frames and messages).
        var refiled = 0
        var leftOut = 0
        /// Periods made holes (`place`): what the recorder held there cannot be told.
        var distrusted = 0
        /// Whether the last call came after a hole in the frame times or after a call that ended late, and so
        /// stands only with a pair (`place`).
        var afterHole = false
        /// Whether the last call ended after the next cycle had begun (its frame time read again at its end).
        var lastEndedLate = false
    }

    private let state: UnsafeMutablePointer<State>
    private let seconds: Double
    private let started = Date()

    /// Opens client `frame-capture` on `server`, registers an audio input per port of `ports` (`in_1`, …) and a MIDI
    /// input per entry of `midiPorts` (`midi_in_1`, …), connects those ports to them (a nil entry: a source that
    /// connects itself, started after) and starts recording, with room for `seconds` and one more.
    init(server: String, ports: [String], midiPorts: [String?] = [], seconds: Double, rate: Int) throws {
        var status = jack_status_t(rawValue: 0)
        guard let client = metronome_jack_open("frame-capture", server, &status) else {
            throw CaptureError.open(server)
        }
        let room = Int((seconds + 1) * Double(rate))
        let portList = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: ports.count)
        for index in ports.indices {
            portList[index] = jack_port_register(
                client, "in_\(index + 1)", metronome_jack_audio_type(), UInt(JackPortIsInput.rawValue), 0)
        }
        let samples = UnsafeMutablePointer<Float>.allocate(capacity: ports.count * room)
        samples.initialize(repeating: 0, count: ports.count * room)
        let heard = UnsafeMutablePointer<Bool>.allocate(capacity: room)
        heard.initialize(repeating: false, count: room)
        let midiList = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: max(1, midiPorts.count))
        for index in midiPorts.indices {
            midiList[index] = jack_port_register(
                client, "midi_in_\(index + 1)", metronome_jack_midi_type(), UInt(JackPortIsInput.rawValue), 0)
        }
        let midiRoom = 1 << 16
        state = .allocate(capacity: 1)
        state.initialize(
            to: State(
                client: client, ports: portList, portCount: ports.count, room: room, samples: samples, heard: heard,
                midiPorts: midiList, midiPortCount: midiPorts.count, midiRoom: midiRoom,
                midiPort: .allocate(capacity: midiRoom), midiFrame: .allocate(capacity: midiRoom),
                midiBytes: .allocate(capacity: 3 * midiRoom), midiSize: .allocate(capacity: midiRoom)))
        self.seconds = seconds
        jack_set_process_callback(client, Self.process, UnsafeMutableRawPointer(state))
        // Thrown from a whole object, as below: `deinit` closes the client and frees its memory.
        guard jack_activate(client) == 0 else { throw CaptureError.activate(server) }
        let ownName = String(cString: jack_get_client_name(client))
        let connections =
            ports.enumerated().map { ($0.element, "\(ownName):in_\($0.offset + 1)") }
            + midiPorts.enumerated().compactMap { index, port in port.map { ($0, "\(ownName):midi_in_\(index + 1)") } }
        for (source, destination) in connections {
            let result = jack_connect(client, source, destination)
            // Thrown from a whole object: `deinit` closes the client and frees its memory.
            guard result == 0 else { throw CaptureError.connect(source, result) }
        }
    }

    /// One cycle: each port's period copied to where the cycle's first frame puts it. Real-time path: no allocation,
    /// no lock.
    private static let process: JackProcessCallback = { frames, argument in
        guard let argument else { return 0 }
        let state = argument.assumingMemoryBound(to: State.self)
        let count = Int(frames)
        let frameTime = jack_last_frame_time(state.pointee.client)
        let start = Int64(frameTime)
        // Whatever this call does, the next one knows whether it ended after the next cycle had begun.
        defer { state.pointee.lastEndedLate = jack_last_frame_time(state.pointee.client) != frameTime }
        let placed = FrameCapture.place(state, start: start, count: count) { at in repeats(state, at, frames) }
        guard let at = placed else { return 0 }
        for index in 0..<state.pointee.portCount {
            guard let port = state.pointee.ports[index],
                let buffer = jack_port_get_buffer(port, frames)?.assumingMemoryBound(to: Float.self)
            else { continue }
            (state.pointee.samples + index * state.pointee.room + at).update(from: buffer, count: count)
        }
        let kept = FrameCapture.eachMessage(state, frames) { index, time, size, bytes in
            let slot = state.pointee.midiCount
            guard slot < state.pointee.midiRoom else {
                state.pointee.overflowed = true
                return false
            }
            state.pointee.midiPort[slot] = index
            state.pointee.midiFrame[slot] = at + time
            state.pointee.midiSize[slot] = size
            for byte in 0..<size { state.pointee.midiBytes[3 * slot + byte] = bytes[byte] }
            state.pointee.midiCount = slot + 1
            return true
        }
        guard kept else { return 0 }
        FrameCapture.filed(state, at: at, count: count)
        return 0
    }

    /// Whether this call's ports hold what the call before filed at `at`: every sample of every port, and the same
    /// MIDI messages at the same frames. Real-time path.
    private static func repeats(_ state: UnsafeMutablePointer<State>, _ at: Int, _ frames: jack_nframes_t) -> Bool {
        let count = Int(frames)
        for index in 0..<state.pointee.portCount {
            guard let port = state.pointee.ports[index],
                let buffer = jack_port_get_buffer(port, frames)?.assumingMemoryBound(to: Float.self)
            else { continue }
            let filed = state.pointee.samples + index * state.pointee.room + at
            for frame in 0..<count where filed[frame] != buffer[frame] { return false }
        }
        var slot = state.pointee.lastMidiStart
        let same = eachMessage(state, frames) { index, time, size, bytes in
            guard slot < state.pointee.midiCount, state.pointee.midiPort[slot] == index,
                state.pointee.midiFrame[slot] == at + time, state.pointee.midiSize[slot] == size
            else { return false }
            for byte in 0..<size where state.pointee.midiBytes[3 * slot + byte] != bytes[byte] { return false }
            slot += 1
            return true
        }
        return same && slot == state.pointee.midiCount
    }

    /// Hands `body` each MIDI message of this call's MIDI ports in order (the port's index, the message's frame in
    /// the period, its size up to the 3 bytes kept, its bytes) until `body` returns false; returns whether it went to
    /// the end. Real-time path.
    private static func eachMessage(
        _ state: UnsafeMutablePointer<State>, _ frames: jack_nframes_t,
        _ body: (_ port: Int, _ time: Int, _ size: Int, _ bytes: UnsafeMutablePointer<jack_midi_data_t>) -> Bool
    ) -> Bool {
        var event = jack_midi_event_t()
        for index in 0..<state.pointee.midiPortCount {
            guard let port = state.pointee.midiPorts[index], let buffer = jack_port_get_buffer(port, frames) else {
                continue
            }
            for number in 0..<jack_midi_get_event_count(buffer) {
                guard jack_midi_event_get(&event, buffer, number) == 0, let bytes = event.buffer else { continue }
                guard body(index, Int(event.time), min(3, Int(event.size)), bytes) else { return false }
            }
        }
        return true
    }

    /// Where a call's `count` frames go, from the cycle's first frame `start`: frames from the first call; nil when
    /// they are left out or the recording has no room (`overflowed`).
    ///
    /// A call is filed by the frame time it reads, which is the cycle running when it reads it, not always the cycle
    /// it was woken for; so where the recorder was late, what a call held is told from its neighbours, and a period
    /// that cannot be told is a hole (zeros, unheard, its messages dropped), never a guess: guesses made clicks of ours
    /// look lost or doubled (docs/benchmarks.md, "The grader's run at 5d2d4ba, and what a late recorder call held").
    ///
    /// A call after a hole in the frame times (cycles the recorder was not called for), or after a call that ended
    /// once the next cycle had begun, may be the cycle before's, woken late, as well as its own: it stands only if
    /// the next call has its frame time (the pair below); any other next call makes its period a hole.
    ///
    /// Two calls with one frame time:
    /// - the second holds what the first filed (`repeats`, given where the first was filed: every sample and message
    ///   the same): a repeat, left out; the period before stays as it was (a hole if nothing was filed there);
    /// - they differ, and the period before is a hole: the first was woken after the next cycle had begun and read
    ///   that cycle's frame time, a period late (JACK2 then calls the cycle's own right after; JackOutput's process
    ///   callback documents the pair), so its frames and messages go back a period, into the hole;
    /// - they differ, and the period before was heard: either could be this cycle's, so neither is kept; the period
    ///   is a hole (zeros, unheard, its messages dropped).
    ///
    /// Real-time path.
    static func place(
        _ state: UnsafeMutablePointer<State>, start: Int64, count: Int, repeats: (_ at: Int) -> Bool
    ) -> Int? {
        if state.pointee.first < 0 { state.pointee.first = start }
        // Frame times are 32-bit and wrap (after a day at 48 kHz; these servers live seconds).
        let at = Int(UInt32(truncatingIfNeeded: start &- state.pointee.first))
        guard at + count <= state.pointee.room else {
            state.pointee.overflowed = true
            return nil
        }
        let pair = at == state.pointee.lastAt && count == state.pointee.lastCount
        if !pair, state.pointee.afterHole {
            unhear(state, at: state.pointee.lastAt, count: state.pointee.lastCount)
        }
        // Whether this call comes after a cycle the recorder was not called for (not one made a hole above), or
        // after a call that ended once the next cycle had begun: either way it may be the cycle before's, woken late.
        let afterHole = state.pointee.lastAt >= 0 && at > state.pointee.lastAt + state.pointee.lastCount
        state.pointee.afterHole = !pair && (afterHole || state.pointee.lastEndedLate)
        if pair {
            if repeats(at) {
                state.pointee.leftOut += 1
                return nil
            }
            let back = at - count
            guard back >= 0, !state.pointee.heard[back], !state.pointee.heard[at - 1] else {
                unhear(state, at: at, count: count)
                return nil
            }
            for index in 0..<state.pointee.portCount {
                let channel = state.pointee.samples + index * state.pointee.room
                (channel + back).update(from: channel + at, count: count)
            }
            for slot in state.pointee.lastMidiStart..<state.pointee.midiCount {
                state.pointee.midiFrame[slot] -= count
            }
            (state.pointee.heard + back).update(repeating: true, count: count)
            state.pointee.refiled += 1
        }
        state.pointee.lastAt = at
        state.pointee.lastCount = count
        state.pointee.lastMidiStart = state.pointee.midiCount
        return at
    }

    /// The last call's period, filed at `at`, is a hole: zeros, unheard, its messages dropped. Real-time path.
    static func unhear(_ state: UnsafeMutablePointer<State>, at: Int, count: Int) {
        for index in 0..<state.pointee.portCount {
            (state.pointee.samples + index * state.pointee.room + at).update(repeating: 0, count: count)
        }
        (state.pointee.heard + at).update(repeating: false, count: count)
        state.pointee.midiCount = state.pointee.lastMidiStart
        state.pointee.distrusted += 1
    }

    /// A call's frames, written at `at`, are heard. Real-time path.
    static func filed(_ state: UnsafeMutablePointer<State>, at: Int, count: Int) {
        (state.pointee.heard + at).update(repeating: true, count: count)
        state.pointee.end = max(state.pointee.end, at + count)
    }

    /// Waits until `seconds` have passed since the start (or not at all: `waiting` false), stops the client and
    /// returns the recording.
    func finish(waiting: Bool = true) throws -> Recording {
        let left = seconds - Date().timeIntervalSince(started)
        if waiting, left > 0 { usleep(useconds_t(left * 1_000_000)) }
        // After this returns the process callback is not called again.
        jack_deactivate(state.pointee.client)
        // A last call after a hole has no next call to stand on (`place`).
        if state.pointee.afterHole {
            Self.unhear(state, at: state.pointee.lastAt, count: state.pointee.lastCount)
            state.pointee.afterHole = false
        }
        let taken = state.pointee
        guard !taken.overflowed else { throw CaptureError.overflow }
        guard taken.first >= 0 else { throw CaptureError.neverCalled }
        let channels = (0..<taken.portCount).map { index in
            Array(UnsafeBufferPointer(start: taken.samples + index * taken.room, count: taken.end))
        }
        var missed: [Range<Int>] = []
        var frame = 0
        while frame < taken.end {
            guard !taken.heard[frame] else {
                frame += 1
                continue
            }
            let start = frame
            while frame < taken.end, !taken.heard[frame] { frame += 1 }
            missed.append(start..<frame)
        }
        let midi = (0..<taken.midiCount).map { slot in
            (
                port: taken.midiPort[slot], frame: Int(taken.first) + taken.midiFrame[slot],
                bytes: Array(UnsafeBufferPointer(start: taken.midiBytes + 3 * slot, count: taken.midiSize[slot]))
            )
        }
        return Recording(
            channels: channels, firstFrame: Int(taken.first), missed: missed, midi: midi, channelLength: taken.end,
            refiled: taken.refiled, leftOut: taken.leftOut, distrusted: taken.distrusted)
    }

    deinit {
        jack_deactivate(state.pointee.client)
        jack_client_close(state.pointee.client)
        Self.free(state)
    }

    /// Frees a state's buffers and the state itself (its client is closed before, if it has one).
    static func free(_ state: UnsafeMutablePointer<State>) {
        state.pointee.samples.deallocate()
        state.pointee.heard.deallocate()
        state.pointee.ports.deallocate()
        state.pointee.midiPorts.deallocate()
        state.pointee.midiPort.deallocate()
        state.pointee.midiFrame.deallocate()
        state.pointee.midiBytes.deallocate()
        state.pointee.midiSize.deallocate()
        state.deallocate()
    }
}
