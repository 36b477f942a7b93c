import CAllocationCounter
import Testing

extension Trait where Self == ConditionTrait {
    /// Runs a test that asserts allocation counts only where the counter wraps malloc: in the normal suite, not
    /// under ThreadSanitizer or AddressSanitizer (.ci/sanitize), whose runtimes own the allocator.
    public static var countsAllocations: Self {
        .enabled(
            if: metronome_allocation_counting() != 0,
            "allocation counting is off under a sanitizer (its runtime owns malloc); this test runs in the normal suite"
        )
    }
}
