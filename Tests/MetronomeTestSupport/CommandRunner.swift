import Foundation

/// Runs the built `metronome` binary and captures what a user would see.
public struct CommandResult: Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String
}

public enum CommandRunner {
    /// The `metronome` executable beside the test bundle (SwiftPM builds both into one folder).
    public static let executable = builtExecutable("metronome")

    /// An executable of the package, found beside the test bundle (SwiftPM builds them into one folder).
    /// - Parameter name: the executable's name, as `metronome` or `fuzz-metro`.
    public static func builtExecutable(_ name: String) -> String {
        let testBinary =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: testBinary).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        fatalError("\(name) executable not found near \(testBinary); run 'swift build' first")
    }

    /// Runs the binary to completion.
    public static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> CommandResult {
        try start(arguments, environment: environment).wait()
    }

    /// Starts the binary.
    public static func start(_ arguments: [String], environment: [String: String]? = nil) throws -> ChildProcess {
        try ChildProcess(executable, arguments, environment: environment)
    }
}

/// A temporary directory removed when the test ends.
public final class Scratch {
    public let path: String

    /// - Parameter inMemory: put it on /dev/shm (RAM) when that exists, for tests that write gigabytes in a second
    ///   and must not leave the kernel writing them back to disk while later tests measure timing.
    public init(inMemory: Bool = false) throws {
        let base = inMemory && FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory()
        path = base + "metronome-cli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    public func file(_ name: String) -> String { path + "/" + name }

    public var contents: [String] { (try? FileManager.default.contentsOfDirectory(atPath: path).sorted()) ?? [] }
}

/// Frames where sound starts after at least `gap` silent frames.
public func onsets(_ samples: [Float], gap: Int = 1000) -> [Int] {
    var result: [Int] = []
    var silent = gap
    for (index, value) in samples.enumerated() {
        if value != 0 {
            if silent >= gap { result.append(index) }
            silent = 0
        } else {
            silent += 1
        }
    }
    return result
}

/// How the sound at `onset` in a recording differs from `click`, for a failure message: where the first sample differs,
/// and whether from there the recording holds zeros and then the rest of the click (silence inserted: a server
/// underrun), or the click's later samples early (frames missing: the recorder overran), or something else.
public func differenceFromClick(_ recording: [Float], at onset: Int, _ click: [Float]) -> String {
    let available = min(click.count, recording.count - onset)
    guard let first = (0..<available).first(where: { recording[onset + $0] != click[$0] }) else {
        return "onset \(onset): the recording ends \(click.count - available) frames into the click"
    }
    var zeros = 0
    while onset + first + zeros < recording.count, recording[onset + first + zeros] == 0 { zeros += 1 }
    let rest = { (shift: Int) -> Bool in
        let count = min(256, click.count - first - max(0, -shift), recording.count - onset - first - max(0, shift))
        return count > 0
            && (0..<count).allSatisfy { recording[onset + first + max(0, shift) + $0] == click[first + max(0, -shift) + $0] }
    }
    if zeros > 0, rest(zeros) {
        return "onset \(onset): \(zeros) frames of silence inserted \(first) frames into the click (an underrun)"
    }
    if let missing = (1..<min(48_000, click.count - first)).first(where: { rest(-$0) }) {
        return "onset \(onset): \(missing) frames missing \(first) frames into the click (the recorder overran)"
    }
    return "onset \(onset): differs from \(first) frames into the click (\(zeros) zeros there)"
}
