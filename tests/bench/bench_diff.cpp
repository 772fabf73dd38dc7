// bench_diff: how long building the comparison of two large profiles takes, and how long the differential
// flame graph takes to repaint.
//
//   QT_QPA_PLATFORM=offscreen build/tests/bench/bench_diff [--runs N] [--nodes N]
//                                                          [--before FILE --after FILE] [--save DIR]
//
// Without files: two synthetic ~1M-node trees (the same generator as bench_paint; "after" moves 10% of the
// samples to other stacks and scales a third of the costs, so the trees overlap mostly, as two recordings of
// one program do). With --before/--after: two real profiles (imported first, not timed). Prints the median
// time of diffProfiles() (the merged before/after/delta tree), of the differential chart's layout tree and of
// the function summary, then the full-repaint time of the differential chart at 1920x1080.
// Targets: diff of two 1M-node trees < 1 s; repaint within the flame graph window's 8 ms.
#include "flame/flamegraphview.h"

#include "benchutil.h"
#include "scorch/builder.h"
#include "scorch/diff.h"
#include "scorch/import.h"
#include "synthetic.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

using namespace scorch;
using scorch::bench::median;
using scorch::bench::syntheticProfile;

namespace {

double msSince(const QElapsedTimer& t) {
    return static_cast<double>(t.nsecsElapsed()) / 1e6;
}

/// CPU time of this thread in ms: stays meaningful on a loaded machine, next to the wall time.
double cpuNow() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    int runs = 5;
    std::size_t nodes = 1000000;
    std::string beforeFile, afterFile, saveDir;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--runs" && i + 1 < argc)
            runs = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--nodes" && i + 1 < argc)
            nodes = static_cast<std::size_t>(std::atoll(argv[++i]));
        else if (arg == "--before" && i + 1 < argc)
            beforeFile = argv[++i];
        else if (arg == "--after" && i + 1 < argc)
            afterFile = argv[++i];
        else if (arg == "--save" && i + 1 < argc)
            saveDir = argv[++i];
        else {
            std::fprintf(stderr,
                         "usage: %s [--runs N] [--nodes N] [--before FILE --after FILE] [--save DIR]\n",
                         argv[0]);
            return 2;
        }
    }
    if (beforeFile.empty() != afterFile.empty()) {
        std::fprintf(stderr, "%s: --before and --after go together\n", argv[0]);
        return 2;
    }

    QElapsedTimer timer;
    timer.start();
    const bool real = !beforeFile.empty();
    const Profile before = real ? importProfile(beforeFile) : syntheticProfile(nodes, 0);
    const Profile after = real ? importProfile(afterFile) : syntheticProfile(nodes, 1);
    std::printf("inputs: %s: before %zu nodes, after %zu nodes (made in %.0f ms, not timed below)\n",
                real ? (beforeFile + " vs " + afterFile).c_str() : "synthetic", before.tree.size(),
                after.tree.size(), msSince(timer));

    std::vector<double> diffMs, diffCpu, layoutMs, summaryMs;
    std::shared_ptr<const Profile> diff;
    for (int r = 0; r < runs; ++r) {
        timer.restart();
        const double c0 = cpuNow();
        auto d = std::make_shared<const Profile>(diffProfiles(before, 0, after, 0));
        diffMs.push_back(msSince(timer));
        diffCpu.push_back(cpuNow() - c0);
        timer.restart();
        const CallTree layout = diffLayoutTree(d->tree, {});
        layoutMs.push_back(msSince(timer));
        timer.restart();
        const auto functions = functionDeltas(*d);
        summaryMs.push_back(msSince(timer));
        if (functions.empty() && layout.size() == 0)
            std::printf("(empty)\n");
        diff = std::move(d);
    }
    std::size_t added = 0, removed = 0;
    for (NodeId n = 1; n < diff->tree.size(); ++n) {
        const DiffStatus s = diffStatus(diff->tree, n);
        added += s == DiffStatus::Added;
        removed += s == DiffStatus::Removed;
    }
    std::printf("diff tree: %zu nodes (%zu added, %zu removed), delta total %lld\n", diff->tree.size(), added,
                removed, static_cast<long long>(diff->tree.grandTotal(kDelta)));
    std::printf("build the diff (N=%d, target < 1000 ms): median %8.1f ms wall, %8.1f ms cpu\n", runs,
                median(diffMs), median(diffCpu));
    std::printf("differential layout tree:               median %8.1f ms\n", median(layoutMs));
    std::printf("function summary:                       median %8.1f ms\n", median(summaryMs));

    auto data = std::make_shared<ChartData>(diff, diffLayoutTree(diff->tree, {}));
    data->costType = kWidth;
    FlameGraphView view;
    view.resize(1920, 1080);
    view.setAnimationDuration(0);
    view.setColorScheme(FlameGraphView::ColorScheme::Differential);
    timer.restart();
    view.setData(data);
    const double setDataMs = msSince(timer);
    QImage image(1920, 1080, QImage::Format_ARGB32_Premultiplied);
    timer.restart();
    view.render(&image); // first paint: the palette scans the tree for the largest delta
    const double firstMs = msSince(timer);
    if (!saveDir.empty())
        image.save(QString::fromStdString(saveDir + "/diff-full.png"));
    std::vector<double> paint, paintCpu;
    for (int i = 0; i < std::max(runs, 20); ++i) {
        timer.restart();
        const double c0 = cpuNow();
        view.render(&image);
        paint.push_back(msSince(timer));
        paintCpu.push_back(cpuNow() - c0);
    }
    std::printf("differential chart 1920x1080: setData %.1f ms, first paint %.1f ms\n", setDataMs, firstMs);
    std::printf("full repaint (N=%zu, target <= 8 ms): median %6.2f ms wall (max %6.2f), %6.2f ms cpu\n",
                paint.size(), median(paint), *std::max_element(paint.begin(), paint.end()), median(paintCpu));
    std::printf("reproduce: QT_QPA_PLATFORM=offscreen %s --runs %d %s\n", argv[0], runs,
                real ? ("--before " + beforeFile + " --after " + afterFile).c_str()
                     : ("--nodes " + std::to_string(nodes)).c_str());
    return 0;
}
