// RawProfileBuilder on real code: the test program in tests/native (see tst_symbolizer.cpp). Raw samples are
// aggregated, symbolized once per unique address and turned into a call tree with inline frames, per-line
// costs and warnings for modules without symbols.
#include "scorch/builder.h"
#include "scorch/rawprofile.h"
#include "scorch/samples.h"
#include "scorch/warningkind.h"

#include "native/symtest.h"
#include "native/symtest_probe.h"
#include "patience.h"
#include "testutil.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

using namespace scorch;
using symtest::locate;
using symtest::Location;
using symtest::markerLine;
using symtest::toQ;

namespace {

/// The line-cost entry of (function name, line), or -1.
int lineEntry(const Profile& p, std::string_view function, uint32_t line) {
    for (std::size_t i = 0; i < p.lineCosts.size(); ++i)
        if (p.frameName(p.lineCosts.frame[i]) == function && p.lineCosts.line[i] == line)
            return static_cast<int>(i);
    return -1;
}

/// Every node as "a;b;c" -> (self, total) of cost type 0, and every line entry as "function file:line" ->
/// (self, total): what two profiles must agree on.
/// Every node by its path and every line entry, with their self and total costs of the first type; the line
/// entries only without `tree` (for callers that compare the trees node by node).
std::map<std::string, std::pair<int64_t, int64_t>> contents(const Profile& p, bool tree = true) {
    std::map<std::string, std::pair<int64_t, int64_t>> out;
    for (NodeId n = 1; tree && n < p.tree.size(); ++n) {
        std::string key;
        for (NodeId k : p.tree.path(n))
            key += std::string(p.nodeName(k)) + ';';
        out[key] = {p.tree.self(0, n), p.tree.total(0, n)};
    }
    for (std::size_t i = 0; i < p.lineCosts.size(); ++i) {
        const std::string key = std::string(p.frameName(p.lineCosts.frame[i])) + ' ' +
                                std::string(p.strings.view(p.lineCosts.file[i])) + ':' +
                                std::to_string(p.lineCosts.line[i]);
        out[key] = {p.lineCosts.self[0][i], p.lineCosts.total[0][i]};
    }
    return out;
}

} // namespace

class TestRawProfile : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void rawProfileAggregatesInlinesAndLines() {
        const Location exe =
            locate(symtest::outerFunction(5));                // in inlinedHelper, inlined into outerFunction
        const Location lib = locate(symtest::libFunction(5)); // in libInlined, inlined into libFunction
        const Location twice = locate(reinterpret_cast<const void*>(&symtest::Box<int>::twice));
        const int loaders = test::mappingsOf(exe.path); // (the dynamic loader's)
        Symbolizer sym;
        RawProfileBuilder raw(sym);
        const uint32_t cpu = raw.costType("cpu-clock", CostUnit::Nanoseconds);
        const uint32_t worker = raw.thread("worker", 100, 101);
        const ModuleHandle me = sym.module(exe.path), ml = sym.module(lib.path);
        const ModuleHandle gone = sym.module("/nonexistent/libgone.so");
        // leaf first, as unwinders deliver them; two unresolved callers in the same missing library
        const RawFrame a[] = {
            {me, twice.offset, false}, {me, exe.offset, true}, {gone, 0x10, true}, {gone, 0x20, true}};
        const RawFrame b[] = {
            {ml, lib.offset, true}, {me, exe.offset, true}, {gone, 0x10, true}, {gone, 0x20, true}};
        const CostValue ca{cpu, 1000}, cb{cpu, 500};
        for (int i = 0; i < 3; ++i)
            raw.addSample(worker, a, {&ca, 1}, 1.0 + i);

        const Profile first = raw.snapshot({});
        QCOMPARE(first.meta.samples, uint64_t(3));
        QCOMPARE(first.tree.grandTotal(0), int64_t(3000));
        // a snapshot keeps the modules' libdw sessions (more samples come); the final build closes them
        QVERIFY(test::mappingsOf(exe.path) > loaders);

        for (int i = 0; i < 2; ++i)
            raw.addSample(worker, b, {&cb, 1}, 5.0);
        QCOMPARE(raw.samples(), uint64_t(5));
        const Profile p = raw.finish({});
        // (closed on the symbolizer's background thread: waited for)
        QTRY_COMPARE_WITH_TIMEOUT(test::mappingsOf(exe.path), loaders, test::kPatienceMs);
        QCOMPARE(p.meta.samples, uint64_t(5));
        QCOMPARE(p.meta.timeStart.value_or(-1), 1.0);
        QCOMPARE(p.meta.timeEnd.value_or(-1), 5.0);
        QCOMPARE(p.threads.size(), std::size_t(1));
        QCOMPARE(p.threads[0].samples, uint64_t(5));
        QCOMPARE(p.tree.grandTotal(0), int64_t(4000));

        // one [libgone.so] frame for the two unresolved addresses; the inlined function as its own frame
        const NodeId helper = test::nodeByPath(
            p, p.tree, {"worker", "[libgone.so]", "symtest::outerFunction(int)", "symtest::inlinedHelper"});
        QVERIFY(helper != kRootNode);
        QCOMPARE(p.frames[p.tree.frame(helper)].kind, FrameKind::Inlined);
        QCOMPARE(p.frames[p.tree.frame(p.tree.parent(helper))].kind, FrameKind::Native);
        QCOMPARE(p.frames[p.tree.frame(p.tree.path(helper).at(1))].kind, FrameKind::Unknown);
        QCOMPARE(p.frames[p.tree.frame(p.tree.path(helper).at(0))].kind, FrameKind::Process);
        QCOMPARE(p.tree.total(0, helper), int64_t(4000));
        const NodeId twiceNode =
            test::nodeByPath(p, p.tree,
                             {"worker", "[libgone.so]", "symtest::outerFunction(int)",
                              "symtest::inlinedHelper", "symtest::Box<int>::twice(int)"});
        QVERIFY(twiceNode != kRootNode);
        QCOMPARE(p.tree.self(0, twiceNode), int64_t(3000));
        const NodeId libInlined =
            test::nodeByPath(p, p.tree,
                             {"worker", "[libgone.so]", "symtest::outerFunction(int)",
                              "symtest::inlinedHelper", "symtest::libFunction(int)", "symtest::libInlined"});
        QVERIFY(libInlined != kRootNode);
        QCOMPARE(p.tree.self(0, libInlined), int64_t(1000));
        QCOMPARE(p.strings.view(p.frames[p.tree.frame(libInlined)].module), std::string_view(lib.path));
        QVERIFY(p.strings.view(p.frames[p.tree.frame(libInlined)].file).ends_with("symtest_lib.cpp"));
        QCOMPARE(p.frames[p.tree.frame(libInlined)].line, 0u); // one node per function, lines go to lineCosts

        // per-line costs: the executing line of the leaf (self), the call lines of the callers (total)
        const int capture =
            lineEntry(p, "symtest::inlinedHelper", markerLine("symtest_main.cpp", "call-capture"));
        QVERIFY(capture >= 0);
        QCOMPARE(p.lineCosts.self[0][capture], int64_t(0));
        QCOMPARE(p.lineCosts.total[0][capture], int64_t(4000));
        QVERIFY(p.strings.view(p.lineCosts.file[capture]).ends_with("symtest_main.cpp"));
        const int call =
            lineEntry(p, "symtest::outerFunction(int)", markerLine("symtest_main.cpp", "call-inlined"));
        QVERIFY(call >= 0);
        QCOMPARE(p.lineCosts.total[0][call], int64_t(4000));
        const int libLine =
            lineEntry(p, "symtest::libInlined", markerLine("symtest_lib.cpp", "lib-call-capture"));
        QVERIFY(libLine >= 0);
        QCOMPARE(p.lineCosts.self[0][libLine], int64_t(1000));
        int64_t twiceSelf = 0;
        for (std::size_t i = 0; i < p.lineCosts.size(); ++i)
            if (p.frameName(p.lineCosts.frame[i]) == "symtest::Box<int>::twice(int)")
                twiceSelf += p.lineCosts.self[0][i];
        QCOMPARE(twiceSelf, int64_t(3000));

        // the missing library is a warning with its share of samples
        QCOMPARE(p.meta.warningCount, uint64_t(1));
        QCOMPARE(toQ(p.meta.warnings.at(0).message),
                 QStringLiteral("/nonexistent/libgone.so: not found (100.0% of samples): functions unknown"));

        // each unique address was symbolized once, across both snapshots
        const auto reports = sym.report();
        QCOMPARE(reports.at(me.value).addresses, uint64_t(2));
        QCOMPARE(reports.at(ml.value).addresses, uint64_t(1));
        QCOMPARE(reports.at(gone.value).addresses, uint64_t(2));
    }

    /// A time range and a thread subset have their own line and instruction costs (SliceRequest::details),
    /// hand-counted from the samples: a range plus the rest of the recording give the whole profile's.
    void timeRangeHasItsOwnLinesAndInstructions() {
        const Location exe = locate(symtest::outerFunction(5));
        const Location lib = locate(symtest::libFunction(5));
        const Location twice = locate(reinterpret_cast<const void*>(&symtest::Box<int>::twice));
        Symbolizer sym;
        RawProfileBuilder raw(sym);
        const uint32_t cpu = raw.costType("cpu-clock", CostUnit::Nanoseconds);
        const uint32_t worker = raw.thread("worker", 100, 101), other = raw.thread("other", 100, 102);
        const ModuleHandle me = sym.module(exe.path), ml = sym.module(lib.path);
        const RawFrame a[] = {{me, twice.offset, false}, {me, exe.offset, true}};
        const RawFrame b[] = {{ml, lib.offset, true}, {me, exe.offset, true}};
        const CostValue ca{cpu, 1000}, cb{cpu, 500};
        for (int i = 0; i < 3; ++i) // worker: a at 1, 2 and 3 s, b twice at 5 s; other: a at 4 s
            raw.addSample(worker, a, {&ca, 1}, 1.0 + i);
        raw.addSample(other, a, {&ca, 1}, 4.0);
        for (int i = 0; i < 2; ++i)
            raw.addSample(worker, b, {&cb, 1}, 5.0);
        const Profile p = raw.finish({});
        QVERIFY(hasSliceDetails(p));
        QVERIFY(p.addressCosts.size() > 0);
        // (the line and instruction costs summed on another thread, as for a large slice, and on the same
        // one: the same entries)
        const auto slice = [&](TimeRange range, bool outside, std::vector<uint32_t> threads = {}) {
            SliceRequest r;
            r.range = range;
            r.outside = outside;
            r.threads = std::move(threads);
            r.details = true;
            r.cores = 2;
            Profile two = sliceProfile(p, *sliceSamples(p, r));
            r.cores = 1;
            const Profile one = sliceProfile(p, *sliceSamples(p, r));
            if (one.lineCosts.frame != two.lineCosts.frame || one.lineCosts.line != two.lineCosts.line ||
                one.lineCosts.self != two.lineCosts.self || one.lineCosts.total != two.lineCosts.total ||
                one.addressCosts.offset != two.addressCosts.offset ||
                one.addressCosts.self != two.addressCosts.self)
                two.lineCosts = {}; // fails the comparisons below
            return two;
        };
        const auto lineCost = [](const Profile& q, std::string_view fn, uint32_t line) {
            const int e = lineEntry(q, fn, line);
            return e < 0 ? std::pair<int64_t, int64_t>{-1, -1}
                         : std::pair{q.lineCosts.self[0][e], q.lineCosts.total[0][e]};
        };
        const auto instructionCost = [](const Profile& q, std::string_view fn) {
            int64_t sum = 0;
            for (std::size_t i = 0; i < q.addressCosts.size(); ++i)
                if (q.frameName(q.addressCosts.frame[i]) == fn)
                    sum += q.addressCosts.self[0][i];
            return sum;
        };
        const uint32_t capture = markerLine("symtest_main.cpp", "call-capture");
        const uint32_t libCall = markerLine("symtest_lib.cpp", "lib-call-capture");
        constexpr int64_t kS = 1000000000;

        // [0, 1.5 s) after the first sample (at 1 s): worker's a at 1 and 2 s
        const Profile early = slice({0, kS + kS / 2}, false);
        QCOMPARE(lineCost(early, "symtest::inlinedHelper", capture), (std::pair<int64_t, int64_t>{0, 2000}));
        QCOMPARE(lineEntry(early, "symtest::libInlined", libCall), -1); // b is not in it
        QCOMPARE(instructionCost(early, "symtest::Box<int>::twice(int)"), int64_t(2000));
        QCOMPARE(instructionCost(early, "symtest::libFunction(int)"), int64_t(0));
        // the rest: a at 3 s (worker) and 4 s (other), b twice
        const Profile rest = slice({0, kS + kS / 2}, true);
        QCOMPARE(lineCost(rest, "symtest::inlinedHelper", capture), (std::pair<int64_t, int64_t>{0, 3000}));
        QCOMPARE(lineCost(rest, "symtest::libInlined", libCall), (std::pair<int64_t, int64_t>{1000, 1000}));
        QCOMPARE(instructionCost(rest, "symtest::libFunction(int)"), int64_t(1000));
        // the thread "other" alone: its one sample
        const Profile one = slice({0, INT64_MAX}, false, {other});
        QCOMPARE(lineCost(one, "symtest::inlinedHelper", capture), (std::pair<int64_t, int64_t>{0, 1000}));
        QCOMPARE(instructionCost(one, "symtest::Box<int>::twice(int)"), int64_t(1000));
        // a range and the rest add up to the whole profile, entry by entry
        const Profile all = slice({0, INT64_MAX}, false);
        QCOMPARE(all.lineCosts.frame, p.lineCosts.frame);
        QCOMPARE(all.lineCosts.self, p.lineCosts.self);
        QCOMPARE(all.lineCosts.total, p.lineCosts.total);
        QCOMPARE(all.addressCosts.offset, p.addressCosts.offset);
        QCOMPARE(all.addressCosts.self, p.addressCosts.self);
        for (std::size_t e = 0; e < p.lineCosts.size(); ++e) {
            const std::string_view fn = p.frameName(p.lineCosts.frame[e]);
            const auto x = lineCost(early, fn, p.lineCosts.line[e]),
                       y = lineCost(rest, fn, p.lineCosts.line[e]);
            QCOMPARE(std::max<int64_t>(0, x.second) + std::max<int64_t>(0, y.second),
                     p.lineCosts.total[0][e]);
            QCOMPARE(std::max<int64_t>(0, x.first) + std::max<int64_t>(0, y.first), p.lineCosts.self[0][e]);
        }
        // without details, or on a snapshot (no stacks kept), a slice has no line costs, as before
        SliceRequest plain;
        QVERIFY(sliceProfile(p, *sliceSamples(p, plain)).lineCosts.size() == 0);
    }

    void rawProfileOptionsAndKinds() {
        SymbolizerOptions options;
        options.kallsyms = test::testData(QStringLiteral("native/kallsyms")).toStdString();
        options.jitMapDir = test::testData(QStringLiteral("native")).toStdString();
        Symbolizer sym(options);
        RawProfileOptions rawOptions;
        rawOptions.unresolvedAddresses = true;
        rawOptions.processRoot = false;
        RawProfileBuilder raw(sym, rawOptions);
        const uint32_t n = raw.costType("samples", CostUnit::Samples);
        const uint32_t t = raw.thread("node", 7, 7);
        const ModuleHandle k = sym.kernel(), jit = sym.jitMap(4242),
                           gone = sym.module("/nonexistent/libgone.so");
        const RawFrame stack[] = {{k, 0xffffffff81000150, false},
                                  {k, 0xffffffff81000350, true},
                                  {jit, 0x7f0000002010, true},
                                  {gone, 0x10, true},
                                  {gone, 0x20, true},
                                  {ModuleHandle{}, 0x1234, true}};
        const CostValue one{n, 1};
        raw.addSample(t, stack, {&one, 1});
        const Profile p = raw.finish({});
        const NodeId leaf =
            test::nodeByPath(p, p.tree,
                             {"[unknown]", "[libgone.so+0x20]", "[libgone.so+0x10]", "Interpreter",
                              "[kernel.kallsyms+0xffffffff81000350]", "do_syscall_64"});
        QVERIFY(leaf != kRootNode);
        const auto path = p.tree.path(leaf);
        const FrameKind expected[] = {FrameKind::Unknown, FrameKind::Unknown, FrameKind::Unknown,
                                      FrameKind::Jit,     FrameKind::Kernel,  FrameKind::Kernel};
        QCOMPARE(path.size(), std::size_t(6));
        for (std::size_t i = 0; i < path.size(); ++i)
            QCOMPARE(p.frames[p.tree.frame(path[i])].kind, expected[i]);
        QCOMPARE(p.strings.view(p.frames[p.tree.frame(leaf)].module), std::string_view("[kernel.kallsyms]"));
    }

    void rawProfileSnapshotWhileRecording() {
        // addSample from a recording thread while another thread takes snapshots
        const Location exe = locate(symtest::outerFunction(6));
        Symbolizer sym;
        RawProfileBuilder raw(sym);
        const uint32_t n = raw.costType("samples", CostUnit::Samples);
        const uint32_t t = raw.thread("main", 1, 1);
        const ModuleHandle me = sym.module(exe.path);
        std::atomic<bool> done{false};
        std::thread recorder([&] {
            for (uint64_t i = 0; i < 20000; ++i) {
                const RawFrame stack[] = {{me, exe.offset + (i % 64), true}, {me, exe.offset, true}};
                const CostValue one{n, 1};
                raw.addSample(t, stack, {&one, 1});
            }
            done = true;
        });
        uint64_t last = 0;
        do {
            const Profile p = raw.snapshot({});
            QVERIFY(p.meta.samples >= last);
            QCOMPARE(p.tree.grandTotal(0), static_cast<int64_t>(p.meta.samples));
            last = p.meta.samples;
        } while (!done);
        recorder.join();
        QCOMPARE(raw.finish({}).tree.grandTotal(0), int64_t(20000));

        std::atomic<bool> cancel{true};
        QVERIFY_THROWS_EXCEPTION(ImportCancelled, raw.snapshot({}, &cancel));
    }

    void rawProfileMatchesTreeBuilderAcrossSnapshots_data() {
        QTest::addColumn<bool>("snapshots");
        QTest::addColumn<int>("batchSamples"); // three batches of so many
        QTest::addColumn<int>("minDepth");
        QTest::addColumn<int>("depthRange");
        QTest::addColumn<int>("expect"); // told after ten samples that so many will come (0: not told)
        QTest::addColumn<bool>("wide");  // the expanded frames' references in 4 bytes, not 3
        QTest::newRow("snapshots in between") << true << 300 << 1 << 6 << 0 << false;
        QTest::newRow("one batch (nodes made in final order)") << false << 300 << 1 << 6 << 0 << false;
        // over 20 000 distinct stacks and 200 000 frames: expanded, sorted and listed on two threads
        QTest::newRow("one large batch (on two threads)") << false << 10000 << 10 << 10 << 0 << false;
        QTest::newRow("one large batch, 4-byte references") << false << 10000 << 10 << 10 << 0 << true;
        QTest::newRow("snapshots, 4-byte references") << true << 300 << 1 << 6 << 0 << true;
        // 1.1 M address ids (4.5 MB): the final build gives back the ids of the stacks expanded as it goes
        QTest::newRow("ids given back while expanding") << false << 25000 << 10 << 10 << 0 << false;
        // the builder's arrays made room for the samples to come, fewer or more than come
        QTest::newRow("told too few samples will come") << true << 300 << 1 << 6 << 200 << false;
        QTest::newRow("told more samples will come") << false << 10000 << 10 << 10 << 100000 << false;
    }

    void rawProfileMatchesTreeBuilderAcrossSnapshots() {
        // random stacks over real addresses, added in batches with snapshots in between: the incremental
        // tree must end up equal to a TreeBuilder fed with the symbolized stacks in one go. Without
        // snapshots, the one batch makes its nodes in the final order (taken as they are): the same tree.
        QFETCH(bool, snapshots);
        QFETCH(int, batchSamples);
        QFETCH(int, minDepth);
        QFETCH(int, depthRange);
        QFETCH(int, expect);
        QFETCH(bool, wide);
        const Location exe = locate(symtest::outerFunction(7));
        const Location lib = locate(symtest::libFunction(7));
        const Location twice = locate(reinterpret_cast<const void*>(&symtest::Box<int>::twice));
        const Location cfun = locate(reinterpret_cast<const void*>(&symtest_c_function));
        Symbolizer sym;
        RawProfileOptions options;
        if (wide)
            options.threeByteFramesBelow = 0;
        RawProfileBuilder raw(sym, options);
        const uint32_t cpu = raw.costType("cpu-clock", CostUnit::Nanoseconds);
        const uint32_t threads[] = {raw.thread("a", 1, 1), raw.thread("b", 1, 2)};
        const RawFrame pool[] = {{sym.module(exe.path), exe.offset, true},
                                 {sym.module(lib.path), lib.offset, true},
                                 {sym.module(twice.path), twice.offset + 1, true},
                                 {sym.module(cfun.path), cfun.offset, true},
                                 {sym.module("/nonexistent/libgone.so"), 0x40, true}};
        TreeBuilder ref;
        ref.costType("cpu-clock", CostUnit::Nanoseconds);
        const FrameId roots[] = {ref.frame("a", {}, FrameKind::Process),
                                 ref.frame("b", {}, FrameKind::Process)};
        ref.thread("a", 1, 1);
        ref.thread("b", 1, 2);
        uint64_t rng = 12345;
        auto next = [&] {
            return (rng = rng * 6364136223846793005ull + 1442695040888963407ull) >> 33;
        };
        std::vector<Symbolizer::Request> requests;
        for (const RawFrame& f : pool)
            requests.push_back({f.module, f.address, f.returnAddress});
        const auto poolFrames = sym.symbolize(requests); // the reference's symbols, looked up once
        std::set<std::pair<uint32_t, std::vector<std::size_t>>> distinct;
        // per module: the samples with a frame in it; the cost of the samples ending at a named address
        std::map<std::string, uint64_t> moduleSamples;
        int64_t namedLeafCost = 0;
        for (int batch = 0; batch < 3; ++batch) {
            for (int i = 0; i < batchSamples; ++i) {
                std::vector<std::size_t> picks(static_cast<std::size_t>(minDepth) + next() % depthRange);
                std::vector<RawFrame> leafFirst;
                for (std::size_t& k : picks) {
                    k = next() % 5;
                    leafFirst.push_back(pool[k]);
                }
                const uint32_t t = next() % 2;
                distinct.insert({t, picks});
                const CostValue c{cpu, static_cast<int64_t>(1 + next() % 100)};
                if (expect && batch == 0 && i == 10)
                    raw.expectSamples(static_cast<uint64_t>(expect));
                raw.addSample(threads[t], leafFirst, {&c, 1});
                std::set<std::string> modules;
                for (const std::size_t k : picks)
                    modules.emplace(sym.modulePath(pool[k].module));
                for (const std::string& m : modules)
                    ++moduleSamples[m];
                if (!poolFrames[picks[0]].front().function.empty())
                    namedLeafCost += c.value;

                std::vector<FrameId> path{roots[t]};
                std::vector<SourceLine> lines{{}};
                for (std::size_t k = picks.size(); k-- > 0;) {
                    const std::string module(sym.modulePath(leafFirst[k].module));
                    for (const SymbolFrame& x : poolFrames[picks[k]]) {
                        Frame f;
                        if (x.function.empty()) { // e.g. the padding before symtest_c_function
                            f.name = ref.strings().intern("[" + module.substr(module.rfind('/') + 1) + "]");
                            f.module = ref.strings().intern(module);
                            f.kind = FrameKind::Unknown;
                            if (ref.frame(f) == path.back())
                                continue; // one frame per run of unresolved addresses
                            path.push_back(ref.frame(f));
                            lines.push_back({});
                            continue;
                        } else {
                            f.name = ref.strings().intern(x.function);
                            f.module = ref.strings().intern(module);
                            f.file = ref.strings().intern(x.declFile);
                            f.kind = x.inlined ? FrameKind::Inlined : FrameKind::Native;
                        }
                        path.push_back(ref.frame(f));
                        lines.push_back({ref.strings().intern(x.file), x.line});
                    }
                }
                ref.addSample(t, path, {&c, 1}, 1, lines);
            }
            if (snapshots) {
                const Profile snap = raw.snapshot({});
                QCOMPARE(snap.meta.samples, uint64_t(batchSamples) * uint64_t(batch + 1));
            }
        }
        if (batchSamples > 1000)
            QVERIFY2(distinct.size() > 20000, "too few distinct stacks for the two-thread paths");
        const Profile mine = raw.finish({});
        // finish() freed what adding samples needs: a sample after it is refused, not read from freed memory
        QVERIFY_THROWS_EXCEPTION(std::logic_error, raw.addSample(threads[0], std::span(pool, 2), {}));
        const Profile expected = ref.finish({});
        QCOMPARE(mine.tree.size(), expected.tree.size());
        for (NodeId n = 1; n < mine.tree.size(); ++n) { // same node order, parents, depths and costs
            QCOMPARE(mine.nodeName(n), expected.nodeName(n));
            QCOMPARE(mine.tree.parent(n), expected.tree.parent(n));
            QCOMPARE(mine.tree.subtreeEnd(n), expected.tree.subtreeEnd(n));
            QCOMPARE(mine.tree.self(0, n), expected.tree.self(0, n));
            QCOMPARE(mine.tree.total(0, n), expected.tree.total(0, n));
        }
        QCOMPARE(mine.tree.maxDepth(), expected.tree.maxDepth());
        QCOMPARE(mine.lineCosts.size(), expected.lineCosts.size());
        QVERIFY(mine.lineCosts.size() > 4);
        QVERIFY(contents(mine, false) == contents(expected, false)); // (the nodes compared above)
        QCOMPARE(mine.threads.size(), std::size_t(2));
        QCOMPARE(mine.threads[0].samples + mine.threads[1].samples, uint64_t(3) * uint64_t(batchSamples));
        QCOMPARE(mine.threads[0].samples, expected.threads[0].samples);
        // the samples per module, and the costs of the instructions the samples ended at (made beside the
        // tree's arrays on another thread for the large batch)
        std::map<std::string, uint64_t> reported;
        for (const ModuleReport& m : mine.meta.modules)
            reported[m.path] = m.samples;
        QVERIFY(reported == moduleSamples);
        int64_t addressed = 0;
        for (const int64_t c : mine.addressCosts.self.at(0))
            addressed += c;
        QCOMPARE(addressed, namedLeafCost);
        QVERIFY(namedLeafCost > 0);
    }

    void symbolizingAheadGivesTheSameProfile() { // and merging samples on a pipeline thread
        // thousands of unique addresses (every byte of the test program's text around a few functions) so
        // that the ahead thread resolves batches while samples still arrive, a snapshot in between: the
        // profile must equal the one symbolized only at the end
        const Location exe = locate(symtest::outerFunction(8));
        const Location lib = locate(symtest::libFunction(8));
        uint64_t snapshotSamples = 0;
        auto run = [&](bool ahead, bool snapshotInBetween, bool pipelined = false) -> Profile {
            Symbolizer sym;
            RawProfileOptions options;
            options.symbolizeAhead = ahead;
            options.symbolizeAheadAfter = 0; // at once: this input is read in a few milliseconds
            RawProfileBuilder raw(sym, options);
            if (pipelined)
                raw.pipelineSamples();
            const uint32_t cpu = raw.costType("cpu-clock", CostUnit::Nanoseconds);
            const uint32_t thread = raw.thread("t", 1, 1);
            const ModuleHandle modules[] = {sym.module(exe.path), sym.module(lib.path)};
            const uint64_t bases[] = {exe.offset > 6000 ? exe.offset - 6000 : 0,
                                      lib.offset > 600 ? lib.offset - 600 : 0};
            for (uint64_t i = 0; i < 14000; ++i) {
                const bool inLib = i % 7 == 0;
                const RawFrame frames[] = {
                    {modules[inLib], bases[inLib] + (inLib ? i / 7 % 1200 : i % 12000), i % 3 != 0},
                    {modules[0], exe.offset, true}};
                const CostValue c{cpu, static_cast<int64_t>(1 + i % 5)};
                raw.addSample(thread, frames, {&c, 1});
                if (snapshotInBetween && i == 9000)
                    snapshotSamples = raw.snapshot({}).meta.samples;
            }
            return raw.finish({});
        };
        const Profile atTheEnd = run(false, false);
        QVERIFY(atTheEnd.tree.size() > 20);
        QVERIFY(atTheEnd.lineCosts.size() > 20);
        const auto expected = contents(atTheEnd);
        QVERIFY(contents(run(true, false)) == expected);
        QVERIFY(contents(run(true, true)) == expected);
        QCOMPARE(snapshotSamples, uint64_t(9001));
        // samples merged by the pipeline thread (as the perf.data reader does): the same again
        snapshotSamples = 0;
        const Profile pipelined = run(true, true, true);
        QVERIFY(contents(pipelined) == expected);
        QCOMPARE(pipelined.meta.samples, atTheEnd.meta.samples);
        QCOMPARE(snapshotSamples, uint64_t(9001));

        // destroyed while the ahead thread works: stops it, never hangs
        for (int round = 0; round < 5; ++round) {
            Symbolizer sym;
            RawProfileOptions options;
            options.symbolizeAheadAfter = 0;
            RawProfileBuilder raw(sym, options);
            const uint32_t cpu = raw.costType("cpu-clock", CostUnit::Nanoseconds);
            const uint32_t thread = raw.thread("t", 1, 1);
            for (uint64_t i = 0; i < 9000; ++i) {
                const RawFrame f{sym.module(exe.path), exe.offset + i % 8000, false};
                const CostValue c{cpu, 1};
                raw.addSample(thread, {&f, 1}, {&c, 1});
            }
        }
    }

    void moduleWithoutDebugInfoIsAWarning() {
        const QString objcopy = symtest::objcopy();
        if (objcopy.isEmpty())
            QSKIP("objcopy (binutils) not installed");
        QTemporaryDir dir;
        const QString stripped = symtest::strippedTestLibrary(objcopy, dir.path());
        QVERIFY(!stripped.isEmpty());
        const Location exe = locate(symtest::outerFunction(8));
        const Location lib = locate(symtest::libFunction(8));
        SymbolizerOptions options;
        options.debugDirs = {};
        Symbolizer sym(options);
        RawProfileBuilder raw(sym);
        const uint32_t n = raw.costType("samples", CostUnit::Samples);
        const uint32_t t = raw.thread("main", 1, 1);
        const RawFrame withLib[] = {{sym.module(stripped.toStdString()), lib.offset, true},
                                    {sym.module(exe.path), exe.offset, true}};
        const RawFrame withoutLib[] = {{sym.module(exe.path), exe.offset, true}};
        const CostValue one{n, 1};
        raw.addSample(t, withLib, {&one, 1});
        for (int i = 0; i < 3; ++i)
            raw.addSample(t, withoutLib, {&one, 1});
        const Profile p = raw.finish({});
        QCOMPARE(p.meta.warningCount, uint64_t(1));
        QCOMPARE(toQ(p.meta.warnings.at(0).message),
                 stripped + QStringLiteral(": no debug info (25.0% of samples): file:line unknown"));
        // the function is still named (symbol table), one frame without inline frames or lines
        const NodeId f = test::nodeByPath(
            p, p.tree,
            {"main", "symtest::outerFunction(int)", "symtest::inlinedHelper", "symtest::libFunction(int)"});
        QVERIFY(f != kRootNode);
        QCOMPARE(p.tree.self(0, f), int64_t(1));
        QVERIFY(!p.tree.children(f).size());
    }

    /// A module whose addresses are partly nameless says how many and how much of the samples were spent in
    /// them (the leaf): a nameless frame on the way to named code does not count.
    void namelessAddressesCountWhereSamplesWereSpent() {
        const QString objcopy = symtest::objcopy();
        if (objcopy.isEmpty())
            QSKIP("objcopy (binutils) not installed");
        QTemporaryDir dir;
        const QString stripped = symtest::strippedTestLibrary(objcopy, dir.path());
        QVERIFY(!stripped.isEmpty());
        const Location exe = locate(symtest::outerFunction(8));
        const Location lib = locate(symtest::libFunction(8));
        SymbolizerOptions options;
        options.debugDirs = {};
        Symbolizer sym(options);
        RawProfileBuilder raw(sym);
        const uint32_t n = raw.costType("samples", CostUnit::Samples);
        const uint32_t t = raw.thread("main", 1, 1);
        const ModuleHandle libModule = sym.module(stripped.toStdString());
        const RawFrame nameless{libModule, 0x10, true}; // the ELF header: no function there
        const RawFrame named{libModule, lib.offset, true};
        const RawFrame caller{sym.module(exe.path), exe.offset, true};
        const RawFrame spentThere[] = {nameless, caller}; // leaf first
        const RawFrame passingThrough[] = {caller, nameless, caller};
        const RawFrame namedLeaf[] = {named, caller};
        const CostValue one{n, 1};
        raw.addSample(t, spentThere, {&one, 1});
        raw.addSample(t, spentThere, {&one, 1});
        raw.addSample(t, passingThrough, {&one, 1});
        raw.addSample(t, namedLeaf, {&one, 1});
        const Profile p = raw.finish({});
        QCOMPARE(p.meta.warningCount, uint64_t(1));
        const QString message = toQ(p.meta.warnings.at(0).message);
        QCOMPARE(message,
                 stripped + QStringLiteral(": no debug info (100.0% of samples): file:line unknown, 1 of "
                                           "2 addresses without a function name, 50.0% of the samples "
                                           "spent in them"));
        QCOMPARE(warningKind(p.meta.warnings.at(0).message), WarningKind::Symbols);
    }
};

QTEST_GUILESS_MAIN(TestRawProfile)
#include "tst_rawprofile.moc"
