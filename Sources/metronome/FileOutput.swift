import Glibc

/// Unbuffered writes to a standard stream, for error lines and the progress bar.
struct FileOutput {
    static let standardError = FileOutput(descriptor: 2)
    static let standardOutput = FileOutput(descriptor: 1)

    let descriptor: Int32

    /// Whether the stream is a terminal (progress bars and escape codes only go to terminals).
    var isTerminal: Bool { isatty(descriptor) == 1 }

    func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
