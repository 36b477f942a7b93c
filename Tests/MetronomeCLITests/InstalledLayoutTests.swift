import Foundation
import MetronomeTestSupport
import Testing

@Suite("An installed binary (the layout .ci/install makes) finds its patterns")
struct InstalledLayoutTests {
    @Test("PREFIX/bin/metronome finds PREFIX/share/metronome/patterns from any working folder")
    func findsPatterns() throws {
        let scratch = try Scratch()
        let prefix = scratch.file("prefix")
        let manager = FileManager.default
        try manager.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: prefix + "/share/metronome", withIntermediateDirectories: true)
        try Self.copyExecutable(CommandRunner.executable, to: prefix + "/bin/metronome")
        // The repository's Patterns folder: the test file lives in Tests/MetronomeCLITests.
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        try manager.copyItem(
            atPath: repository.appendingPathComponent("Patterns").path, toPath: prefix + "/share/metronome/patterns")
        var environment = ProcessInfo.processInfo.environment
        environment["METRONOME_PATTERNS"] = nil
        // Run from a folder with no Patterns in it, so only the prefix can supply them.
        let listed = try ChildProcess(
            "/bin/sh", ["-c", "cd / && \"$0\" patterns", prefix + "/bin/metronome"], environment: environment
        ).wait()
        #expect(listed.status == 0)
        #expect(listed.standardOutput.contains("waltz"))
        let output = scratch.file("w.wav")
        let played = try ChildProcess(
            "/bin/sh",
            ["-c", "cd / && \"$0\" play waltz --bars 1 --quiet -o \"$1\"", prefix + "/bin/metronome", output],
            environment: environment
        ).wait()
        #expect(played.status == 0)
        #expect(manager.fileExists(atPath: output))
    }

    /// Copies a binary through a descriptor closed on exec: a child another test thread spawns while the copy is
    /// written must not keep it open, or running the copy fails with "Text file busy" (exit 126, seen when the
    /// tests ran in parallel under AddressSanitizer).
    static func copyExecutable(_ source: String, to destination: String) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let descriptor = open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                guard written > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                offset += written
            }
        }
    }
}
