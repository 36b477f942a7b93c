// Counting wrappers around glibc's allocator. glibc exports its implementation under __libc_* names, so the wrappers
// forward there without dlsym (which may itself allocate). Counters are per thread (static TLS, allocation-free) plus
// one process-wide atomic.
//
// Under a sanitizer (SwiftPM's --sanitize=thread or =address compiles C targets with -fsanitize too) the wrappers are
// left out: the sanitizer runtime owns malloc, and TSan's initialisation would enter a wrapper before TLS and the
// runtime are set up (the test suite died at start-up). Under AddressSanitizer the counting comes from its own hook
// instead: a constructor installs a malloc hook (`__sanitizer_install_malloc_and_free_hooks`), which its allocator
// calls for every allocation once the runtime is up (realloc included: ASan's always allocates anew), so the tests
// that count allocations run in its lane too. Under ThreadSanitizer the counters stay at 0 and
// metronome_allocation_counting() says so, so the tests that need them are skipped (its run is by hand).
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

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define METRONOME_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define METRONOME_SANITIZED 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define METRONOME_ADDRESS_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define METRONOME_ADDRESS_SANITIZED 1
#endif

static __thread uint64_t thread_count __attribute__((tls_model("initial-exec")));
static uint64_t process_count;

static inline void count_one(void) {
    thread_count += 1;
    __atomic_fetch_add(&process_count, 1, __ATOMIC_RELAXED);
}

uint64_t metronome_thread_allocation_count(void) { return thread_count; }

uint64_t metronome_process_allocation_count(void) { return __atomic_load_n(&process_count, __ATOMIC_RELAXED); }

#if defined(METRONOME_ADDRESS_SANITIZED)

#include <sanitizer/allocator_interface.h>

static void count_hooked(const volatile void *pointer, size_t size) {
    (void)pointer;
    (void)size;
    count_one();
}

// The runtime installs a pair of hooks or none: a null free hook would leave the malloc hook out too.
static void free_hooked(const volatile void *pointer) { (void)pointer; }

static int hook_installed;

__attribute__((constructor)) static void install_counting_hook(void) {
    hook_installed = __sanitizer_install_malloc_and_free_hooks(count_hooked, free_hooked) != 0;
}

// 0 when the runtime took no hook (it holds a few pairs), so the tests that count skip rather than see nothing.
int metronome_allocation_counting(void) { return hook_installed; }

#elif defined(METRONOME_SANITIZED)

int metronome_allocation_counting(void) { return 0; }

#else

int metronome_allocation_counting(void) { return 1; }

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

#endif

uint64_t metronome_heap_bytes_in_use(void) { return (uint64_t)mallinfo2().uordblks; }
