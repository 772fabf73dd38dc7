// Unit tests of the warnings of a profile (ProfileMeta::warn, warnFirst, warningSummary): every warning
// counted, the first kMaxKeptWarnings kept, and the one-line summary; and that the warnings of Scorch
// recordings (notes, lost samples) keep to the cap, lost samples ahead of the notes.
#include "scorch/profile.h"
#include "scorch/recording.h"
#include "scorch/warningkind.h"

#include <QTest>

#include <string>

using namespace scorch;

class TestWarnings : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void keepsTheFirstAndCountsTheRest() {
        ProfileMeta meta;
        const std::size_t cap = ProfileMeta::kMaxKeptWarnings;
        for (std::size_t i = 0; i < cap + 7; ++i)
            QCOMPARE(meta.warn("w" + std::to_string(i), i + 1), i < cap);
        QCOMPARE(meta.warningCount, uint64_t(cap + 7));
        QCOMPARE(meta.warnings.size(), cap);
        for (std::size_t i = 0; i < cap; ++i) { // the first ones, in the order given, with their lines
            QCOMPARE(meta.warnings[i].message, "w" + std::to_string(i));
            QCOMPARE(meta.warnings[i].line, uint64_t(i + 1));
        }
    }

    void warnFirstGoesAheadWithinTheCap() {
        ProfileMeta few;
        few.warn("a");
        few.warnFirst("whole import");
        QCOMPARE(few.warningCount, uint64_t(2));
        QCOMPARE(few.warnings.size(), std::size_t(2));
        QCOMPARE(few.warnings[0].message, std::string("whole import"));
        QCOMPARE(few.warnings[1].message, std::string("a"));

        ProfileMeta full;
        const std::size_t cap = ProfileMeta::kMaxKeptWarnings;
        for (std::size_t i = 0; i < cap; ++i)
            full.warn("w" + std::to_string(i));
        full.warnFirst("whole import");
        QCOMPARE(full.warningCount, uint64_t(cap + 1));
        QCOMPARE(full.warnings.size(), cap); // the last kept one gave way
        QCOMPARE(full.warnings.front().message, std::string("whole import"));
        QCOMPARE(full.warnings.back().message, "w" + std::to_string(cap - 2));
    }

    void seriousWarningsGoAheadInTheOrderMet() {
        ProfileMeta meta;
        const std::size_t cap = ProfileMeta::kMaxKeptWarnings;
        meta.warn("a note");
        warnSerious(meta, "the file is truncated: a record at byte offset 9 is cut off");
        warnSerious(meta, "/bin/x: not found (40.0% of samples): functions unknown");
        QCOMPARE(meta.warnings.size(), std::size_t(3));
        QCOMPARE(warningKind(meta.warnings[0].message), WarningKind::Truncated); // the first met stays first
        QCOMPARE(warningKind(meta.warnings[1].message), WarningKind::Symbols);
        QCOMPARE(meta.warnings[2].message, std::string("a note"));
        for (std::size_t i = 0; i < cap; ++i)
            meta.warn("note " + std::to_string(i));
        warnSerious(meta, "12 events were lost while recording (perf could not keep up)");
        QCOMPARE(meta.warningCount, uint64_t(cap + 4));
        QCOMPARE(meta.warnings.size(), cap); // a note gave way
        QCOMPARE(warningKind(meta.warnings[2].message), WarningKind::Lost);
        QCOMPARE(meta.warnings[3].message, std::string("a note"));
    }

    void summaryLine() {
        ProfileMeta meta;
        meta.source = "in.txt";
        QCOMPARE(meta.warningSummary(), std::string());
        meta.warn("bad line", 12);
        QCOMPARE(meta.warningSummary(),
                 std::string("in.txt: 1 line(s) skipped or repaired; first at line 12: bad line"));
        for (int i = 0; i < 30; ++i)
            meta.warn("more", 20 + i);
        QCOMPARE(meta.warningSummary(),
                 std::string("in.txt: 31 line(s) skipped or repaired; first at line 12: bad line"));

        ProfileMeta noLine;
        noLine.source = "x.data";
        noLine.warn("something odd");
        QCOMPARE(noLine.warningSummary(), std::string("x.data: 1 warning(s); first: something odd"));
        noLine.warn("another");
        QCOMPARE(noLine.warningSummary(),
                 std::string("x.data: 2 warning(s); first: something odd (`scorch info` lists them)"));
    }

    void recordingWarningsKeepToTheCap() {
        Recording r;
        r.mode = "perf";
        r.lost = 3;
        const Profile few = profileFromRecording(r, "few.rec", nullptr, false);
        QCOMPARE(few.meta.warningCount, uint64_t(1));
        QCOMPARE(few.meta.warnings.size(), std::size_t(1));
        QCOMPARE(few.meta.warnings[0].message, std::string("3 samples were lost while recording"));

        const std::size_t cap = ProfileMeta::kMaxKeptWarnings;
        for (std::size_t i = 0; i < cap; ++i)
            r.notes.push_back("note " + std::to_string(i));
        const Profile many = profileFromRecording(r, "many.rec", nullptr, false);
        QCOMPARE(many.meta.warningCount, uint64_t(cap + 1)); // the lost samples are counted ...
        QCOMPARE(many.meta.warnings.size(), cap);            // ... within the cap ...
        // ... and kept first, a serious warning (the window's banner shows it); the last note gave way
        QCOMPARE(many.meta.warnings.front().message, std::string("3 samples were lost while recording"));
        QCOMPARE(many.meta.warnings.back().message, "note " + std::to_string(cap - 2));
    }
};

QTEST_GUILESS_MAIN(TestWarnings)
#include "tst_warnings.moc"
