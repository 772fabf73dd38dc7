// trimHeapSoon(): gives the heap's free memory back to the kernel once the window has been idle a while.
#pragma once

#include <cstddef>

namespace scorch {

/// Asks for the heap to be trimmed (malloc_trim) 3 s after the last such request, on a pool thread. glibc
/// keeps what the jobs free (its threshold for giving a large block its own mapping rises to 32 MB as large
/// blocks are freed, and each pool thread allocates from an arena of its own), so without this the window
/// held 1.3-1.5 GB after opening fp-large, of which 570 MB were in use. Safe from any thread; a no-op
/// without a QCoreApplication, or with the environment variable SCORCH_NO_HEAP_TRIM set (to measure without).
/// Called when a BackgroundJob's work ends and when releaseInBackground() frees.
void trimHeapSoon();

/// Trims the heap now: the bytes of free heap memory given back to the kernel (resident before and not
/// after, as /proc/self/status's RssAnon counts them; 0 when nothing was given back). For the tests.
std::size_t trimHeapNow();

/// How many times the heap has been trimmed (by either function) in this process.
std::size_t heapTrims();

/// RssAnon of /proc/self/status (the process's resident anonymous memory) in bytes; 0 when unreadable.
std::size_t anonymousResidentBytes();

/// MemAvailable of /proc/meminfo (what the kernel could give without swapping) in bytes; 0 when unreadable.
std::size_t availableMemoryBytes();

} // namespace scorch
