import Foundation

/// Runs the built `metronome` binary and captures what a user would see.
struct CommandResult {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

enum CommandRunner {
    /// The `metronome` executable beside the test bundle (SwiftPM builds both into one folder).
    static let executable: String = {
        let testBinary =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: testBinary).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("metronome").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        fatalError("metronome executable not found near \(testBinary); run 'swift build' first")
    }()

    /// Runs the binary to completion.
    static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> CommandResult {
        let process = try start(arguments, environment: environment)
        return try finish(process)
    }

    static func start(_ arguments: [String], environment: [String: String]? = nil) throws -> RunningCommand {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return RunningCommand(process: process, output: output, error: error)
    }

    static func finish(_ command: RunningCommand) throws -> CommandResult {
        let outputData = command.output.fileHandleForReading.readDataToEndOfFile()
        let errorData = command.error.fileHandleForReading.readDataToEndOfFile()
        command.process.waitUntilExit()
        return CommandResult(
            status: command.process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self))
    }
}

struct RunningCommand {
    let process: Process
    let output: Pipe
    let error: Pipe
}

/// A temporary directory removed when the test ends.
final class Scratch {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "metronome-cli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    var contents: [String] { (try? FileManager.default.contentsOfDirectory(atPath: path).sorted()) ?? [] }
}
