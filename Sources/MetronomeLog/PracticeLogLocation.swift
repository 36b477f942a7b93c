import Glibc

/// Where the practice log is kept by default: `$XDG_DATA_HOME/metronome/practice.sqlite`, else
/// `$HOME/.local/share/metronome/practice.sqlite` (the XDG Base Directory specification's data folder).
public enum PracticeLogLocation {
    /// The default file for `environment`; nil when neither `XDG_DATA_HOME` nor `HOME` is set (a relative
    /// `XDG_DATA_HOME` is ignored, as the specification says).
    public static func defaultPath(environment: [String: String]) -> String? {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/metronome/practice.sqlite" }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.local/share/metronome/practice.sqlite"
    }

    /// Creates the folders of `path` that are missing (mode 0700 for new ones, as the XDG specification asks).
    /// - Returns: nil, or the reason a folder could not be made (strerror's words).
    public static func makeFolder(of path: String) -> String? {
        var folders: [String] = []
        var folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        while !folder.isEmpty, access(folder, F_OK) != 0 {
            folders.append(folder)
            folder = String(folder[..<(folder.lastIndex(of: "/") ?? folder.startIndex)])
        }
        for missing in folders.reversed() where mkdir(missing, 0o700) != 0 && errno != EEXIST {
            return "\(missing): \(String(cString: strerror(errno)))"
        }
        return nil
    }
}
