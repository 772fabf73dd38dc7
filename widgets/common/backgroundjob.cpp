#include "common/backgroundjob.h"

#include <QThread>

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

} // namespace scorch
