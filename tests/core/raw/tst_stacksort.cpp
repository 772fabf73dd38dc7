// The sort of a batch's stacks (raw/stacksort.h) against std::sort with a plain lexicographic comparison,
// and the keys it says each sorted stack shares with the one before against a count: stacks that share
// long prefixes, stacks that are prefixes of others, identical stacks, different references with the same
// key, many stacks leaving a path at the same depth, and deep recursion.
#include "raw/stacksort.h"

#include <QTest>

#include <algorithm>
#include <cstdint>
#include <vector>

using namespace scorch::detail;

namespace {

struct Stacks {
    std::vector<std::vector<uint32_t>> paths; ///< references, root -> leaf
    std::vector<uint32_t> refKey;             ///< reference -> key (several references share a key)
};

/// `count` stacks as walks from the root of a random call tree: each reference has `fanout` possible
/// children, a walk stops with probability 1/`stop` per frame; some walks repeat a frame (recursion); some
/// stacks are prefixes of others, also of one that goes on with the smallest key, 0. Keys: reference r has
/// key r / 3 (three references a key, as a function's different lines or call sites).
Stacks randomStacks(std::size_t count, uint32_t fanout, uint32_t stop, uint32_t references, uint64_t seed) {
    Stacks s;
    s.refKey.resize(references);
    for (uint32_t r = 0; r < references; ++r)
        s.refKey[r] = r / 3;
    uint64_t rng = seed;
    const auto next = [&] {
        return static_cast<uint32_t>((rng = rng * 6364136223846793005ull + 1442695040888963407ull) >> 33);
    };
    for (std::size_t i = 0; i < count; ++i) {
        std::vector<uint32_t> path;
        uint32_t at = next() % 4; // a few roots (threads)
        path.push_back(at);
        while (next() % stop != 0 && path.size() < 400) {
            if (next() % 16 == 0) { // recursion: the same reference a few times in a row
                for (uint32_t k = next() % 8; k > 0; --k)
                    path.push_back(at);
                continue;
            }
            at = (at * 31 + 7 + next() % fanout) % references;
            path.push_back(at);
        }
        if (next() % 8 == 0 && path.size() > 1) { // a prefix of another stack, and one going on with key 0
            path.resize(1 + next() % (path.size() - 1));
            s.paths.push_back(path);
            s.paths.back().push_back(next() % 3);
        }
        s.paths.push_back(std::move(path));
        if (next() % 5 == 0) // the same stack twice, with other references of the same keys at the end
            s.paths.push_back(s.paths.back());
        if (s.paths.back().size() > 1 && next() % 2 == 0) {
            uint32_t& leaf = s.paths.back().back();
            leaf = leaf / 3 * 3 + (leaf % 3 + 1) % 3;
        }
    }
    // many stacks going on from one path and the path itself (split, not compared: more than 16): past its
    // end, key 0 sorts after the end
    if (count >= 40) {
        const std::vector<uint32_t> shared{1, 5, 9, 13, 17};
        s.paths.push_back(shared);
        for (std::size_t i = 0; i < count / 10; ++i) {
            s.paths.push_back(shared);
            for (uint32_t k = next() % 4; k-- > 0;)
                s.paths.back().push_back(next() % 30);
        }
    }
    return s;
}

std::vector<uint32_t> keysOf(const Stacks& s, std::size_t i) {
    std::vector<uint32_t> k;
    for (const uint32_t r : s.paths[i])
        k.push_back(s.refKey[r]);
    return k;
}

/// Sorts the stacks with their references as R; the stacks' numbers in sorted order, the keys each shares
/// with the one before in `shared`. Checks that each key still has its stack's path and size.
template <typename R>
std::vector<uint32_t> sortAs(const Stacks& s, bool twoThreads, std::vector<uint32_t>& shared) {
    std::vector<std::vector<R>> paths;
    for (const auto& p : s.paths)
        paths.emplace_back(p.begin(), p.end());
    std::vector<BasicStackKey<R>> keys;
    for (std::size_t i = 0; i < paths.size(); ++i)
        keys.push_back({paths[i].data(), static_cast<uint32_t>(paths[i].size()), static_cast<uint32_t>(i)});
    shared.assign(keys.size(), 12345);
    sortStackKeys(keys, s.refKey.data(), twoThreads, shared.data());
    std::vector<uint32_t> order;
    for (const BasicStackKey<R>& key : keys) {
        if (key.stack >= paths.size() || key.path != paths[key.stack].data() ||
            key.size != paths[key.stack].size()) {
            QTest::qFail("a key lost its stack's path", __FILE__, __LINE__);
            return {};
        }
        order.push_back(key.stack);
    }
    return order;
}

} // namespace

class TestStackSort : public QObject {
    Q_OBJECT
private slots:
    void sortsLikeStdSort_data() {
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("fanout");
        QTest::addColumn<int>("stop");
        QTest::addColumn<bool>("twoThreads");
        QTest::addColumn<int>("references");
        QTest::addColumn<bool>("packed"); // the references as Ref24
        QTest::newRow("none") << 0 << 4 << 10 << false << 3000 << false;
        QTest::newRow("one") << 1 << 4 << 10 << false << 3000 << false;
        QTest::newRow("15, sorted by comparisons") << 15 << 4 << 10 << false << 3000 << false;
        QTest::newRow("40, split once or twice") << 40 << 4 << 10 << false << 3000 << false;
        QTest::newRow("3000, narrow and deep") << 3000 << 2 << 60 << false << 3000 << false;
        QTest::newRow("3000, wide and shallow") << 3000 << 500 << 3 << false << 3000 << false;
        QTest::newRow("30000, two threads") << 30000 << 3 << 40 << true << 3000 << false;
        QTest::newRow("30000, two threads, wide") << 30000 << 200 << 6 << true << 3000 << false;
        QTest::newRow("200, two threads") << 200 << 3 << 20 << true << 3000 << false;
        // three-byte references, up to 2^19 (all three bytes in use)
        QTest::newRow("15, three bytes") << 15 << 4 << 10 << false << 500000 << true;
        QTest::newRow("3000, narrow and deep, three bytes") << 3000 << 2 << 60 << false << 500000 << true;
        QTest::newRow("30000, two threads, three bytes") << 30000 << 3 << 40 << true << 500000 << true;
    }

    void sortsLikeStdSort() {
        QFETCH(int, count);
        QFETCH(int, fanout);
        QFETCH(int, stop);
        QFETCH(bool, twoThreads);
        QFETCH(int, references);
        QFETCH(bool, packed);
        const Stacks s = randomStacks(static_cast<std::size_t>(count), static_cast<uint32_t>(fanout),
                                      static_cast<uint32_t>(stop), static_cast<uint32_t>(references),
                                      99 + static_cast<uint64_t>(count));
        uint32_t top = 0;
        for (const auto& p : s.paths)
            for (const uint32_t r : p)
                top = std::max(top, r);
        if (packed && count >= 3000)
            QVERIFY2(top >= (uint32_t(1) << 16), "the references do not reach the third byte");
        std::vector<uint32_t> order, shared;
        if (packed)
            order = sortAs<Ref24>(s, twoThreads, shared);
        else
            order = sortAs<uint32_t>(s, twoThreads, shared);
        if (QTest::currentTestFailed())
            return;

        // the expected order: the stacks' key sequences sorted as std::vector's operator< sorts them
        std::vector<std::vector<uint32_t>> expected;
        for (std::size_t i = 0; i < s.paths.size(); ++i)
            expected.push_back(keysOf(s, i));
        std::sort(expected.begin(), expected.end());
        QCOMPARE(order.size(), expected.size());
        std::vector<bool> seen(order.size(), false);
        for (std::size_t i = 0; i < order.size(); ++i) {
            const uint32_t k = order[i];
            QVERIFY(k < order.size() && !seen[k]); // each stack once
            seen[k] = true;
            if (keysOf(s, k) != expected[i])
                QFAIL(qPrintable(QStringLiteral("stack %1 out of order at position %2").arg(k).arg(i)));
            // the keys it shares with the stack before it, counted here
            std::size_t common = 0;
            if (i > 0)
                while (common < expected[i].size() && common < expected[i - 1].size() &&
                       expected[i][common] == expected[i - 1][common])
                    ++common;
            if (shared[i] != common)
                QFAIL(qPrintable(QStringLiteral("position %1 shares %2 keys with the one before, not %3")
                                     .arg(i)
                                     .arg(common)
                                     .arg(shared[i])));
        }
        // (the fixture has what it is meant to have: shared prefixes, identical and prefix stacks)
        if (count >= 3000) {
            std::size_t identical = 0, prefixes = 0;
            for (std::size_t i = 1; i < expected.size(); ++i) {
                const auto& a = expected[i - 1];
                const auto& b = expected[i];
                identical += a == b;
                prefixes += a.size() < b.size() && std::equal(a.begin(), a.end(), b.begin());
            }
            QVERIFY(identical > 10);
            QVERIFY(prefixes > 10);
        }
    }
};

QTEST_GUILESS_MAIN(TestStackSort)
#include "tst_stacksort.moc"
