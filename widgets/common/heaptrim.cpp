#include "common/heaptrim.h"

#include "common/backgroundjob.h"

#include "scorch/procstatus.h"

#include <QCoreApplication>
#include <QPointer>
#include <QTimer>

#include <malloc.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace scorch {

namespace {

constexpr int kIdleMs = 3000;
std::atomic<std::size_t> g_trims{0};

/// The single-shot timer, made on the GUI thread the first time it is started (again if the application
/// that owned it is gone).
QTimer* idleTimer() {
    static QPointer<QTimer> timer;
    if (!timer) {
        timer = new QTimer(QCoreApplication::instance());
        timer->setSingleShot(true);
        timer->setInterval(kIdleMs);
        QObject::connect(timer, &QTimer::timeout, [] { backgroundPool()->start([] { trimHeapNow(); }); });
    }
    return timer;
}

} // namespace

void trimHeapSoon() {
    static const bool off = std::getenv("SCORCH_NO_HEAP_TRIM") != nullptr; // (to measure without)
    QCoreApplication* app = QCoreApplication::instance();
    if (!app || off)
        return;
    QMetaObject::invokeMethod(
        app, [] { idleTimer()->start(); }, Qt::QueuedConnection);
}

std::size_t trimHeapNow() {
    const std::size_t before = anonymousResidentBytes();
    const auto start = std::chrono::steady_clock::now();
    malloc_trim(0);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const std::size_t after = anonymousResidentBytes();
    ++g_trims;
    if (std::getenv("SCORCH_TRACE"))
        std::fprintf(stderr, "scorch-trace heap trimmed in %.1f ms: RssAnon %zu -> %zu MB\n", ms,
                     before >> 20, after >> 20);
    return before > after ? before - after : 0;
}

std::size_t heapTrims() {
    return g_trims.load();
}

namespace {
/// The "Key: N kB" line of a /proc file, in bytes; 0 when absent or unreadable.
std::size_t bytesField(const char* path, std::string_view key) {
    return static_cast<std::size_t>(std::max(procKilobytes(path, key), 0ll)) * 1024;
}
} // namespace

std::size_t anonymousResidentBytes() {
    return bytesField("/proc/self/status", "RssAnon");
}

std::size_t availableMemoryBytes() {
    return bytesField("/proc/meminfo", "MemAvailable");
}

} // namespace scorch
