import Glibc
import MetronomeModel
import MetronomePatterns

/// Where pattern files are found: a path is used as it is; a bare name (no `/`) that is no file is looked up among
/// the shipped patterns (`NAME.metro`), then in the extra folders.
///
/// The shipped folder is `$METRONOME_PATTERNS`, else a `Patterns` folder (or `share/metronome/patterns`) beside the
/// executable or in any folder above it, else `./Patterns` (`PatternLibrary.shippedFolder()`).
///
/// Threads: an immutable value; any thread.
public struct PatternLibrary: Sendable, Hashable {
    /// The shipped patterns' folder, if one was found.
    public var shippedFolder: String?
    /// More folders searched for a bare name, after the shipped one.
    public var extraFolders: [String]

    /// A library over the shipped folder and, optionally, more folders.
    /// - Parameters:
    ///   - shippedFolder: the shipped patterns' folder (default: `PatternLibrary.shippedFolder()`).
    ///   - extraFolders: more folders searched for a bare name.
    public init(shippedFolder: String? = PatternLibrary.shippedFolder(), extraFolders: [String] = []) {
        self.shippedFolder = shippedFolder
        self.extraFolders = extraFolders
    }

    /// The document a name on the command line or over OSC means.
    /// - Parameter name: a path, or the name of a shipped pattern (with or without `.metro`).
    /// - Returns: the file it resolves to, or the name as a path when nothing matches (reading it then says why).
    public func document(named name: String) -> PatternDocument {
        if access(name, F_OK) != 0, let shipped = shipped(named: name) { return shipped }
        return PatternDocument(path: name, requestedName: name)
    }

    /// The pattern a bare name means in the library's folders alone (the shipped one first, then the extra ones),
    /// whatever the working folder holds: what a setlist's `pattern NAME` plays.
    /// - Parameter name: a name without `/`, with or without `.metro`.
    /// - Returns: the file, or nil when no folder has it (or the name holds a `/`).
    public func shipped(named name: String) -> PatternDocument? {
        guard !name.contains("/") else { return nil }
        for folder in [shippedFolder].compactMap({ $0 }) + extraFolders {
            for candidate in [folder + "/" + name + ".metro", folder + "/" + name] where access(candidate, F_OK) == 0 {
                return PatternDocument(path: candidate, requestedName: name)
            }
        }
        return nil
    }

    /// The shipped patterns, sorted by name: each name and its file.
    /// - Returns: nil when there is no shipped folder or it cannot be read.
    public func shippedPatterns() -> [(name: String, document: PatternDocument)]? {
        guard let folder = shippedFolder, let directory = opendir(folder) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".metro") { names.append(String(name.dropLast(".metro".count))) }
        }
        return names.sorted().map { ($0, PatternDocument(path: folder + "/" + $0 + ".metro", requestedName: $0)) }
    }

    /// The folder of shipped patterns: `$METRONOME_PATTERNS`, else a `Patterns` folder (or
    /// `share/metronome/patterns`) holding `basic.metro` beside the executable or in any folder above it, else
    /// `./Patterns`; nil when none exists.
    public static func shippedFolder() -> String? {
        if let variable = getenv("METRONOME_PATTERNS") { return String(cString: variable) }
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if count > 0 {
            var folder = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            while let slash = folder.lastIndex(of: "/"), slash != folder.startIndex {
                folder = String(folder[..<slash])
                for candidate in [folder + "/Patterns", folder + "/share/metronome/patterns"]
                where access(candidate + "/basic.metro", F_OK) == 0 {
                    return candidate
                }
            }
        }
        return access("Patterns", F_OK) == 0 ? "Patterns" : nil
    }
}
