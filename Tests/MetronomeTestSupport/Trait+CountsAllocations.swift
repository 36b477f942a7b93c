import CAllocationCounter
import Testing

extension Trait where Self == ConditionTrait {
    /// Runs a test that asserts allocation counts only where allocations are counted: in the normal suite (the
    /// counter wraps malloc) and under AddressSanitizer (its malloc hook), not under ThreadSanitizer (.ci/sanitize),
    /// whose runtime owns the allocator.
    public static var countsAllocations: Self {
        .enabled(
            if: metronome_allocation_counting() != 0,
            """
            allocation counting is off under ThreadSanitizer (its runtime owns malloc); this test runs in the normal \
            suite and under AddressSanitizer
            """
        )
    }
}
