import Foundation
import MetronomeFiles

/// A running `parec` recording a server's null sink `metro` through its monitor.
public struct Recording {
    /// The `parec` process.
    public let process: ChildProcess
    /// The WAV file it writes.
    public let path: String

    /// Starts `parec` on `metro.monitor` (10 ms latency, float32 stereo 48 kHz: see PULSEAUDIO.md), writing a WAV file
    /// in `directory`, and gives it 150 ms to connect before the player starts.
    /// - Parameters:
    ///   - directory: where the WAV file goes.
    ///   - environment: the recorder's environment (its `PULSE_SERVER`).
    /// - Throws: the `posix_spawn` error when `parec` cannot start.
    public static func start(in directory: String, environment: [String: String]) throws -> Recording {
        let path = "\(directory)/recording-\(UUID().uuidString.prefix(6)).wav"
        let process = try ChildProcess(
            "/usr/bin/parec",
            [
                "-d", "metro.monitor", "--latency-msec=10", "--rate=48000", "--channels=2", "--format=float32le",
                "--file-format=wav", path,
            ], environment: environment)
        usleep(150_000)
        return Recording(process: process, path: path)
    }

    /// Stops recording (after a short tail) and returns the left channel.
    public func finish() throws -> [Float] {
        try finishStereo()[0]
    }

    /// Stops recording (after a short tail) and returns both channels.
    public func finishStereo() throws -> [[Float]] {
        usleep(300_000)
        process.send(SIGINT)
        process.wait()
        return try AudioFileReader.read(path: path).channels
    }
}
