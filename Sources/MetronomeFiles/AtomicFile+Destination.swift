import Glibc

extension AtomicFile {
    /// A file being replaced atomically: the hidden temporary file its bytes go to until every one is written, beside
    /// the file the destination's symbolic links lead to, and the rename that puts them in place.
    ///
    /// The one place this module names a temporary file and renames it over a destination; `write(_:to:)` writes
    /// through it, and any other writer (an audio render) can create one, write `temporaryPath` its own way, and end
    /// with `commit()` or `discard()`.
    struct Destination: Sendable {
        /// The destination path, as given: what errors name.
        let path: String
        /// Where the bytes end up: `path`, or the file its chain of symbolic links leads to (the link stays a link).
        let resolvedPath: String
        /// The temporary file, `.NAME.partial-PID` in the folder of `resolvedPath`.
        let temporaryPath: String

        /// Resolves the destination and names its temporary file (nothing is created yet).
        /// - Parameter path: the destination.
        /// - Throws: `AudioFileError.cannotCreate` when the destination is a directory or a loop of symbolic links.
        init(path: String) throws(AudioFileError) {
            let target = try AudioFileWriter.followingLinks(path)
            let slash = target.lastIndex(of: "/")
            let directory = slash.map { String(target[...$0]) } ?? ""
            let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
            var status = stat()
            if stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
                throw .cannotCreate(path: path, reason: "it is a directory")
            }
            self.path = path
            resolvedPath = target
            temporaryPath = "\(directory).\(name).partial-\(getpid())"
        }

        /// Renames the written and closed temporary file to `resolvedPath`; when that fails the temporary file is
        /// removed and the destination is left as it was.
        /// - Throws: `AudioFileError.diskFull` or `.writeFailed` (`AudioFileError.writeFailed(path:errno:)`) when the
        ///   rename fails.
        func commit() throws(AudioFileError) {
            guard rename(temporaryPath, resolvedPath) == 0 else {
                let code = errno
                discard()
                throw .writeFailed(path: path, errno: code)
            }
        }

        /// Removes the temporary file; the destination is left as it was.
        func discard() {
            unlink(temporaryPath)
        }
    }
}
