import Glibc

#if METRONOME_LIBFUZZER
/// libFuzzer's driver, `LLVMFuzzerRunDriver` (linked in by `-sanitize=fuzzer`): parses the command line (`-runs=N`,
/// corpus folders, a reproducer file…), then calls `callback` once per input, and returns the process's exit status.
@_silgen_name("LLVMFuzzerRunDriver")
private func runLibFuzzer(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The harness's body, set once by `fuzz(_:)` before the driver starts; only the driver's thread reads it.
nonisolated(unsafe) private var harness: (([UInt8]) -> Void)?
#endif

/// Runs a harness and exits. Call it from a harness's `main.swift`.
///
/// Built by `.ci/fuzz` (`-sanitize=fuzzer` and `-D METRONOME_LIBFUZZER`), it runs libFuzzer's driver and exits with
/// its status. In every other build (the normal one and the sanitizers', where the suite's `FuzzCorpusTests` runs
/// it) it replays the files it is given: each argument is a file or a folder of files, every file one input, in name
/// order; it prints `replayed N inputs` and exits 0, or 64 on an argument it cannot read.
///
/// The body gets one input's bytes per call. It returns normally for every input the code under test accepts or
/// refuses with its typed error; anything else — a trap, a sanitizer report, a leak, a timeout, memory past
/// `-rss_limit_mb` — is a crash, which libFuzzer reports and saves as `crash-…` (see `.ci/fuzz`), and which fails
/// a replay with the trap's status.
///
/// - Parameter body: calls the parser on the bytes and checks what it returns.
public func fuzz(_ body: @escaping ([UInt8]) -> Void) -> Never {
    #if METRONOME_LIBFUZZER
    harness = body
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    let status = runLibFuzzer(&argc, &argv) { data, size in
        harness!(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }
    exit(status)
    #else
    var replayed = 0
    for argument in CommandLine.arguments.dropFirst() {
        guard let inputs = files(at: argument) else {
            printError("error: cannot read '\(argument)' (a file or a folder of inputs)")
            exit(64)
        }
        for path in inputs {
            guard let bytes = contents(of: path) else {
                printError("error: cannot read '\(path)'")
                exit(64)
            }
            body(bytes)
            replayed += 1
        }
    }
    print("replayed \(replayed) inputs")
    exit(0)
    #endif
}

#if !METRONOME_LIBFUZZER
/// The regular files a replay argument names: itself, or the files directly in the folder it names, in name order;
/// nil when it is neither.
private func files(at path: String) -> [String]? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    guard status.st_mode & S_IFMT == S_IFDIR else { return [path] }
    guard let folder = opendir(path) else { return nil }
    defer { closedir(folder) }
    var names: [String] = []
    while let entry = readdir(folder) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        var entryStatus = stat()
        if stat("\(path)/\(name)", &entryStatus) == 0, entryStatus.st_mode & S_IFMT == S_IFREG { names.append(name) }
    }
    return names.sorted().map { "\(path)/\($0)" }
}

/// Writes a line to standard error.
private func printError(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

/// A file's bytes, or nil when it cannot be read.
private func contents(of path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        bytes += chunk.prefix(count)
        if count < chunk.count { return ferror(file) == 0 ? bytes : nil }
    }
}
#endif

/// Stops the run as a crash when a property the harness checks does not hold.
/// - Parameters:
///   - condition: the property.
///   - message: what went wrong, with the values involved.
public func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
