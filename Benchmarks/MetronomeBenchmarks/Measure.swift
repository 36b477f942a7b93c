import Glibc

/// What one run of an external command cost.
struct ProcessCost {
    var wallSeconds: Double
    var cpuSeconds: Double
    var peakResidentKilobytes: Int
    var status: Int32
}

enum Measure {
    static func now(_ clock: clockid_t = CLOCK_MONOTONIC) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Runs a program with posix_spawn and reads its CPU time and peak RSS from wait4; stdout and stderr go to
    /// /dev/null.
    static func spawn(_ path: String, _ arguments: [String]) -> ProcessCost {
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) }
        argv.append(nil)
        defer { for pointer in argv { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pid: pid_t = 0
        let start = now()
        guard posix_spawnp(&pid, path, &actions, nil, argv, environ) == 0 else {
            return ProcessCost(wallSeconds: 0, cpuSeconds: 0, peakResidentKilobytes: 0, status: -1)
        }
        var status: Int32 = 0
        var usage = rusage()
        wait4(pid, &status, 0, &usage)
        let wall = now() - start
        let cpu =
            Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return ProcessCost(
            wallSeconds: wall, cpuSeconds: cpu, peakResidentKilobytes: Int(usage.ru_maxrss),
            status: (status >> 8) & 0xFF)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    static func which(_ program: String) -> String? {
        guard let path = getenv("PATH") else { return nil }
        for directory in String(cString: path).split(separator: ":") {
            let candidate = "\(directory)/\(program)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    static func format(_ value: Double, _ digits: Int = 2) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        var text = String(rounded)
        if let dot = text.firstIndex(of: ".") {
            let decimals = text.distance(from: dot, to: text.endIndex) - 1
            if decimals < digits { text += String(repeating: "0", count: digits - decimals) }
        } else if digits > 0 {
            text += "." + String(repeating: "0", count: digits)
        }
        return text
    }

    /// /proc/loadavg's 1, 5 and 15 minute averages: how busy the machine was while measuring.
    static func loadAverage() -> String {
        var averages = [Double](repeating: 0, count: 3)
        let count = getloadavg(&averages, 3)
        return averages.prefix(Int(max(0, count))).map { format($0) }.joined(separator: ", ")
    }

    /// The machine, for the report.
    static func machine() -> String {
        var model = "unknown CPU"
        if let file = fopen("/proc/cpuinfo", "r") {
            defer { fclose(file) }
            var line: UnsafeMutablePointer<CChar>?
            var capacity = 0
            while getline(&line, &capacity, file) > 0 {
                let text = String(cString: line!)
                if text.hasPrefix("model name") {
                    model = String(text.split(separator: ":", maxSplits: 1)[1].trimmingPrefix(" ").dropLast())
                    break
                }
            }
            free(line)
        }
        return "\(model), \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) cores"
    }
}

/// A child started with posix_spawn, reaped with wait4 to read its resource use.
final class Spawned {
    let pid: pid_t
    let started: Double

    /// Starts `path`; stdout and stderr go to `errorFile` (or /dev/null); extra environment variables are added.
    init(_ path: String, _ arguments: [String], environment: [String: String] = [:], errorFile: String? = nil) {
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        var variables: [String] = []
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            let name = String(text.prefix { $0 != "=" })
            if environment[name] == nil { variables.append(text) }
            index += 1
        }
        variables += environment.map { "\($0.key)=\($0.value)" }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorFile ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var child: pid_t = 0
        started = Measure.now()
        if posix_spawnp(&child, path, &actions, nil, argv, envp) != 0 { child = -1 }
        pid = child
    }

    func signal(_ number: Int32) { if pid > 0 { kill(pid, number) } }

    /// The child's own peak RSS so far (VmHWM), in kB, or 0 once it has gone.
    ///
    /// wait4's ru_maxrss cannot be used: posix_spawn clones the parent's address space until exec, and exec records
    /// that space's peak (the harness's own) into the child's maxrss.
    func peakResidentKilobytes() -> Int {
        guard let file = fopen("/proc/\(pid)/status", "r") else { return 0 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("VmHWM:") { return Int(text.dropFirst(6).filter(\.isNumber)) ?? 0 }
        }
        return 0
    }

    /// Waits for the child, watching its peak RSS every 2 ms, and returns what it cost.
    func finish() -> ProcessCost {
        guard pid > 0 else { return ProcessCost(wallSeconds: 0, cpuSeconds: 0, peakResidentKilobytes: 0, status: -1) }
        var status: Int32 = 0
        var usage = rusage()
        var peak = 0
        while true {
            peak = max(peak, peakResidentKilobytes())
            let result = wait4(pid, &status, WNOHANG, &usage)
            if result == pid || (result < 0 && errno != EINTR) { break }
            usleep(2_000)
        }
        let wall = Measure.now() - started
        let cpu =
            Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return ProcessCost(
            wallSeconds: wall, cpuSeconds: cpu, peakResidentKilobytes: peak, status: (status >> 8) & 0xFF)
    }
}
