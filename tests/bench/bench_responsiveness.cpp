// bench_responsiveness: how the GUI keeps up while work runs elsewhere. Figures the tests do not assert
// (they check behaviour only, see tst_mainwindow and tst_recorddialog):
//
//   QT_QPA_PLATFORM=offscreen build/tests/bench/bench_responsiveness [--megabytes N] [--file PROFILE]
//                                                                    [--record SECONDS] [--target PROGRAM]
//
// Import: opens a generated folded file of N MB (default 50), or PROFILE, in the main window and prints the
// import time, the progress updates and the longest gap between two turns of the GUI event loop (a 5 ms
// timer) from opening to the tables being filled. Typically ~30 ms for 50 MB on an idle machine.
// Recording: records PROGRAM (default: the sampler test program) through File > Record… for SECONDS
// (default 5; 0 skips it) and prints when the live flame graph was updated and the longest interval
// between two updates (the dialog aims at about one a second).
#include "flame/flamegraphpanel.h"
#include "largefolded.h"
#include "mainwindow.h"
#include "profiletab.h"
#include "record/recorddialog.h"
#include "tables/calltreetables.h"

#include "scorch/profile.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QLineEdit>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace scorch;

namespace {

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

int benchImport(const QString& path) {
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
    return 0;
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

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    int megabytes = 50;
    QString file;
    double recordSeconds = 5;
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
        else {
            std::fprintf(stderr,
                         "usage: %s [--megabytes N] [--file PROFILE] [--record SECONDS] [--target PROGRAM]\n",
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
    int status = benchImport(file);
    if (recordSeconds > 0)
        status |= benchRecording(target, recordSeconds, dir.filePath(QStringLiteral("recordings")));
    return status;
}
