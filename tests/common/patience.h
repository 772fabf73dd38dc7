// How long a test waits for something to happen. Tests wait for events (a state, a signal, a number of
// samples), never for a fixed time, and never assert how long something took: each wait ends as soon as
// what it waits for is there and is bounded only so that a broken program fails instead of hanging. The bound
// is far beyond what a slow, loaded or sanitized run needs (CTest's TIMEOUT of the test is larger still).
#pragma once

namespace scorch::test {

/// Upper bound of a test's wait for an event, in milliseconds.
inline constexpr int kPatienceMs = 120000;

} // namespace scorch::test
