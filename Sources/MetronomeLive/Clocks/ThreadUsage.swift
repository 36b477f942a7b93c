import Glibc

/// What the calling thread has used so far: its time on the CPU (user and system), and the times it gave the CPU up
/// to wait (for a lock, a page from the disk, any blocking call). The difference of two, taken at a callback's start
/// and end, tells a callback slow of its own (on the CPU that long, or waiting) from one the machine preempted.
/// Read with `clock_gettime(CLOCK_THREAD_CPUTIME_ID)` (to the nanosecond; `getrusage`'s user and system times are
/// split by sampling, and were seen to add up to more than the wall time between two reads) and
/// `getrusage(RUSAGE_THREAD)`: system calls, no allocation, no lock. Real-time safe. With paravirtual steal time
/// accounting (these machines' kernels), the time a hypervisor took the CPU is not on the thread's clock; the time
/// the CPU spent in interrupts and softirqs while the thread ran is, on a kernel without
/// `CONFIG_IRQ_TIME_ACCOUNTING` (the CI machine's: docs/benchmarks.md, "The clean-clone runs of 2026-12-02, fifth
/// session").
///
/// `pageFaults` counts the pages the thread faulted in (minor and major faults): a render thread that touches memory
/// for the first time pays for it inside its deadline, on the thread's own CPU time (on a virtual machine, the
/// hypervisor backing the page as well).
/// Used by the JACK process callback and the PulseAudio write callback alike.
package struct ThreadUsage: Sendable {
    package var cpuNanoseconds: Int64
    package var waits: Int
    package var pageFaults: Int

    /// `RUSAGE_THREAD` (Linux): Glibc's Swift module leaves the constant out (it needs `_GNU_SOURCE`).
    private static let thread = __rusage_who_t(1)

    package static func now() -> ThreadUsage {
        var cpu = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu)
        var usage = rusage()
        let read = getrusage(thread, &usage) == 0
        let waits = read ? Int(usage.ru_nvcsw) + Int(usage.ru_majflt) : 0
        let faults = read ? Int(usage.ru_minflt) + Int(usage.ru_majflt) : 0
        return ThreadUsage(
            cpuNanoseconds: Int64(cpu.tv_sec) * 1_000_000_000 + Int64(cpu.tv_nsec), waits: waits, pageFaults: faults)
    }

    /// Of `elapsed` nanoseconds between a callback's start and end that used this much, how many were its own doing:
    /// its time on the CPU, or all of them when it gave the CPU up to wait (a lock, a page from the disk: ours too).
    /// The rest is the machine's (the thread preempted, the hypervisor running another guest).
    package func ownNanoseconds(of elapsed: Int64) -> Int64 { waits > 0 ? elapsed : cpuNanoseconds }

    package static func - (after: ThreadUsage, before: ThreadUsage) -> ThreadUsage {
        ThreadUsage(
            cpuNanoseconds: after.cpuNanoseconds - before.cpuNanoseconds, waits: after.waits - before.waits,
            pageFaults: after.pageFaults - before.pageFaults)
    }
}
