// The program's operator new and delete: blocks of scorch::kBigBlockBytes and more come from
// scorch/bigblocks.h, which recycles freed ones while a perf.data import builds its tree; the rest from
// malloc, as the default ones do. (The window's module, loaded later, uses these too.)
//
// Not under AddressSanitizer: its allocator checks every block, and its leak checker would not look for
// pointers inside blocks it did not give.
#include "scorch/bigblocks.h"
#include "cli/sanitizers.h"

#include <cstdlib>
#include <new>

#if !SCORCH_ADDRESS_SANITIZER

namespace {

void* allocate(std::size_t n) noexcept {
    if (n >= scorch::kBigBlockBytes)
        if (void* p = scorch::allocateBigBlock(n))
            return p;
    return std::malloc(n ? n : 1);
}

/// Like the default operator new: calls the new-handler until memory is found or there is none.
void* allocateOrThrow(std::size_t n) {
    for (;;) {
        if (void* p = allocate(n))
            return p;
        std::new_handler handler = std::get_new_handler();
        if (!handler)
            throw std::bad_alloc();
        handler();
    }
}

void release(void* p) noexcept {
    if (!scorch::freeBigBlock(p))
        std::free(p);
}

/// A block of a known size: below the threshold, never a big one.
void release(void* p, std::size_t n) noexcept {
    if (n >= scorch::kBigBlockBytes)
        release(p);
    else
        std::free(p);
}

} // namespace

void* operator new(std::size_t n) {
    return allocateOrThrow(n);
}
void* operator new[](std::size_t n) {
    return allocateOrThrow(n);
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return allocateOrThrow(n);
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return allocateOrThrow(n);
    } catch (...) {
        return nullptr;
    }
}
void operator delete(void* p) noexcept {
    release(p);
}
void operator delete[](void* p) noexcept {
    release(p);
}
void operator delete(void* p, std::size_t n) noexcept {
    release(p, n);
}
void operator delete[](void* p, std::size_t n) noexcept {
    release(p, n);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
    release(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
    release(p);
}

#endif
