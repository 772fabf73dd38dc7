// The Disassembly tab beside Source (issue 16) on a recording of scorch_perfprog made here with perf: a
// function chosen in the function table shows its instructions with a cost column per event, the hottest
// instruction current (the one scorch/disasm.h finds, three quarters of hotLeaf's samples and more), the
// source line beside each instruction, inlined code marked, and a double-click on a jump goes to its
// target. Skipped when perf cannot record here.
#include "apptestutil.h"
#include "disasm/disassemblyview.h"
#include "patience.h"
#include "profiletab.h"
#include "scorch/disasm.h"
#include "scorch/samples.h"
#include "source/sourceview.h"
#include "tables/calltreetables.h"
#include "testutil.h"
#include "timeline/timelinepanel.h"
#include "timeline/timelineview.h"
#include "widgettestutil.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QTreeWidget>

using namespace scorch;
using scorch::test::findRow;
using scorch::test::kPatienceMs;
using scorch::test::waitLoaded;

class TestDisassembly : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_data;

    /// Picks `function` in the function table and waits for the Disassembly tab to show it.
    static bool showInstructions(ProfileTab& tab, const QString& function) {
        QTreeView* functions = tab.tables()->view(CallTreeTables::Functions);
        tab.tables()->tabs()->setCurrentIndex(CallTreeTables::Functions);
        const QModelIndex row = findRow(*functions->model(), function);
        if (!row.isValid())
            return false;
        QSignalSpy ready(tab.disassemblyView(), &DisassemblyView::ready);
        functions->setCurrentIndex(row);
        tab.detailTabs()->setCurrentWidget(tab.disassemblyView());
        return ready.count() > 0 || ready.wait(kPatienceMs);
    }

    /// The recording in a tab, with `function` shown in the Disassembly tab; null when that fails.
    std::unique_ptr<ProfileTab> openWithInstructions(const QString& function) const {
        auto tab = std::make_unique<ProfileTab>(m_data);
        tab->resize(1600, 1000);
        tab->show();
        if (!waitLoaded(tab.get()) || !showInstructions(*tab, function))
            return nullptr;
        return tab;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        const QString out = m_dir.filePath(QStringLiteral("perfprog.data"));
        QProcess p;
        p.start(QStringLiteral("perf"),
                {QStringLiteral("record"), QStringLiteral("-q"), QStringLiteral("-e"),
                 QStringLiteral("cpu-clock"), QStringLiteral("-F"), QStringLiteral("999"),
                 QStringLiteral("-o"), out, QStringLiteral("--"), QStringLiteral(SCORCH_PERFPROG),
                 QStringLiteral("300")});
        if (p.waitForFinished(kPatienceMs) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0)
            m_data = out;
        else
            qWarning("perf record does not work here: the disassembly tests are skipped");
    }

    void hottestInstructionAndJumps() {
        if (m_data.isEmpty())
            QSKIP("perf cannot record here");
        const auto tab = openWithInstructions(QStringLiteral("hotLeaf(…)"));
        QVERIFY(tab);
        QVERIFY(tab->detailTabs()->isVisible());
        QVERIFY(tab->detailTabs()->isTabVisible(1)); // perf.data keeps instruction addresses
        DisassemblyView* view = tab->disassemblyView();
        QVERIFY2(view->annotation().has_value(), qPrintable(view->infoLabel()->text()));
        const Annotation& a = *view->annotation();
        QTreeWidget* tree = view->tree();
        int instructions = 0;
        bool sourceShown = false;
        for (int r = 0; r < tree->topLevelItemCount(); ++r) {
            const QTreeWidgetItem* item = tree->topLevelItem(r);
            if (DisassemblyView::isInstruction(item))
                ++instructions;
            else // a source line between the instructions, with its text: hotLeaf's multiply-add
                sourceShown = sourceShown || item->text(0).contains(QStringLiteral("6364136223846793005ul"));
        }
        QCOMPARE(instructions, int(a.instructions.size()));
        QVERIFY(sourceShown);
        QCOMPARE(tree->columnCount(),
                 DisassemblyView::FirstCostColumn + int(tab->profile()->costTypes.size()));
        // the hottest instruction is current, with most of the function's samples
        const AnnotatedInstruction& hot = a.instructions[a.hottest(0)];
        QVERIFY(tree->currentItem());
        QCOMPARE(tree->currentItem()->text(DisassemblyView::AddressColumn), QString::number(hot.address, 16));
        QVERIFY(hot.self[0] * 2 > a.total[0]);
        QVERIFY(tree->currentItem()->text(DisassemblyView::FirstCostColumn).endsWith(u'%'));
        QVERIFY(tree->currentItem()
                    ->text(DisassemblyView::SourceColumn)
                    .startsWith(QStringLiteral("perfprog.cpp:")));
        // the tab takes at least half of the width beside the tables, so the source column is in view
        QVERIFY(tab->detailTabs()->width() * 2 >= tab->detailTabs()->width() + tab->tables()->width() - 8);
        // the loop's conditional jump goes back into the function: a double-click makes its target current
        QTreeWidgetItem* jump = nullptr;
        for (int r = 0; r < tree->topLevelItemCount() && !jump; ++r)
            if (tree->topLevelItem(r)
                    ->text(DisassemblyView::InstructionColumn)
                    .startsWith(QStringLiteral("j")))
                jump = tree->topLevelItem(r);
        QVERIFY(jump);
        const QString target =
            jump->text(DisassemblyView::InstructionColumn).section(QStringLiteral("0x"), 1);
        Q_EMIT tree->itemDoubleClicked(jump, DisassemblyView::InstructionColumn);
        QCOMPARE(tree->currentItem()->text(DisassemblyView::AddressColumn), target);
    }

    void inlinedCodeInItalics() {
        if (m_data.isEmpty())
            QSKIP("perf cannot record here");
        const auto tab = openWithInstructions(QStringLiteral("warmLeaf(…)"));
        QVERIFY(tab);
        QTreeWidget* tree = tab->disassemblyView()->tree();
        int inlined = 0;
        for (int r = 0; r < tree->topLevelItemCount(); ++r) {
            QTreeWidgetItem* item = tree->topLevelItem(r);
            if (item->text(DisassemblyView::SourceColumn).contains(QStringLiteral("(inlined inlinedMix"))) {
                ++inlined;
                QVERIFY(item->font(DisassemblyView::InstructionColumn).italic());
            }
        }
        QVERIFY(inlined > 0);
    }

    /// A time range selected on the timeline: the Disassembly and Source tabs show that range's costs (the
    /// function's self cost in the range's call tree, re-aggregated without them), and the whole profile's
    /// again when the range is cleared.
    void followsTheTimeRange() {
        if (m_data.isEmpty())
            QSKIP("perf cannot record here");
        const auto tab = openWithInstructions(QStringLiteral("hotLeaf(…)"));
        QVERIFY(tab);
        DisassemblyView* view = tab->disassemblyView();
        QVERIFY(view->annotation());
        const int64_t whole = view->annotation()->total[0];
        const Profile& p = *tab->profile();
        QVERIFY(hasSliceDetails(p));
        // the self cost of hotLeaf in the first third's call tree
        const TimeRange range{0, p.samples->lastTime() / 3};
        SliceRequest request;
        request.range = range;
        request.details = true; // (its instruction costs too, as the tab asks for them)
        const Profile slice = sliceProfile(p, *sliceSamples(p, request));
        int64_t expected = 0;
        for (NodeId n = 1; n < slice.tree.size(); ++n)
            if (slice.nodeName(n).starts_with("hotLeaf"))
                expected += slice.tree.self(0, n);
        QVERIFY(expected > 0 && expected < whole);
        const int disassembled = view->disassembled();
        tab->timeline()->view()->setSelection(range);
        QTRY_VERIFY_WITH_TIMEOUT(view->annotation() && view->annotation()->total[0] == expected, kPatienceMs);
        // the instructions in view took the range's costs without being disassembled again, each the cost
        // that disassembling the function in the range's profile gives it
        QCOMPARE(view->disassembled(), disassembled);
        const Annotation inRange = annotate(slice, view->frame());
        QCOMPARE(view->annotation()->instructions.size(), inRange.instructions.size());
        for (std::size_t i = 0; i < inRange.instructions.size(); ++i)
            QCOMPARE(view->annotation()->instructions[i].self, inRange.instructions[i].self);
        QCOMPARE(view->annotation()->outside, inRange.outside);
        // the source view's lines of hotLeaf: their self costs sum to the same
        const auto sourceSelf = [&] {
            int64_t sum = 0;
            for (const FunctionLine& l : tab->sourceView()->function().lines)
                sum += l.self[0];
            return sum;
        };
        QCOMPARE(sourceSelf(), expected);
        // cleared: the whole profile's costs again
        tab->timeline()->view()->setSelection(std::nullopt);
        QTRY_VERIFY_WITH_TIMEOUT(view->annotation() && view->annotation()->total[0] == whole, kPatienceMs);
        QCOMPARE(sourceSelf(), whole);
        QCOMPARE(view->disassembled(), disassembled);
    }

    /// Folded stacks keep no addresses: no Disassembly tab.
    void noTabWithoutAddresses() {
        ProfileTab tab(scorch::test::testData(QStringLiteral("gui/small.folded")));
        tab.show();
        QVERIFY(waitLoaded(&tab));
        QVERIFY(!tab.detailTabs()->isTabVisible(1));
    }
};

QTEST_MAIN(TestDisassembly)
#include "tst_disassembly.moc"
