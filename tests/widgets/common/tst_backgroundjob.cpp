// BackgroundJob: results arrive on the owner's thread; the newest start wins (an older run's result is
// dropped even when it finishes last); cancel() reaches the running function; post() delivers in order;
// nothing reaches a destroyed owner; jobs run below the GUI thread's priority; releaseInBackground() frees
// a last owner off the GUI thread. Ordering is forced with latches, never with sleeps.
#include "common/backgroundjob.h"
#include "patience.h"

#include <QTest>
#include <QThread>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <memory>
#include <vector>

using namespace scorch;
using scorch::test::kPatienceMs;

class TestBackgroundJob : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        // newestWins() and nothingReachesADestroyedOwner() hold one pool thread while another runs
        QVERIFY(backgroundPool()->maxThreadCount() >= 4);
    }

    // the jobs run on Scorch's own pool, so that Qt's raster engine, which waits on the GUI thread for fill
    // tasks it puts on the global pool (Qt 6.4), is never queued behind a long job
    void runsOffTheGlobalPool() {
        QObject owner;
        BackgroundJob job(&owner);
        auto release = std::make_shared<std::atomic<bool>>(false); // outlives a failed check
        bool delivered = false;
        job.start(
            [release](JobContext&) {
                while (!release->load())
                    QThread::msleep(1);
                return 0;
            },
            [&](int) { delivered = true; });
        QTRY_COMPARE_WITH_TIMEOUT(backgroundPool()->activeThreadCount(), 1, kPatienceMs);
        // with the global pool down to one thread, a task there still runs while the job holds its thread
        QThreadPool* global = QThreadPool::globalInstance();
        const int globalThreads = global->maxThreadCount();
        global->setMaxThreadCount(1);
        auto ran = std::make_shared<std::atomic<bool>>(false);
        global->start([ran] { *ran = true; });
        const bool ranBeside = QTest::qWaitFor([&] { return ran->load(); }, kPatienceMs);
        *release = true;
        global->setMaxThreadCount(globalThreads);
        QVERIFY(ranBeside);
        QTRY_VERIFY_WITH_TIMEOUT(delivered, kPatienceMs);
    }

    // a job, and the threads it starts, run at a lower priority (a higher nice value) than the GUI thread,
    // so that they do not delay its events
    void runsAtALowerPriority() {
        const auto niceOfThisThread = [] {
            return ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
        };
        const int gui = niceOfThisThread();
        QObject owner;
        BackgroundJob job(&owner);
        std::pair<int, int> nice{-100, -100}; // (the job's thread, a thread the job started)
        job.start(
            [&](JobContext&) {
                const int own = niceOfThisThread();
                return std::pair{own, std::async(std::launch::async, niceOfThisThread).get()};
            },
            [&](std::pair<int, int> n) { nice = n; });
        QTRY_VERIFY_WITH_TIMEOUT(nice.first != -100, kPatienceMs);
        QCOMPARE(nice.first, std::min(gui + 5, 19));
        QCOMPARE(nice.second, nice.first);
        QCOMPARE(niceOfThisThread(), gui);
    }

    // the last owner of a large result is dropped on a pool thread; a result still held elsewhere is not
    void releasesInTheBackground() {
        auto freedOn = std::make_shared<std::atomic<QThread*>>(nullptr);
        std::shared_ptr<int> last(new int(1), [freedOn](int* p) {
            delete p;
            *freedOn = QThread::currentThread();
        });
        std::shared_ptr<int> shared(new int(2), [freedOn](int* p) {
            delete p;
            *freedOn = QThread::currentThread();
        });
        std::shared_ptr<int> other = shared;
        releaseInBackground(std::move(shared));
        QVERIFY(!shared);
        QCOMPARE(*other, 2); // still held: not freed
        QCOMPARE(freedOn->load(), nullptr);
        releaseInBackground(std::move(last));
        QVERIFY(!last);
        QTRY_VERIFY_WITH_TIMEOUT(freedOn->load() != nullptr, kPatienceMs);
        QVERIFY(freedOn->load() != QThread::currentThread());
    }

    void deliversOnTheOwnersThread() {
        QObject owner;
        BackgroundJob job(&owner);
        QThread* worker = nullptr;
        QThread* deliveredOn = nullptr;
        int result = 0;
        job.start(
            [&worker](const JobContext&) {
                worker = QThread::currentThread();
                return 42;
            },
            [&](int r) {
                deliveredOn = QThread::currentThread();
                result = r;
            });
        QTRY_COMPARE_WITH_TIMEOUT(result, 42, 10000);
        QCOMPARE(deliveredOn, QThread::currentThread());
        QVERIFY(worker != QThread::currentThread());
        QVERIFY(!job.isRunning());
    }

    void newestWins() {
        QObject owner;
        BackgroundJob job(&owner);
        std::promise<void> release;
        std::shared_future<void> released = release.get_future().share();
        auto firstReturned = std::make_shared<std::atomic<bool>>(false);
        auto firstSawCancel = std::make_shared<std::atomic<bool>>(false);
        std::vector<int> delivered;
        job.start(
            [released, firstReturned, firstSawCancel](const JobContext& context) {
                released.wait(); // still running when the second job starts
                *firstSawCancel = context.cancelled();
                *firstReturned = true;
                return 1;
            },
            [&delivered](int r) { delivered.push_back(r); });
        job.start([](const JobContext&) { return 2; }, [&delivered](int r) { delivered.push_back(r); });
        QTRY_COMPARE_WITH_TIMEOUT(delivered, std::vector<int>{2}, 10000);
        release.set_value(); // the first finishes last ...
        QTRY_VERIFY_WITH_TIMEOUT(firstReturned->load(), 10000);
        QCoreApplication::sendPostedEvents();
        QCOMPARE(delivered, std::vector<int>{2}); // ... and its result is dropped
        QVERIFY(firstSawCancel->load());          // it was told to stop
    }

    /// post() runs on the owner's thread in the order posted; cancel() stops the function, which still
    /// delivers what it returns.
    void cancelAndProgress() {
        QObject owner;
        BackgroundJob job(&owner);
        auto progress = std::make_shared<std::vector<int>>();
        QThread* progressOn = nullptr;
        bool cancelled = false;
        job.start(
            [progress, &progressOn](const JobContext& context) {
                for (int i = 1; i <= 3; ++i)
                    context.post([progress, &progressOn, i] {
                        progressOn = QThread::currentThread();
                        progress->push_back(i);
                    });
                while (!context.cancelled())
                    QThread::yieldCurrentThread();
                return true;
            },
            [&cancelled](bool wasCancelled) { cancelled = wasCancelled; });
        QTRY_COMPARE_WITH_TIMEOUT(progress->size(), std::size_t{3}, 10000);
        QCOMPARE(*progress, (std::vector<int>{1, 2, 3}));
        QCOMPARE(progressOn, QThread::currentThread());
        QVERIFY(job.isRunning());
        job.cancel();
        QTRY_VERIFY_WITH_TIMEOUT(cancelled, 10000);
    }

    void nothingReachesADestroyedOwner() {
        std::promise<void> release;
        std::shared_future<void> released = release.get_future().share();
        auto returned = std::make_shared<std::atomic<bool>>(false);
        auto delivered = std::make_shared<std::atomic<int>>(0);
        {
            QObject owner;
            BackgroundJob job(&owner);
            job.start(
                [released, returned](const JobContext& context) {
                    released.wait();
                    context.post([] {});
                    *returned = true;
                    return 0;
                },
                [delivered](int) { ++*delivered; });
        } // owner and job gone while the function still runs
        release.set_value();
        QTRY_VERIFY_WITH_TIMEOUT(returned->load(), 10000);
        QCoreApplication::sendPostedEvents();
        QCOMPARE(delivered->load(), 0);
    }
};

QTEST_GUILESS_MAIN(TestBackgroundJob)
#include "tst_backgroundjob.moc"
