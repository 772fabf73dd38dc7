#include "symbols/debuginfod.h"

#include <elfutils/debuginfod.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace scorch::detail {

namespace {

std::mutex& queryMutex() {
    static std::mutex m;
    return m;
}

struct Progress {
    const std::atomic<bool>* cancel;
    const std::function<void(const std::string&)>* status;
    std::string what;
    long reported = -1;
};

std::string bytesText(long n) {
    char text[32];
    if (n >= 1024 * 1024)
        std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(n) / (1024.0 * 1024.0));
    else
        std::snprintf(text, sizeof text, "%ld KB", n / 1024);
    return text;
}

int onProgress(debuginfod_client* client, long done, long total) {
    auto* p = static_cast<Progress*>(debuginfod_get_user_data(client));
    if (!p)
        return 0;
    if (p->cancel && p->cancel->load(std::memory_order_relaxed))
        return 1; // libdebuginfod stops the transfer
    if (p->status && *p->status && done >= 0 && (p->reported < 0 || done - p->reported >= 100 * 1024)) {
        p->reported = done;
        std::string message = "debuginfod: fetching " + p->what;
        if (done > 0)
            message += " (" + bytesText(done) + (total > 0 ? " of " + bytesText(total) : std::string()) + ")";
        (*p->status)(message);
    }
    return 0;
}

} // namespace

DebuginfodResult debuginfodFetch(std::string_view urls, DebuginfodKind kind, std::string_view buildId,
                                 std::string_view what, std::string_view sourcePath,
                                 const std::atomic<bool>* cancel,
                                 const std::function<void(const std::string&)>& status) {
    DebuginfodResult result;
    if (urls.find_first_not_of(' ') == std::string_view::npos || buildId.empty()) {
        result.error = "no debuginfod server";
        return result;
    }
    if (cancel && cancel->load()) {
        result.error = "cancelled";
        return result;
    }
    const std::string id(buildId), source(sourcePath), servers(urls);
    std::lock_guard lock(queryMutex());
    // the environment's value is put back after the query, so that it alone decides what libdwfl's own
    // .gnu_debuglink search asks (nothing when an import was given no servers)
    const char* current = std::getenv(DEBUGINFOD_URLS_ENV_VAR);
    const bool had = current != nullptr;
    const std::string previous = had ? current : "";
    const bool change = !had || servers != previous;
    if (change)
        ::setenv(DEBUGINFOD_URLS_ENV_VAR, servers.c_str(), 1);
    struct Restore {
        bool change, had;
        const std::string& previous;
        ~Restore() {
            if (change && had)
                ::setenv(DEBUGINFOD_URLS_ENV_VAR, previous.c_str(), 1);
            else if (change)
                ::unsetenv(DEBUGINFOD_URLS_ENV_VAR);
        }
    } restore{change, had, previous};
    debuginfod_client* client = debuginfod_begin();
    if (!client) {
        result.error = "libdebuginfod cannot start a client";
        return result;
    }
    const char* kindName = kind == DebuginfodKind::Executable  ? "executable"
                           : kind == DebuginfodKind::DebugInfo ? "debug info"
                                                               : "source";
    Progress progress{cancel, &status,
                      std::string(kindName) + " of " + std::string(what) +
                          (kind == DebuginfodKind::Source ? " " + source : std::string()),
                      -1};
    debuginfod_set_user_data(client, &progress);
    debuginfod_set_progressfn(client, onProgress);
    char* path = nullptr;
    const auto* bytes = reinterpret_cast<const unsigned char*>(id.c_str());
    int fd = -ENOSYS;
    switch (kind) {
    case DebuginfodKind::Executable:
        fd = debuginfod_find_executable(client, bytes, 0, &path);
        break;
    case DebuginfodKind::DebugInfo:
        fd = debuginfod_find_debuginfo(client, bytes, 0, &path);
        break;
    case DebuginfodKind::Source:
        fd = debuginfod_find_source(client, bytes, 0, source.c_str(), &path);
        break;
    }
    debuginfod_end(client);
    if (progress.reported >= 0 && status)
        status({}); // the transfer is over
    if (fd >= 0) {
        ::close(fd);
        if (path)
            result.path = path;
    } else if (cancel && cancel->load()) {
        result.error = "cancelled";
    } else if (fd == -ENOENT) {
        result.error = "not on " + servers;
    } else {
        result.error = servers + ": " + std::strerror(-fd);
    }
    std::free(path);
    return result;
}

} // namespace scorch::detail
