// bench_paint: how long FlameGraphView takes to paint a ~1M-node call tree at 1920x1080.
//
//   QT_QPA_PLATFORM=offscreen build/tests/bench/bench_paint [--runs N] [--nodes N] [--file PROFILE]
//                                                           [--save DIR] [--icicle]
//
// Prints the median and 90th percentile of a full repaint (whole profile shown) and of a zoom-animation
// frame (intermediate x-ranges between the root and a deep frame, as the 150 ms zoom animation paints
// them). --save writes the first full and a zoomed frame as PNG for a visual check; --file paints a real
// profile instead of the synthetic one. Targets: <= 8 ms full repaint, <= 16 ms animation frame.
#include "flame/flamegraphview.h"

#include "scorch/builder.h"
#include "scorch/import.h"
#include "synthetic.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

using namespace scorch;
using scorch::bench::syntheticProfile;

namespace {

struct Stats {
    double median, p90, max;
};
Stats stats(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    auto at = [&](double q) {
        return v[std::min(v.size() - 1, static_cast<std::size_t>(q * v.size()))];
    };
    return {at(0.5), at(0.9), v.back()};
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    int runs = 50;
    std::size_t nodes = 1000000;
    std::string file, saveDir;
    bool icicle = false;
    double fixedT = -1; // --at T: every animation frame at the same position (for profiling)
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--runs" && i + 1 < argc)
            runs = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--nodes" && i + 1 < argc)
            nodes = static_cast<std::size_t>(std::atoll(argv[++i]));
        else if (arg == "--file" && i + 1 < argc)
            file = argv[++i];
        else if (arg == "--save" && i + 1 < argc)
            saveDir = argv[++i];
        else if (arg == "--at" && i + 1 < argc)
            fixedT = std::atof(argv[++i]);
        else if (arg == "--icicle")
            icicle = true;
        else {
            std::fprintf(stderr,
                         "usage: %s [--runs N] [--nodes N] [--file PROFILE] [--save DIR] [--icicle]\n",
                         argv[0]);
            return 2;
        }
    }

    QElapsedTimer timer;
    timer.start();
    auto profile =
        std::make_shared<const Profile>(file.empty() ? syntheticProfile(nodes) : importProfile(file));
    const auto data = ChartData::fromProfile(profile);
    const double buildMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;

    FlameGraphView view;
    view.resize(1920, 1080);
    view.setAnimationDuration(0);
    if (icicle)
        view.setOrientation(FlameGraphView::Orientation::Icicle);
    timer.restart();
    view.setData(data);
    const double layoutMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;

    QImage image(1920, 1080, QImage::Format_ARGB32_Premultiplied);
    // Thread CPU time next to wall time: the figures stay meaningful on a loaded machine.
    auto cpuNow = [] {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
    };
    std::vector<double>* cpuLog = nullptr;
    auto paintOnce = [&] {
        QElapsedTimer t;
        const double c0 = cpuNow();
        t.start();
        view.render(&image); // the widget's paintEvent, as on screen
        const double wall = static_cast<double>(t.nsecsElapsed()) / 1e6;
        if (cpuLog)
            cpuLog->push_back(cpuNow() - c0);
        return wall;
    };

    paintOnce(); // warm the colour and text caches, as the first paint on screen does
    if (!saveDir.empty())
        image.save(QString::fromStdString(saveDir + "/flame-full.png"));
    std::vector<double> full, fullCpu, animCpu;
    cpuLog = &fullCpu;
    for (int i = 0; i < runs; ++i)
        full.push_back(paintOnce());
    cpuLog = &animCpu;

    // A zoom target: follow the heaviest child for 12 levels.
    const CallTree& tree = data->tree;
    NodeId target = kRootNode;
    for (int level = 0; level < 12; ++level) {
        const auto kids = tree.childrenByCost(target, 0);
        if (kids.empty())
            break;
        target = kids.front();
    }
    const auto& layout = view.layout();
    const double s1 = static_cast<double>(layout.offset(target)),
                 e1 = s1 + static_cast<double>(layout.width(target));
    const double e0 = static_cast<double>(layout.totalWidth());
    std::vector<double> anim;
    constexpr int kFrames = 10; // ~150 ms at 60 Hz
    for (int i = 0; static_cast<int>(anim.size()) < runs; ++i) {
        double t = 1.0 - std::pow(1.0 - static_cast<double>(i % kFrames + 1) / kFrames, 3); // OutCubic
        if (fixedT >= 0)
            t = fixedT;
        view.setVisibleRange(s1 * t, e0 + (e1 - e0) * t);
        anim.push_back(paintOnce());
        if (std::getenv("BENCH_VERBOSE")) { // per-frame figures: BENCH_VERBOSE=1
            QElapsedTimer w;
            w.start();
            const auto blocks = layout.blocks({view.visibleStart(), view.visibleEnd(), 1920});
            const double walkMs = static_cast<double>(w.nsecsElapsed()) / 1e6;
            const auto tiny =
                std::count_if(blocks.begin(), blocks.end(), [](const FlameBlock& b) { return b.tiny; });
            std::printf("frame %2d t=%.3f: %6.2f ms, %zu blocks (%td tiny), layout walk %.2f ms\n", i, t,
                        anim.back(), blocks.size(), tiny, walkMs);
        }
        if (!saveDir.empty() && i == kFrames / 2)
            image.save(QString::fromStdString(saveDir + "/flame-zooming.png"));
    }
    cpuLog = nullptr;
    view.zoomTo(target);
    if (!saveDir.empty()) {
        paintOnce();
        image.save(QString::fromStdString(saveDir + "/flame-zoomed.png"));
    }

    const Stats f = stats(full), a = stats(anim), fc = stats(fullCpu), ac = stats(animCpu);
    std::printf("profile: %s, %zu nodes, max depth %u, built in %.0f ms, layout %.1f ms\n",
                file.empty() ? "synthetic" : file.c_str(), tree.size(), tree.maxDepth(), buildMs, layoutMs);
    std::printf("full repaint 1920x1080 (N=%d, target <= 8 ms):\n", runs);
    std::printf("  wall median %6.2f ms  p90 %6.2f ms  max %6.2f ms\n", f.median, f.p90, f.max);
    std::printf("  cpu  median %6.2f ms  p90 %6.2f ms  max %6.2f ms\n", fc.median, fc.p90, fc.max);
    std::printf("zoom animation frame (N=%d, target <= 16 ms):\n", runs);
    std::printf("  wall median %6.2f ms  p90 %6.2f ms  max %6.2f ms\n", a.median, a.p90, a.max);
    std::printf("  cpu  median %6.2f ms  p90 %6.2f ms  max %6.2f ms\n", ac.median, ac.p90, ac.max);
    std::printf("reproduce: QT_QPA_PLATFORM=offscreen %s --runs %d --nodes %zu\n", argv[0], runs, nodes);
    return 0;
}
