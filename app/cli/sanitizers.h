// Whether this build runs under AddressSanitizer (GCC says so with __SANITIZE_ADDRESS__, clang through
// __has_feature): its allocator then stands in for glibc's, which the start-up's malloc settings and the
// program's own operator new leave to it.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define SCORCH_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SCORCH_ADDRESS_SANITIZER 1
#endif
#endif
#ifndef SCORCH_ADDRESS_SANITIZER
#define SCORCH_ADDRESS_SANITIZER 0
#endif
