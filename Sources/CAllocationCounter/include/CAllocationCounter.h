#ifndef METRONOME_ALLOCATION_COUNTER_H
#define METRONOME_ALLOCATION_COUNTER_H

#include <stdint.h>

/// Number of malloc-family calls (malloc, calloc, realloc, the aligned allocators) made by the calling thread since
/// it started. Linking this target into a binary replaces the allocator entry points with counting wrappers that
/// forward to glibc, so the count covers the Swift runtime as well as C code.
uint64_t metronome_thread_allocation_count(void);

/// 1 when allocations are counted: by the wrappers in a normal build, by AddressSanitizer's malloc hook under it; 0
/// under ThreadSanitizer, whose runtime owns the allocator, where both counts stay 0. Tests that assert a count must
/// check it first.
int metronome_allocation_counting(void);

/// Number of malloc-family calls made by every thread of the process.
uint64_t metronome_process_allocation_count(void);

/// Bytes of heap in use (glibc's mallinfo2 uordblks), for measuring what a data structure keeps alive.
uint64_t metronome_heap_bytes_in_use(void);

#endif
