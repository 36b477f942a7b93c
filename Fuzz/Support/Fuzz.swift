import Glibc

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

/// Runs a harness under libFuzzer and exits with the driver's status. Call it from a harness's `main.swift`.
///
/// The body gets one input's bytes per call. It returns normally for every input the code under test accepts or
/// refuses with its typed error; anything else — a trap, a sanitizer report, a leak, a timeout, memory past
/// `-rss_limit_mb` — is a crash, which libFuzzer reports and saves as `crash-…` (see `.ci/fuzz`).
///
/// - Parameter body: calls the parser on the bytes and checks what it returns.
public func fuzz(_ body: @escaping ([UInt8]) -> Void) -> Never {
    harness = body
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    let status = runLibFuzzer(&argc, &argv) { data, size in
        harness!(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }
    exit(status)
}

/// Stops the run as a crash when a property the harness checks does not hold.
/// - Parameters:
///   - condition: the property.
///   - message: what went wrong, with the values involved.
public func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
