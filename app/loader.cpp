#include "loader.h"

#include "symbolpaths.h"

#include "scorch/import.h"

#include <QFile>
#include <QMetaObject>
#include <QThreadPool>

#include <atomic>
#include <chrono>
#include <mutex>

namespace scorch {

/// State shared by the loader (GUI thread) and the import task (a pool thread). The task posts to
/// `receiver` only under the mutex, and the loader clears it under the same mutex before it dies.
struct ProfileLoader::Job {
    std::atomic<bool> cancel{false};
    std::atomic<bool> running{false};
    std::mutex mutex;
    ProfileLoader* receiver = nullptr;
    std::atomic<int64_t> lastProgressMs{-1000}; // steady clock; progress may come from any importer thread

    template <typename F>
    void post(F&& f) {
        std::lock_guard lock(mutex);
        if (receiver)
            QMetaObject::invokeMethod(receiver, std::forward<F>(f), Qt::QueuedConnection);
    }
};

ProfileLoader::ProfileLoader(QObject* parent)
    : QObject(parent) {}

ProfileLoader::~ProfileLoader() {
    if (!m_job)
        return;
    m_job->cancel = true;
    std::lock_guard lock(m_job->mutex);
    m_job->receiver = nullptr; // the task may still run; whatever it produces is dropped
}

bool ProfileLoader::isRunning() const {
    return m_job && m_job->running;
}

void ProfileLoader::cancel() {
    if (m_job)
        m_job->cancel = true;
}

void ProfileLoader::start(const QString& path) {
    Q_ASSERT(!m_job);
    m_path = path;
    m_job = std::make_shared<Job>();
    m_job->receiver = this;
    m_job->running = true;
    QThreadPool::globalInstance()->start(
        [job = m_job, file = QFile::encodeName(path).toStdString(), options = withSymbolPaths({})] {
            ImportControl control;
            control.cancel = &job->cancel;
            control.progress = [&job](uint64_t done, uint64_t total) {
                // Runs on an importer thread: throttle to ~20 updates per second, then hop to the GUI thread.
                const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count();
                int64_t last = job->lastProgressMs.load();
                if (now - last < 50 || !job->lastProgressMs.compare_exchange_strong(last, now))
                    return;
                job->post([job, done, total] { // runs on the GUI thread, where `receiver` is alive
                    Q_EMIT job->receiver->progress(static_cast<qint64>(done), static_cast<qint64>(total));
                });
            };
            control.partial = [&job](Profile&& snapshot) {
                auto shared = std::make_shared<const Profile>(std::move(snapshot));
                job->post([job, shared] { Q_EMIT job->receiver->partial(shared); });
            };
            std::shared_ptr<const Profile> profile;
            QString error;
            bool wasCancelled = false;
            try {
                profile = std::make_shared<const Profile>(importProfile(file, options, control));
            } catch (const ImportCancelled&) {
                wasCancelled = true;
            } catch (const ImportError& e) {
                error = QString::fromUtf8(e.what());
            } catch (const std::bad_alloc&) {
                error = QString::fromStdString(file) + QStringLiteral(": out of memory");
            } catch (const std::exception& e) {
                error = QString::fromStdString(file) + QStringLiteral(": ") + QString::fromUtf8(e.what());
            }
            if (job->cancel)
                wasCancelled = true; // a result that arrives after Cancel is dropped as well
            job->running = false;
            job->post([job, profile = std::move(profile), error, wasCancelled]() mutable {
                job->receiver->finish(std::move(profile), error, wasCancelled);
            });
        });
}

void ProfileLoader::finish(std::shared_ptr<const Profile> profile, const QString& error, bool wasCancelled) {
    if (wasCancelled)
        Q_EMIT cancelled();
    else if (profile)
        Q_EMIT loaded(std::move(profile));
    else
        Q_EMIT failed(error);
}

} // namespace scorch
