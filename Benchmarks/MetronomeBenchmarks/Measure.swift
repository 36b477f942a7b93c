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
