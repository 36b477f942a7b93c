// Counting wrappers around glibc's allocator. glibc exports its implementation under __libc_* names, so the wrappers
// forward there without dlsym (which may itself allocate). Counters are per thread (static TLS, allocation-free) plus
// one process-wide atomic.
#define _GNU_SOURCE
#include <malloc.h>
#include "CAllocationCounter.h"

#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static __thread uint64_t thread_count __attribute__((tls_model("initial-exec")));
static uint64_t process_count;

static inline void count_one(void) {
    thread_count += 1;
    __atomic_fetch_add(&process_count, 1, __ATOMIC_RELAXED);
}

uint64_t metronome_thread_allocation_count(void) { return thread_count; }

uint64_t metronome_process_allocation_count(void) { return __atomic_load_n(&process_count, __ATOMIC_RELAXED); }

void *malloc(size_t size) {
    count_one();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_one();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    count_one();
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) {
        return EINVAL;
    }
    count_one();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) {
        return ENOMEM;
    }
    *result = pointer;
    return 0;
}

void free(void *pointer) { __libc_free(pointer); }

uint64_t metronome_heap_bytes_in_use(void) { return (uint64_t)mallinfo2().uordblks; }
