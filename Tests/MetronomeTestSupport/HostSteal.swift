import Foundation

/// The machine's steal time: what the hypervisor ran elsewhere while this virtual machine's CPUs wanted to run (the
/// eighth figure of /proc/stat's `cpu` line, in clock ticks of 10 ms). A live run repeated for a cause outside the
/// product (a server late, its underrun with our callbacks in time) is most often inside a stall of the host: the
/// CI machines' steal comes in bursts, up to 9.9 s in a 160 s lane (docs/benchmarks.md), and a repeat at once lands in
/// the same burst.
public enum HostSteal {
    /// The steal time so far, in 10 ms ticks, or nil where /proc/stat has none.
    public static func ticks() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") })
        else { return nil }
        let fields = line.split(separator: " ")
        return fields.count > 8 ? Int(fields[8]) : nil
    }

    /// Waits, before a repeat, for a whole second in which the host took nothing (`limit` at most); returns the
    /// seconds waited and the steal seen meanwhile, in milliseconds. Nothing is waited for where there is no figure.
    public static func waitForQuiet(limit: Int = 10) -> (seconds: Int, stolenMilliseconds: Int) {
        guard var last = ticks() else { return (0, 0) }
        var stolen = 0
        for second in 1...limit {
            sleep(1)
            guard let now = ticks() else { return (second, stolen * 10) }
            stolen += now - last
            if now == last { return (second, stolen * 10) }
            last = now
        }
        return (limit, stolen * 10)
    }
}
