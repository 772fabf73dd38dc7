// The perf sampler's off-CPU pairing (sampler/switchtimeline.h), fed events as the rings deliver them: one
// CPU's ring before the other's, so out of time order. A switch-out on one CPU pairs with the switch-in on
// another; each drain processes only what is older than the newest event of the drain before; on-CPU
// samples weigh the time since the thread's previous sample or switch-in; a wait carries the stack the
// thread left the CPU with; a thread that exits is not waiting. tst_offcpu records real programs with both
// mechanisms; this suite pins the pairing rules event by event.
#include "sampler/switchtimeline.h"

#include <QTest>

#include <vector>

using scorch::detail::SwitchTimeline;
using Kind = SwitchTimeline::Kind;

namespace {

struct Stretch {
    pid_t tid;
    uint64_t time, ns;
    char state;
    std::vector<uint64_t> stack;
    bool operator==(const Stretch&) const = default;
};

constexpr uint64_t kPeriod = 1'000'000; // 1 ms

struct Recorder {
    std::vector<Stretch> out;
    SwitchTimeline timeline{kPeriod, [this](pid_t tid, uint64_t time, uint64_t ns, char state,
                                            const uint64_t* ips, std::size_t n) {
                                out.push_back({tid, time, ns, state, std::vector<uint64_t>(ips, ips + n)});
                            }};
};

char* toString(const Stretch& s) {
    QByteArray text = "tid " + QByteArray::number(s.tid) + " at " + QByteArray::number(s.time) + " for " +
                      QByteArray::number(s.ns) + " state " + (s.state ? QByteArray(1, s.state) : "on") +
                      " stack";
    for (uint64_t a : s.stack)
        text += " " + QByteArray::number(a, 16);
    return qstrdup(text.constData());
}

} // namespace

class TestSwitchTimeline : public QObject {
    Q_OBJECT
private slots:
    void waitPairsAcrossCpusInTimeOrder() {
        Recorder r;
        // CPU 1's ring is read first: the switch-in at 5000 comes before the switch-out at 2000 it ends
        r.timeline.queue(Kind::In, 10, 5000);
        r.timeline.queue(Kind::Sample, 10, 1000, {0xa1, 0xa2});
        r.timeline.queue(Kind::Stack, 10, 2000, {0xb1, 0xb2, 0xb3});
        r.timeline.queue(Kind::Out, 10, 2000);
        r.timeline.drained(); // the first drain: nothing is known complete yet
        QCOMPARE(r.out.size(), std::size_t(0));
        QCOMPARE(r.timeline.pending(), std::size_t(4));
        r.timeline.queue(Kind::Sample, 10, 5600, {0xc1});
        r.timeline.drained(); // up to 5000, the newest of the drain before
        const std::vector<Stretch> expected{
            {10, 1000, kPeriod, 0, {0xa1, 0xa2}},      // nothing before it: one period
            {10, 2000, 1000, 0, {0xb1, 0xb2, 0xb3}},   // on the CPU from the sample to the switch-out
            {10, 2000, 3000, '?', {0xb1, 0xb2, 0xb3}}, // waiting until the switch-in on the other CPU
        };
        QCOMPARE(r.out, expected);
        QCOMPARE(r.timeline.pending(), std::size_t(1));
        r.timeline.finish(9000);
        QCOMPARE(r.out.size(), std::size_t(4));
        QCOMPARE(r.out.back(), (Stretch{10, 5600, 600, 0, {0xc1}})); // since the switch-in
    }

    void preemptedThreadIsRunnable() {
        Recorder r;
        r.timeline.queue(Kind::Sample, 7, 100, {0x1});
        r.timeline.queue(Kind::OutPreempt, 7, 400);
        r.timeline.queue(Kind::In, 7, 900);
        r.timeline.finish(1000);
        // no stack for the switch-out: the on-CPU time goes to the last sample's, the wait has none
        const std::vector<Stretch> expected{
            {7, 100, kPeriod, 0, {0x1}},
            {7, 400, 300, 0, {0x1}},
            {7, 400, 500, 'R', {}},
        };
        QCOMPARE(r.out, expected);
    }

    void staleStackIsNotTheWaitsStack() {
        Recorder r;
        // a stack from before the thread's last switch-in belongs to an earlier switch-out
        r.timeline.queue(Kind::Stack, 3, 50, {0xdead});
        r.timeline.queue(Kind::In, 3, 100);
        r.timeline.queue(Kind::Out, 3, 300);
        r.timeline.queue(Kind::In, 3, 700);
        r.timeline.finish(800);
        const std::vector<Stretch> expected{
            {3, 300, 200, 0, {}},
            {3, 300, 400, '?', {}},
        };
        QCOMPARE(r.out, expected);
    }

    void stillWaitingAtTheEndWaitedUntilIt() {
        Recorder r;
        r.timeline.queue(Kind::In, 4, 100);
        r.timeline.queue(Kind::Stack, 4, 250, {0x42});
        r.timeline.queue(Kind::Out, 4, 250);
        r.timeline.finish(1250);
        QCOMPARE(r.out.size(), std::size_t(2));
        QCOMPARE(r.out[0], (Stretch{4, 250, 150, 0, {0x42}}));
        QCOMPARE(r.out[1], (Stretch{4, 250, 1000, '?', {0x42}}));
    }

    void exitedThreadIsNotWaiting() {
        Recorder r;
        r.timeline.queue(Kind::In, 5, 100);
        r.timeline.queue(Kind::Out, 5, 200);
        r.timeline.queue(Kind::Exit, 5, 300);
        r.timeline.queue(Kind::Out, 5, 400); // after its exit: ignored
        r.timeline.finish(1000);
        QCOMPARE(r.out.size(), std::size_t(1)); // its CPU time 100..200, no wait
        QCOMPARE(r.out[0], (Stretch{5, 200, 100, 0, {}}));
        // the id used again by a new thread: waits are paired again
        Recorder again;
        again.timeline.queue(Kind::Exit, 6, 100);
        again.timeline.queue(Kind::In, 6, 200);
        again.timeline.queue(Kind::Out, 6, 300);
        again.timeline.queue(Kind::In, 6, 450);
        again.timeline.finish(500);
        QCOMPARE(again.out.size(), std::size_t(2));
        QCOMPARE(again.out[1], (Stretch{6, 300, 150, '?', {}}));
    }

    void longGapIsCappedAndTiesKeepArrivalOrder() {
        Recorder r;
        r.timeline.queue(Kind::Sample, 8, 1'000, {0x1});
        r.timeline.queue(Kind::Sample, 8, 5'000'001'000, {0x2});
        // same time: the order they arrived in (the switch-in before the sample)
        r.timeline.queue(Kind::In, 9, 2000);
        r.timeline.queue(Kind::Sample, 9, 2000, {0x3});
        r.timeline.queue(Kind::Sample, 9, 2500, {0x4});
        r.timeline.finish(6'000'000'000);
        QCOMPARE(r.out.size(), std::size_t(4));
        QCOMPARE(r.out[0], (Stretch{8, 1000, kPeriod, 0, {0x1}}));
        QCOMPARE(r.out[1], (Stretch{9, 2000, kPeriod, 0, {0x3}})); // at its switch-in: nothing to time by
        QCOMPARE(r.out[2], (Stretch{9, 2500, 500, 0, {0x4}}));
        QCOMPARE(r.out[3], (Stretch{8, 5'000'001'000, 1'000'000'000, 0, {0x2}})); // 5 s counted as 1 s
    }
};

QTEST_GUILESS_MAIN(TestSwitchTimeline)
#include "tst_switchtimeline.moc"
