import Glibc

/// The patterns a page may load, by name: the pattern `serve` was started with, the shipped ones, and the `.metro`
/// files of the folders `--patterns` names. A page sends only a name, and the remote turns it into the file's path
/// for `/metronome/pattern`: a page can load nothing else (no path it makes up, no file elsewhere).
///
/// A name taken by an earlier entry is not listed again: the started pattern first, then the shipped ones, then each
/// folder in order (as `PatternLibrary` looks a bare name up: shipped first). At most `maximumCount` are listed.
///
/// Threads: an immutable value; any thread.
public struct WebPatterns: Sendable, Hashable {
    /// One pattern a page may load.
    public struct Entry: Sendable, Hashable {
        /// What the page shows and sends.
        public var name: String
        /// The file loaded.
        public var path: String

        /// An entry.
        /// - Parameters:
        ///   - name: what the page shows and sends.
        ///   - path: the file loaded.
        public init(name: String, path: String) {
            self.name = name
            self.path = path
        }
    }

    /// The patterns, in the order the page lists them.
    public let entries: [Entry]

    /// The most patterns listed (the page's menu stays usable; the state message small).
    public static let maximumCount = 256

    /// A list of entries; a name already listed is dropped, and the list ends at `maximumCount`.
    /// - Parameter entries: the candidates, in order.
    public init(_ entries: [Entry] = []) {
        var names: Set<String> = []
        var kept: [Entry] = []
        for entry in entries where kept.count < WebPatterns.maximumCount && names.insert(entry.name).inserted {
            kept.append(entry)
        }
        self.entries = kept
    }

    /// The file a page's name means, or nil when the page may not load it.
    public func path(named name: String) -> String? { entries.first { $0.name == name }?.path }

    /// The name a pattern loaded by the service is listed under (by its path or its name), if any.
    public func name(loaded pattern: String) -> String? {
        entries.first { $0.path == pattern || $0.name == pattern }?.name
    }

    /// The `.metro` files of a folder, sorted by name, each under its name without `.metro`.
    /// - Parameter folder: the folder (not searched below).
    /// - Returns: nil when the folder cannot be opened.
    public static func files(in folder: String) -> [Entry]? {
        guard let directory = opendir(folder) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory), names.count < 4 * maximumCount {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".metro"), name.count > ".metro".count { names.append(String(name.dropLast(6))) }
        }
        let base = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        return names.sorted().map { Entry(name: $0, path: base + "/" + $0 + ".metro") }
    }
}
