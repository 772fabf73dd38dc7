// IndexTable (util/hash.h), the open-addressing index of the interners and the raw-profile builder: items
// found by hash and equality through growth, and candidate(), the hint the perf.data merging uses to ask for
// a stack's memory ahead of the find: the item whose tag matches among the probe's first slots, never
// another.
#include "util/hash.h"

#include <QTest>

#include <vector>

using scorch::detail::hashInt;
using scorch::detail::IndexProbe;
using scorch::detail::IndexTable;

class TestHashTables : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void findsEveryItemThroughGrowth() {
        IndexTable table(16);
        std::vector<uint64_t> keys;
        for (uint32_t i = 0; i < 100000; ++i) {
            const uint64_t key = uint64_t(i) * 7919 + 13;
            const uint64_t h = hashInt(key);
            const IndexProbe p = table.find(h, [&](uint32_t e) { return keys[e] == key; });
            QVERIFY(!p.found());
            keys.push_back(key);
            table.insert(p, h, i, [&](uint32_t e) { return hashInt(keys[e]); });
        }
        QCOMPARE(table.size(), keys.size());
        for (uint32_t i = 0; i < keys.size(); ++i) {
            const IndexProbe p = table.find(hashInt(keys[i]), [&](uint32_t e) { return keys[e] == keys[i]; });
            if (p.index != i)
                QFAIL(qPrintable(QString("key %1 found as %2").arg(i).arg(p.index)));
        }
    }

    void candidateIsTheItemOrNothing() {
        IndexTable table(16);
        std::vector<uint64_t> keys;
        for (uint32_t i = 0; i < 50000; ++i) {
            const uint64_t key = hashInt(i + 1);
            const uint64_t h = hashInt(key);
            const IndexProbe p = table.find(h, [&](uint32_t e) { return keys[e] == key; });
            keys.push_back(key);
            table.insert(p, h, i, [&](uint32_t e) { return hashInt(keys[e]); });
        }
        std::size_t itself = 0;
        for (uint32_t i = 0; i < keys.size(); ++i) {
            const uint32_t c = table.candidate(hashInt(keys[i]));
            // the item itself, or nothing (its slot beyond the first four of the probe); never another item
            // (their 32-bit tags differ here)
            if (c != i && c != IndexProbe::kAbsent)
                QFAIL(qPrintable(QString("key %1 gave candidate %2").arg(i).arg(c)));
            itself += c == i;
        }
        // at most half full: nearly every item sits within four slots of where its probe starts
        QVERIFY2(itself * 100 >= keys.size() * 95, qPrintable(QString::number(itself)));
        // hashes never inserted: nothing (no tag matches)
        std::size_t none = 0;
        for (uint32_t i = 0; i < 10000; ++i)
            none += table.candidate(hashInt(hashInt(i + 1000000))) == IndexProbe::kAbsent;
        QCOMPARE(none, std::size_t(10000));
    }
};

QTEST_GUILESS_MAIN(TestHashTables)
#include "tst_hashtables.moc"
