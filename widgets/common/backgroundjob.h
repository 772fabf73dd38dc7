// BackgroundJob: the one way Scorch runs long work off the GUI thread. start() runs a function on a pool
// thread and delivers its result on the owner's thread; the newest start wins (an older run is cancelled
// and whatever it still delivers is dropped); the function sees a cancel flag and may post progress; once
// the owner is destroyed nothing reaches it. Used by the loader, the profile tab, the flame graph panel and
// the comparison view.
#pragma once

#include "common/heaptrim.h"

#include <QMetaObject>
#include <QObject>
#include <QThreadPool>

#include <atomic>
#include <memory>
#include <mutex>
#include <utility>

namespace scorch {

class BackgroundJob;

/// The pool BackgroundJob runs on: Scorch's own, not QThreadPool::globalInstance(). Qt 6.4's raster paint
/// engine (Debian 12) splits large fills into tasks on the global pool and waits for them on the GUI
/// thread, so long jobs there froze painting until a job finished (a 5 s pause while fp-large loaded). At
/// least four threads, so that table builds run while several files load.
QThreadPool* backgroundPool();
/// Gives the calling thread, and the threads it starts from now on, a lower priority than the GUI thread's
/// (nice +5, once per thread), so that a job beside it does not delay the GUI's events.
void lowerThreadPriority();

/// Drops `data` on a pool thread when this is its last owner: freeing a large profile, chart or table set
/// (hundreds of MB of arrays) took 20 ms and more of the GUI thread when a new one replaced it.
template <typename T>
void releaseInBackground(std::shared_ptr<T>&& data) {
    if (data && data.use_count() == 1)
        backgroundPool()->start([data = std::move(data)]() mutable {
            data.reset();
            trimHeapSoon();
        });
    data.reset();
}

/// What a running job sees: its cancel flag, and a way to run code on the owner's thread.
class JobContext {
public:
    bool cancelled() const { return m_run->cancel.load(std::memory_order_relaxed); }
    /// For APIs that poll a flag themselves (ImportControl::cancel).
    const std::atomic<bool>* cancelFlag() const { return &m_run->cancel; }
    /// Runs `f` on the owner's thread, unless the run has been superseded or the owner is gone by then.
    /// Safe from any thread (also from threads the job itself starts).
    template <typename F>
    void post(F&& f) const {
        postTo(m_run, std::forward<F>(f));
    }

private:
    friend class BackgroundJob;
    struct Run {
        std::atomic<bool> cancel{false};
        std::atomic<bool> finished{false};
        std::mutex mutex;
        QObject* receiver = nullptr; // written on the owner's thread under `mutex`; null = drop everything
    };
    explicit JobContext(std::shared_ptr<Run> run)
        : m_run(std::move(run)) {}
    template <typename F>
    static void postTo(const std::shared_ptr<Run>& run, F&& f) {
        std::lock_guard lock(run->mutex);
        if (run->receiver)
            QMetaObject::invokeMethod(
                run->receiver,
                [run, f = std::forward<F>(f)]() mutable {
                    if (run->receiver) // not superseded while the call was queued
                        f();
                },
                Qt::QueuedConnection);
    }
    std::shared_ptr<Run> m_run;
};

class BackgroundJob {
public:
    /// Results are delivered on `owner`'s thread; `owner` must outlive this object (make it a member).
    explicit BackgroundJob(QObject* owner)
        : m_owner(owner) {}
    ~BackgroundJob() { drop(); }
    BackgroundJob(const BackgroundJob&) = delete;
    BackgroundJob& operator=(const BackgroundJob&) = delete;

    /// Runs `work(JobContext&)` on a pool thread, then `done(result)` on the owner's thread. A run started
    /// earlier is cancelled and its result dropped.
    template <typename Work, typename Done>
    void start(Work work, Done done) {
        drop();
        auto run = std::make_shared<JobContext::Run>();
        run->receiver = m_owner;
        m_run = run;
        auto task = std::make_shared<std::pair<Work, Done>>(std::move(work), std::move(done));
        backgroundPool()->start([run, task] {
            lowerThreadPriority();
            JobContext context(run);
            auto result = task->first(context);
            run->finished = true;
            JobContext::postTo(
                run, [task, result = std::move(result)]() mutable { task->second(std::move(result)); });
            trimHeapSoon();
        });
    }

    /// Asks the running job to stop (it still delivers what it returns, e.g. "cancelled").
    void cancel() {
        if (m_run)
            m_run->cancel = true;
    }
    /// Cancels the running job and drops whatever it still delivers.
    void drop() {
        if (!m_run)
            return;
        m_run->cancel = true;
        std::lock_guard lock(m_run->mutex);
        m_run->receiver = nullptr;
    }
    /// A job was started and its function has not returned yet.
    bool isRunning() const { return m_run && !m_run->finished; }

private:
    QObject* m_owner;
    std::shared_ptr<JobContext::Run> m_run;
};

} // namespace scorch
