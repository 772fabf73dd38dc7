#include "cli/hugepagemalloc.h"

#include "cli/ownexecutable.h"
#include "cli/sanitizers.h"

#include "scorch/bigblocks.h"
#include "scorch/hugepages.h"

#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <unistd.h>

namespace scorch::cli {

namespace {

// Set for the re-executed image only: "=" + the original GLIBC_TUNABLES, or "-" when it was unset.
constexpr const char* kSaved = "SCORCH_SAVED_GLIBC_TUNABLES";
constexpr std::string_view kTunable = "glibc.malloc.hugetlb";

enum class State { NotTried, On, UserSet, ThpNever, Slow, Failed };
State g_state = State::NotTried;
enum class Threshold { NotTried, Fixed, UserSet, Sanitizer, Failed };
constexpr bool kAddressSanitizer = SCORCH_ADDRESS_SANITIZER;
Threshold g_threshold = Threshold::NotTried;
/// malloc maps blocks of this size and more apart (and so does the program's operator new:
/// scorch/bigblocks.h)
constexpr int kMapThreshold = static_cast<int>(kBigBlockBytes);

/// Sets GLIBC_TUNABLES to `value`, or unsets it.
void putBack(const std::optional<std::string>& value) {
    if (value)
        setenv("GLIBC_TUNABLES", value->c_str(), 1);
    else
        unsetenv("GLIBC_TUNABLES");
    unsetenv(kSaved);
}

/// GLIBC_TUNABLES names `tunable`: the user's value wins.
bool userSets(std::string_view tunable) {
    const char* env = std::getenv("GLIBC_TUNABLES");
    return env && std::string_view(env).find(tunable) != std::string_view::npos;
}

} // namespace

void enableHugePageMalloc(char** argv) {
    if (const char* saved = std::getenv(kSaved)) {
        // the re-executed image: the tunable is in force; give GLIBC_TUNABLES back its old value
        putBack(saved[0] == '=' ? std::optional<std::string>(saved + 1) : std::nullopt);
        assumeHugePages(HugePages::Fast); // (measured before re-executing)
        g_state = State::On;
        return;
    }
    if (userSets(kTunable)) {
        // the user's value decides for the core's big arrays too: 0 none, else huge pages (where THP is on)
        const std::string_view env = std::getenv("GLIBC_TUNABLES");
        const std::size_t at = env.rfind(std::string(kTunable) + "=");
        const bool off = at != std::string_view::npos && env.substr(at + kTunable.size() + 1, 1) == "0";
        assumeHugePages(off || !thpEnabled() ? HugePages::Unavailable : HugePages::Fast);
        g_state = State::UserSet;
        return;
    }
    const char* env = std::getenv("GLIBC_TUNABLES");
    const std::optional<std::string> old = env ? std::optional<std::string>(env) : std::nullopt;
    switch (hugePages()) { // (measured here, before re-executing)
    case HugePages::Unavailable:
        g_state = State::ThpNever;
        return;
    case HugePages::Slow: // malloc keeps to small pages too
        g_state = State::Slow;
        return;
    case HugePages::Fast:
        break;
    }
    const std::string saved = old ? "=" + *old : std::string("-");
    const std::string tunables =
        (old && !old->empty() ? *old + ":" : std::string()) + std::string(kTunable) + "=1";
    // the program's own file by name
    const std::optional<std::string> self = ownExecutable();
    if (self && setenv(kSaved, saved.c_str(), 1) == 0 && setenv("GLIBC_TUNABLES", tunables.c_str(), 1) == 0)
        execv(self->c_str(), argv); // returns only on failure (a deleted or replaced file, ...)
    putBack(old);                   // not re-executed: the environment as it was
    g_state = State::Failed;
}

std::string hugePageMallocStatus() {
    switch (g_state) {
    case State::On:
        return "huge pages:    on for large allocations (glibc.malloc.hugetlb=1)";
    case State::UserSet:
        return "huge pages:    as GLIBC_TUNABLES sets glibc.malloc.hugetlb";
    case State::ThpNever:
        return "huge pages:    off (transparent huge pages are disabled on this system)";
    case State::Slow: {
        char limit[32];
        std::snprintf(limit, sizeof limit, "%g ms", kSlowHugePageMs);
        return std::string("huge pages:    off (a huge page took over ") + limit +
               " to fault in: small pages cost less here)";
    }
    case State::Failed:
        return "huge pages:    off (could not re-execute the program)";
    case State::NotTried:
        break;
    }
    return "huge pages:    off";
}

void fixMallocMapThreshold() {
    if (userSets("glibc.malloc.mmap_threshold"))
        g_threshold = Threshold::UserSet;
    else if (kAddressSanitizer)
        g_threshold = Threshold::Sanitizer;
    else
        g_threshold = mallopt(M_MMAP_THRESHOLD, kMapThreshold) == 1 ? Threshold::Fixed : Threshold::Failed;
}

std::string mallocMapThresholdStatus() {
    switch (g_threshold) {
    case Threshold::Fixed:
        return "large blocks:  mapped apart from 4 MiB on, given back when freed";
    case Threshold::UserSet:
        return "large blocks:  as GLIBC_TUNABLES sets glibc.malloc.mmap_threshold";
    case Threshold::Sanitizer:
        return "large blocks:  as AddressSanitizer's allocator decides";
    case Threshold::Failed:
        return "large blocks:  as glibc decides (mallopt failed)";
    case Threshold::NotTried:
        break;
    }
    return "large blocks:  as glibc decides";
}

} // namespace scorch::cli
