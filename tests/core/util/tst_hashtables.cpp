// IndexTable (util/hash.h), the open-addressing index of the interners and the raw-profile builder: items
// found by hash and equality through growth, and candidate(), the hint the perf.data merging uses to ask for
// a stack's memory ahead of the find: the item whose tag matches among the probe's first slots, never
// another. FrameIndex (raw/frameindex.h), the raw frames' ids: a new stack's frames looked up as the merging
// does it, first in the table of recent frames (findRecent()), then the others in order, number every frame
// as one findOrInsert() after the other would, and findRecent() never gives another frame's id.
#include "raw/frameindex.h"
#include "util/hash.h"

#include <QTest>

#include <map>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

using scorch::ModuleHandle;
using scorch::RawFrame;
using scorch::detail::FrameIndex;
using scorch::detail::hashInt;
using scorch::detail::hashRaw;
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

    void framesNumberedInOrderThroughTheRecentTable() {
        // frames that differ only in their module or return-address flag too; stacks of 1-60 frames drawn
        // mostly from a small working set that moves (as the frames of successive new stacks do) and else
        // from all 300 000, so that both tables are asked and the big one grows
        std::mt19937_64 random(21);
        const auto frameOf = [](uint64_t n) {
            return RawFrame(ModuleHandle{uint32_t(n % 3)}, 0x400000 + (n / 6) * 16, (n / 3) % 2 != 0);
        };
        FrameIndex index;
        std::map<std::tuple<uint32_t, uint64_t, bool>, uint32_t> expected;
        std::vector<std::pair<uint32_t, uint64_t>> lookups;
        std::size_t recentHits = 0, asked = 0;
        for (int stack = 0; stack < 20000; ++stack) {
            const std::size_t depth = 1 + random() % 60;
            std::vector<RawFrame> frames; // root first
            for (std::size_t k = 0; k < depth; ++k) {
                const uint64_t n = random() % 4 ? (stack * 7 + random() % 2000) : random() % 300000;
                frames.push_back(frameOf(n));
            }
            std::vector<uint32_t> ids(depth);
            lookups.clear();
            for (std::size_t k = 0; k < depth; ++k) {
                const uint64_t h = hashRaw(frames[k]);
                ids[k] = index.findRecent(frames[k], h);
                if (ids[k] == FrameIndex::kNotRecent) {
                    lookups.emplace_back(uint32_t(k), h);
                    continue;
                }
                ++recentHits;
                const auto it =
                    expected.find({frames[k].module.value, frames[k].address, frames[k].returnAddress});
                if (it == expected.end() || it->second != ids[k])
                    QFAIL(qPrintable(QString("stack %1 frame %2: recent id %3 is another frame's")
                                         .arg(stack)
                                         .arg(k)
                                         .arg(ids[k])));
            }
            for (const auto& [k, h] : lookups) {
                bool inserted = false;
                ids[k] = index.findOrInsert(frames[k], h, uint32_t(expected.size()), inserted);
                const auto [it, fresh] =
                    expected.try_emplace({frames[k].module.value, frames[k].address, frames[k].returnAddress},
                                         uint32_t(expected.size()));
                QCOMPARE(inserted, fresh);
                QCOMPARE(ids[k], it->second);
                // just asked for: now in the recent table
                QCOMPARE(index.findRecent(frames[k], h), ids[k]);
            }
            asked += depth;
        }
        QVERIFY2(expected.size() > 100000, qPrintable(QString::number(expected.size())));
        // the recent table answered many of them, not all
        QVERIFY2(recentHits * 4 > asked && recentHits < asked,
                 qPrintable(QString("%1 of %2").arg(recentHits).arg(asked)));
    }
};

QTEST_GUILESS_MAIN(TestHashTables)
#include "tst_hashtables.moc"
