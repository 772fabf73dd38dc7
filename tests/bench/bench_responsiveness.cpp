// bench_responsiveness: how the GUI keeps up while work runs elsewhere. Figures the tests do not assert
// (they check behaviour only, see tst_mainwindow and tst_recorddialog):
//
//   QT_QPA_PLATFORM=offscreen build/tests/bench/bench_responsiveness [--megabytes N] [--file PROFILE]
//                                       [--record SECONDS] [--target PROGRAM] [--pause SECONDS]
//
// Import: opens a generated folded file of N MB (default 50), or PROFILE, in the main window and prints the
// import time, the progress updates and the longest gap between two turns of the GUI event loop (a 5 ms
// timer) from opening to the tables being filled. Typically ~30 ms for 50 MB on an idle machine. Then,
// SECONDS (default 5) later, the process's resident memory (after the heap trim 3 s after the last job) and
// the memory kept for slices (prepared once the profile is shown). Then, for a profile with per-sample
// times, a drag over the timeline: 40 selections 25 ms apart, from a quarter of the recording to three
// quarters, each re-aggregated off the GUI thread (the newest wins), printing how many were shown while
// dragging, when the first was, how long after the last one its flame graph and tables were shown, and the
// event loop's gaps; the resident memory SECONDS after it, then how long one more range takes to be shown,
// its flame graph and with its tables. With SCORCH_SLOW_EVENTS set, every event that took the GUI thread over
// 16 ms is printed; with SCORCH_NO_HEAP_TRIM set, the heap is never trimmed; with SCORCH_NO_SLICE_PREPARE
// set, the slices' memory is not prepared (A/B). Recording: records PROGRAM (default: the sampler test
// program) through File > Record… for SECONDS (default 5; 0 skips it) and prints when the live flame graph
// was updated and the longest interval between two updates (the dialog aims at about one a second).
#include "flame/flamegraphpanel.h"
#include "largefolded.h"
#include "mainwindow.h"
#include "profiletab.h"
#include "record/recorddialog.h"
#include "tables/calltreetables.h"
#include "timeline/timelinepanel.h"
#include "timeline/timelineview.h"

#include "scorch/procstatus.h"
#include "scorch/profile.h"
#include "scorch/samples.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QLineEdit>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace scorch;

namespace {

/// "VmRSS x MB, RssAnon y MB, LazyFree z MB" of /proc/self/status and smaps_rollup (LazyFree: pages given
/// back lazily, SliceMemory::release(), that the kernel has not taken yet).
std::string residentMemory() {
    const std::vector<long long> status = procKilobytes("/proc/self/status", {"VmRSS", "RssAnon"});
    const long long lazy = procKilobytes("/proc/self/smaps_rollup", "LazyFree");
    std::string out;
    for (const auto& [name, kb] : {std::pair{"VmRSS", status[0]}, {"RssAnon", status[1]}, {"LazyFree", lazy}})
        if (kb >= 0)
            out += (out.empty() ? "" : ", ") + std::string(name) + " " + std::to_string(kb / 1024) + " MB";
    return out.empty() ? "RSS unknown" : out;
}

/// Runs the event loop until `done` holds or `ms` passed; returns whether it holds.
template <typename F>
bool spinUntil(F done, int ms) {
    QElapsedTimer t;
    t.start();
    while (!done() && t.elapsed() < ms) {
        QEventLoop loop;
        QTimer::singleShot(1, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return done();
}

int benchImport(const QString& path, double pauseSeconds) {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QElapsedTimer clock;
    clock.start();
    qint64 last = 0, worst = 0, worstAt = 0, loadedAt = -1;
    QTimer tick;
    QObject::connect(&tick, &QTimer::timeout, [&] {
        const qint64 gap = clock.elapsed() - last;
        if (gap > worst) {
            worst = gap;
            worstAt = clock.elapsed();
        }
        last = clock.elapsed();
    });
    tick.start(5);
    ProfileTab* tab = w.openFile(path);
    int updates = 0;
    QObject::connect(tab, &ProfileTab::progressChanged, [&updates] { ++updates; });
    QObject::connect(tab, &ProfileTab::stateChanged, [&] { loadedAt = clock.elapsed(); });
    const bool ok = spinUntil(
        [&] {
            return tab->state() != ProfileTab::State::Loading && tab->tables()->tableData() &&
                   tab->tables()->tableData()->chart == tab->panel()->data();
        },
        600000);
    spinUntil([] { return false; }, 100);
    tick.stop();
    if (!ok || tab->state() != ProfileTab::State::Loaded) {
        std::fprintf(stderr, "%s: did not load: %s\n", qPrintable(path), qPrintable(tab->messageText()));
        return 1;
    }
    std::printf("import %s: loaded after %lld ms, tables after %lld ms, %d progress updates, %zu nodes\n"
                "  longest event loop gap %lld ms (ending at %lld ms)\n",
                qPrintable(path), static_cast<long long>(loadedAt), static_cast<long long>(clock.elapsed()),
                updates, tab->profile()->tree.size(), static_cast<long long>(worst),
                static_cast<long long>(worstAt));
    spinUntil([] { return false; }, static_cast<int>(pauseSeconds * 1000));
    std::printf("  %.1f s later (the heap trimmed after 3 s idle): %s; slice memory kept %.0f MB\n",
                pauseSeconds, residentMemory().c_str(),
                static_cast<double>(tab->sliceMemory()->bytes()) / 1e6);
    std::fflush(stdout); // (before the drag's slow events on stderr)
    if (!tab->profile()->samples)
        return 0;

    // Dragging a selection on the timeline: from a quarter of the recording to three quarters, one mouse move
    // every `step` ms (what a drag delivers), then until the last range's flame graph and tables are shown.
    const std::shared_ptr<const Profile> profile = tab->profile();
    const int64_t length = profile->samples->lastTime() + 1;
    constexpr int kMoves = 40, kStep = 25;
    const auto rangeAt = [&](int move) {
        return TimeRange{length / 4, length / 4 + length / 2 * move / kMoves};
    };
    SliceRequest whole;
    whole.range = rangeAt(kMoves);
    const uint64_t expected = sliceSamples(*profile, whole)->samples;
    TimelineView* timeline = tab->timeline()->view();
    std::vector<qint64> gaps;
    QTimer dragTick;
    qint64 previous = 0;
    QElapsedTimer drag;
    QObject::connect(&dragTick, &QTimer::timeout, [&] {
        gaps.push_back(drag.elapsed() - previous);
        previous = drag.elapsed();
    });
    drag.start();
    dragTick.start(5);
    int shown = 0;          // flame graphs of a range shown while dragging
    qint64 firstShown = -1; // when the first was
    std::shared_ptr<const ChartData> seen = tab->panel()->data();
    for (int move = 1; move <= kMoves; ++move) {
        timeline->setSelection(rangeAt(move));
        const qint64 next = drag.elapsed() + kStep;
        while (drag.elapsed() < next) { // (in 1 ms steps until the first range is shown)
            spinUntil([] { return false; }, firstShown < 0 ? 1 : static_cast<int>(next - drag.elapsed()));
            if (firstShown < 0 && tab->panel()->data() != seen)
                firstShown = drag.elapsed();
        }
        if (tab->panel()->data() != seen) {
            seen = tab->panel()->data();
            ++shown;
        }
    }
    const qint64 released = drag.elapsed();
    // waits until the flame graph and tables of a range of `samples` samples are shown
    const auto rangeShown = [tab](uint64_t samples) {
        return spinUntil(
            [&] {
                const auto data = tab->panel()->data();
                return data && data->profile->meta.samples == samples && tab->tables()->tableData() &&
                       tab->tables()->tableData()->chart == data;
            },
            600000);
    };
    const bool done = rangeShown(expected);
    const qint64 finished = drag.elapsed();
    spinUntil([] { return false; }, 100);
    dragTick.stop();
    std::sort(gaps.begin(), gaps.end());
    const auto at = [&](double q) {
        return gaps.empty() ? 0 : gaps[static_cast<std::size_t>(q * (gaps.size() - 1))];
    };
    std::printf(
        "drag over the timeline: %d moves %d ms apart, %d flame graphs of a range shown while dragging, the "
        "first %lld ms after the first move;%s last range (%llu samples) shown with its tables %lld ms after "
        "the last move\n"
        "  event loop gaps: median %lld ms, p90 %lld ms, p99 %lld ms, longest %lld ms (%zu gaps)\n",
        kMoves, kStep, shown, static_cast<long long>(firstShown), done ? "" : " NOT DONE;",
        static_cast<unsigned long long>(expected), static_cast<long long>(finished - released),
        static_cast<long long>(at(0.5)), static_cast<long long>(at(0.9)), static_cast<long long>(at(0.99)),
        static_cast<long long>(gaps.empty() ? 0 : gaps.back()), gaps.size());
    if (!done)
        return 1;

    // After a pause (the slice memory given back lazily and the heap trimmed, both 3 s after the last job):
    // one range, the middle half shifted by an eighth, until its flame graph and tables are shown.
    spinUntil([] { return false; }, static_cast<int>(pauseSeconds * 1000));
    std::printf("  %.1f s after the drag: %s\n", pauseSeconds, residentMemory().c_str());
    whole.range = TimeRange{length / 8, length / 8 + length / 2};
    const uint64_t later = sliceSamples(*profile, whole)->samples;
    spinUntil([] { return false; }, 200); // (that slice's memory freed)
    QElapsedTimer clock2;
    clock2.start();
    seen = tab->panel()->data();
    timeline->setSelection(whole.range);
    spinUntil([&] { return tab->panel()->data() != seen; }, 600000);
    const qint64 chartShown = clock2.elapsed();
    const bool shownLater = rangeShown(later);
    std::printf("one range after the pause (%llu samples): its flame graph shown after %lld ms, with its "
                "tables after %lld ms; %s\n",
                static_cast<unsigned long long>(later), static_cast<long long>(chartShown),
                static_cast<long long>(clock2.elapsed()), residentMemory().c_str());
    return shownLater ? 0 : 1;
}

int benchRecording(const QString& program, double seconds, const QString& dir) {
    MainWindow window;
    RecordDialog dialog(&window);
    dialog.setRecordingDir(dir);
    dialog.targetTabs()->setCurrentIndex(1);
    dialog.commandEdit()->setText(program);
    dialog.argumentsEdit()->setText(QString::number(seconds));
    dialog.show();
    QElapsedTimer clock;
    std::vector<std::pair<qint64, quint64>> updates; // ms, samples
    QObject::connect(&dialog, &RecordDialog::liveUpdated,
                     [&](quint64 samples) { updates.emplace_back(clock.elapsed(), samples); });
    bool finished = false;
    QObject::connect(&dialog, &RecordDialog::recordingFinished, [&] { finished = true; });
    QObject::connect(&dialog, &RecordDialog::recordingFailed, [&] { finished = true; });
    clock.start();
    const QString error = dialog.start(false);
    if (!error.isEmpty()) {
        std::fprintf(stderr, "recording: %s\n", qPrintable(error));
        return 1;
    }
    spinUntil([&] { return finished; }, static_cast<int>(seconds * 1000) + 600000);
    std::printf("recording %s for %g s: %zu live updates\n", qPrintable(program), seconds, updates.size());
    qint64 longest = 0;
    for (std::size_t i = 0; i < updates.size(); ++i) {
        std::printf("  %6lld ms  %8llu samples\n", static_cast<long long>(updates[i].first),
                    static_cast<unsigned long long>(updates[i].second));
        if (i > 0)
            longest = std::max(longest, updates[i].first - updates[i - 1].first);
    }
    std::printf("  first update after %lld ms, longest interval between updates %lld ms\n",
                static_cast<long long>(updates.empty() ? -1 : updates.front().first),
                static_cast<long long>(longest));
    return 0;
}

} // namespace

/// Times each event delivered from the event loop (outermost notify() calls) when SCORCH_SLOW_EVENTS is
/// set: prints those over 16 ms with their receiver and event type.
class TimedApplication : public QApplication {
public:
    using QApplication::QApplication;
    bool notify(QObject* receiver, QEvent* event) override {
        if (!m_on || m_depth > 0)
            return QApplication::notify(receiver, event);
        ++m_depth;
        QElapsedTimer t;
        t.start();
        const QEvent::Type type = event->type(); // (the event may be gone after delivery)
        const QByteArray name = receiver->metaObject()->className();
        const bool result = QApplication::notify(receiver, event);
        --m_depth;
        if (t.elapsed() > 16)
            std::fprintf(stderr, "slow event: %lld ms, %s, type %d\n", static_cast<long long>(t.elapsed()),
                         name.constData(), static_cast<int>(type));
        return result;
    }

private:
    bool m_on = std::getenv("SCORCH_SLOW_EVENTS") != nullptr;
    int m_depth = 0;
};

int main(int argc, char** argv) {
    mallopt(M_MMAP_THRESHOLD, 4 << 20); // as the scorch executable's main() does (fixMallocMapThreshold())
    TimedApplication app(argc, argv);
    int megabytes = 50;
    QString file;
    double recordSeconds = 5;
    double pauseSeconds = 5;
    QString target = QStringLiteral(SCORCH_SAMPLER_TARGET);
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--megabytes" && i + 1 < argc)
            megabytes = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--file" && i + 1 < argc)
            file = QString::fromLocal8Bit(argv[++i]);
        else if (arg == "--record" && i + 1 < argc)
            recordSeconds = std::atof(argv[++i]);
        else if (arg == "--target" && i + 1 < argc)
            target = QString::fromLocal8Bit(argv[++i]);
        else if (arg == "--pause" && i + 1 < argc)
            pauseSeconds = std::max(0.0, std::atof(argv[++i]));
        else {
            std::fprintf(stderr,
                         "usage: %s [--megabytes N] [--file PROFILE] [--record SECONDS] [--target PROGRAM] "
                         "[--pause SECONDS]\n",
                         argv[0]);
            return 2;
        }
    }
    QTemporaryDir dir;
    if (file.isEmpty()) {
        file = dir.filePath(QStringLiteral("large.folded"));
        if (test::writeLargeFolded(file, megabytes) < 0) {
            std::fprintf(stderr, "cannot write %s\n", qPrintable(file));
            return 1;
        }
    }
    int status = benchImport(file, pauseSeconds);
    if (recordSeconds > 0)
        status |= benchRecording(target, recordSeconds, dir.filePath(QStringLiteral("recordings")));
    return status;
}
