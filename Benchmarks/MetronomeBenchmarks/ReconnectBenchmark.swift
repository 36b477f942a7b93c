import Glibc
import MetronomeKit

/// Where the clicks fall after reconnects, to the frame: `metronome --bpm 120` plays into a private daemon through a
/// client socket of its own, whose protocol module is unloaded (the connection dies, as in a server restart) and
/// loaded again `returns` times, 1.3 s apart; one parec recording of the null sink spans it all, so every click can
/// be placed against the grid of the first one.
enum ReconnectBenchmark {
    struct Report {
        var returns: Int
        /// Each return's first click against the grid of the clicks just before the loss, in frames.
        var firstClickErrors: [Int]
        /// Every click against the first click's grid, in frames: the largest distance.
        var worstAgainstFirstGrid: Int
        var clicks: Int
        var exitStatus: Int32
    }

    static func run(metronome: String, scratch: String, returns: Int) -> Report? {
        guard let server = PrivateServer(directory: scratch + "/pulse-reconnect") else { return nil }
        defer { server.stop() }
        let directory = server.directory
        let environment = server.environment
        let clientSocket = directory + "/client"
        func acceptClients() -> String? {
            let file = directory + "/module"
            let shell =
                "pactl load-module module-native-protocol-unix auth-anonymous=1 socket=\(clientSocket) > \(file)"
            guard Spawned("/bin/sh", ["-c", shell], environment: environment).finish().status == 0,
                let handle = fopen(file, "r")
            else { return nil }
            defer { fclose(handle) }
            var line = [CChar](repeating: 0, count: 64)
            guard fgets(&line, Int32(line.count), handle) != nil else { return nil }
            let index = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return index.filter(\.isNumber)
        }
        guard var module = acceptClients() else { return nil }
        let recording = directory + "/recording.wav"
        let recorder = Spawned(
            "parec",
            [
                "-d", "metro.monitor", "--latency-msec=10", "--rate=48000", "--channels=2", "--format=float32le",
                "--file-format=wav", recording,
            ], environment: environment)
        usleep(150_000)
        var clientEnvironment = environment
        clientEnvironment["PULSE_SERVER"] = "unix:" + clientSocket
        let player = Spawned(metronome, ["--bpm", "120", "--quiet"], environment: clientEnvironment)
        usleep(1_600_000)
        for _ in 0..<returns {
            _ = Spawned("pactl", ["unload-module", module], environment: environment).finish()
            usleep(1_300_000)
            guard let loaded = acceptClients() else { break }
            module = loaded
            usleep(2_200_000)
        }
        player.signal(SIGINT)
        let status = player.finish().status
        usleep(300_000)
        recorder.signal(SIGINT)
        _ = recorder.finish()
        guard let samples = try? AudioFileReader.read(path: recording).channels[0] else { return nil }
        var onsets: [Int] = []
        var last = -1_000_000
        for (frame, sample) in samples.enumerated() where sample != 0 {
            if frame - last > 2400 { onsets.append(frame) }
            last = frame
        }
        guard let first = onsets.first else { return nil }
        func offGrid(_ distance: Int) -> Int { distance - Int((Double(distance) / 24000).rounded()) * 24000 }
        let firstClicks = zip(onsets.dropFirst(), onsets).filter { $0 - $1 > 24002 }.map { offGrid($0 - $1) }
        return Report(
            returns: returns, firstClickErrors: firstClicks,
            worstAgainstFirstGrid: onsets.map { abs(offGrid($0 - first)) }.max() ?? 0, clicks: onsets.count,
            exitStatus: status)
    }
}
