#include "common/backgroundjob.h"

#include <QThread>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

namespace scorch {

namespace {

struct Pool : QThreadPool {
    Pool() {
        setObjectName(QStringLiteral("scorch-jobs"));
        setMaxThreadCount(std::max(4, QThread::idealThreadCount()));
    }
};

} // namespace

Q_GLOBAL_STATIC(Pool, pool)

QThreadPool* backgroundPool() {
    return pool();
}

void lowerThreadPriority() {
    // (on Linux, a thread's nice value is its own, and threads it creates inherit it)
    thread_local bool lowered = false;
    if (lowered)
        return;
    lowered = true;
    const int now = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
    ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), std::min(now + 5, 19));
}

} // namespace scorch
