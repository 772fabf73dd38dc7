#include "symbols/debuginfod.h"

#include "scorch/cancel.h"

#include "util/dynlib.h"

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

/// libdebuginfod, opened on the first query (as libdw opens it): linked, it and libcurl's tree of TLS,
/// Kerberos and LDAP libraries (46 shared objects in all) were loaded and relocated by every start of
/// `scorch`, 25 ms of a 30 ms `scorch --version` on a VM.
struct Api {
    decltype(&debuginfod_begin) begin = nullptr;
    decltype(&debuginfod_end) end = nullptr;
    decltype(&debuginfod_set_user_data) setUserData = nullptr;
    decltype(&debuginfod_get_user_data) getUserData = nullptr;
    decltype(&debuginfod_set_progressfn) setProgressfn = nullptr;
    decltype(&debuginfod_find_executable) findExecutable = nullptr;
    decltype(&debuginfod_find_debuginfo) findDebuginfo = nullptr;
    decltype(&debuginfod_find_source) findSource = nullptr;
    std::string error; ///< why it could not be loaded
};

const Api& api() {
    static const Api loaded = [] {
        Api a;
        DynamicLibrary lib("libdebuginfod.so.1");
        const bool ok = lib && lib.get(a.begin, "debuginfod_begin") && lib.get(a.end, "debuginfod_end") &&
                        lib.get(a.setUserData, "debuginfod_set_user_data") &&
                        lib.get(a.getUserData, "debuginfod_get_user_data") &&
                        lib.get(a.setProgressfn, "debuginfod_set_progressfn") &&
                        lib.get(a.findExecutable, "debuginfod_find_executable") &&
                        lib.get(a.findDebuginfo, "debuginfod_find_debuginfo") &&
                        lib.get(a.findSource, "debuginfod_find_source");
        if (!ok)
            a = Api{.error = "libdebuginfod cannot be loaded (" + lib.error() + ")"};
        return a;
    }();
    return loaded;
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
    auto* p = static_cast<Progress*>(api().getUserData(client));
    if (!p)
        return 0;
    if (cancelRequested(p->cancel))
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
    if (!anyDebuginfodServer(urls) || buildId.empty()) {
        result.error = "no debuginfod server";
        return result;
    }
    if (cancel && cancel->load()) {
        result.error = "cancelled";
        return result;
    }
    const Api& lib = api();
    if (!lib.begin) {
        result.error = lib.error;
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
    debuginfod_client* client = lib.begin();
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
    lib.setUserData(client, &progress);
    lib.setProgressfn(client, onProgress);
    char* path = nullptr;
    const auto* bytes = reinterpret_cast<const unsigned char*>(id.c_str());
    int fd = -ENOSYS;
    switch (kind) {
    case DebuginfodKind::Executable:
        fd = lib.findExecutable(client, bytes, 0, &path);
        break;
    case DebuginfodKind::DebugInfo:
        fd = lib.findDebuginfo(client, bytes, 0, &path);
        break;
    case DebuginfodKind::Source:
        fd = lib.findSource(client, bytes, 0, source.c_str(), &path);
        break;
    }
    lib.end(client);
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
