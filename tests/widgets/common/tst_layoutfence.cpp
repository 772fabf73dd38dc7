// LayoutFence: the fenced widget fills the fence; a changed text that still fits does not re-activate the
// layouts above (the tab widget above it is not repainted), a change of height or a minimum width that no
// longer fits is passed up at once, a narrower minimum when the window is narrowed to the old one;
// word-wrapped text gets its height for the fence's width; the fence is hidden and shown with the fenced
// widget.
#include "common/layoutfence.h"
#include "patience.h"
#include "widgettestutil.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QTabWidget>
#include <QTest>
#include <QVBoxLayout>

using namespace scorch;
using scorch::test::kPatienceMs;

namespace {

void settle() {
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
}

/// A window: a tab widget whose page holds a bar of two labels, fenced or not, above a filler.
struct Window {
    QWidget top;
    QTabWidget* tabs = new QTabWidget(&top);
    QWidget* page = new QWidget;
    QWidget* bar = new QWidget;
    QLabel* label = new QLabel(QStringLiteral("12,345 samples"), bar);
    QLabel* other = new QLabel(QStringLiteral("cpu-clock"), bar);
    QWidget* filler = new QWidget(page);
    LayoutFence* fence = nullptr;

    explicit Window(bool fenced) {
        auto* barLayout = new QHBoxLayout(bar);
        barLayout->addWidget(label);
        barLayout->addWidget(other);
        barLayout->addStretch(1);
        auto* pageLayout = new QVBoxLayout(page);
        if (fenced) {
            fence = new LayoutFence(bar, page);
            pageLayout->addWidget(fence);
        } else {
            pageLayout->addWidget(bar);
        }
        pageLayout->addWidget(filler, 1);
        tabs->addTab(page, QStringLiteral("Profile"));
        tabs->addTab(new QWidget, QStringLiteral("Summary"));
        (new QVBoxLayout(&top))->addWidget(tabs);
        top.resize(800, 400);
        top.show();
    }
};

} // namespace

class TestLayoutFence : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void newTextsRepaintOnlyTheBar_data() {
        QTest::addColumn<bool>("fenced");
        QTest::newRow("fenced") << true;
        QTest::newRow("not fenced (Qt repaints the tab widget)") << false;
    }
    void newTextsRepaintOnlyTheBar() {
        QFETCH(bool, fenced);
        Window w(fenced);
        QVERIFY(QTest::qWaitForWindowExposed(&w.top));
        settle();
        scorch::test::EventCounter paints(QEvent::Paint);
        paints.watch(w.tabs->tabBar()).watch(w.filler).watch(w.other);
        const auto paintsOf = [&](QObject* o) {
            return paints.counts[o];
        };
        for (int i = 0; i < 5; ++i) {
            w.label->setText(QStringLiteral("%1 of 12,345 samples").arg(1000 * (i + 1)));
            settle();
        }
        if (fenced) {
            QCOMPARE(paintsOf(w.tabs->tabBar()), 0);
            QCOMPARE(paintsOf(w.filler), 0);
            QVERIFY(paintsOf(w.other) > 0); // moved by the longer label, within the bar
            QCOMPARE(w.fence->passedUp(), 0);
            QCOMPARE(w.bar->geometry(), w.fence->rect());
            QVERIFY(w.label->width() >= w.label->sizeHint().width());
        } else {
            QVERIFY(paintsOf(w.tabs->tabBar()) > 0);
        }
    }

    void heightPassedUpAtOnce() {
        Window w(true);
        QVERIFY(QTest::qWaitForWindowExposed(&w.top));
        settle();
        const int before = w.fence->height();
        QFont big = w.label->font();
        big.setPointSize(big.pointSize() * 3);
        w.label->setFont(big);
        settle();
        QCOMPARE(w.fence->passedUp(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(w.fence->height() > before, kPatienceMs);
        QCOMPARE(w.fence->height(), w.bar->sizeHint().height());
        QCOMPARE(w.bar->geometry(), w.fence->rect());
    }

    void minimumWidthPassedUp() {
        Window w(true);
        QVERIFY(QTest::qWaitForWindowExposed(&w.top));
        settle();
        // wider than the window: the layouts above must know at once
        w.label->setText(QString(300, QLatin1Char('x')));
        settle();
        QCOMPARE(w.fence->passedUp(), 1);
        QCOMPARE(w.fence->minimumSizeHint().width(), w.bar->minimumSizeHint().width());
        QTRY_VERIFY_WITH_TIMEOUT(w.top.width() >= w.bar->minimumSizeHint().width(), kPatienceMs);
        const int wide = w.fence->minimumSizeHint().width();
        w.top.resize(w.top.width() + 200, w.top.height());
        settle();
        QTRY_VERIFY_WITH_TIMEOUT(w.fence->width() > wide, kPatienceMs);
        // narrower again: not passed up while the window is wider than the old minimum anyway
        w.label->setText(QStringLiteral("short"));
        settle();
        QCOMPARE(w.fence->passedUp(), 1);
        QCOMPARE(w.fence->minimumSizeHint().width(), wide);
        // the window narrowed to the old minimum: passed up, and the window can be narrower still
        w.top.resize(0, w.top.height()); // (the layouts keep it at its minimum width)
        settle();
        QTRY_COMPARE_WITH_TIMEOUT(w.fence->passedUp(), 2, kPatienceMs);
        QCOMPARE(w.fence->minimumSizeHint().width(), w.bar->minimumSizeHint().width());
        w.top.resize(0, w.top.height());
        settle();
        QTRY_VERIFY_WITH_TIMEOUT(w.fence->width() < wide, kPatienceMs);
    }

    // a word-wrapped text is as high as its lines at the fence's width, not at the label's preferred width
    void wrappedTextHeightForWidth() {
        QWidget top;
        auto* label = new QLabel(QString(40, QLatin1Char('w')).append(QLatin1Char(' ')).repeated(12));
        label->setWordWrap(true);
        auto* fence = new LayoutFence(label, &top);
        auto* layout = new QVBoxLayout(&top);
        layout->addWidget(fence);
        layout->addStretch(1);
        top.resize(1500, 600);
        top.show();
        QVERIFY(QTest::qWaitForWindowExposed(&top));
        QVERIFY(fence->hasHeightForWidth());
        QTRY_COMPARE_WITH_TIMEOUT(fence->height(), label->heightForWidth(fence->width()), kPatienceMs);
        const int wide = fence->height();
        top.resize(500, 600);
        QTRY_COMPARE_WITH_TIMEOUT(fence->height(), label->heightForWidth(fence->width()), kPatienceMs);
        QVERIFY(fence->height() > wide);
        // more text: more lines at once
        label->setText(label->text().repeated(2));
        const int before = fence->height();
        settle();
        QTRY_COMPARE_WITH_TIMEOUT(fence->height(), label->heightForWidth(fence->width()), kPatienceMs);
        QVERIFY(fence->height() > before);
    }

    void shownAndHiddenWithItsContent() {
        Window w(true);
        QVERIFY(QTest::qWaitForWindowExposed(&w.top));
        QVERIFY(w.fence->isVisible());
        const int fillerHeight = w.filler->height();
        w.bar->hide();
        QVERIFY(w.fence->isHidden());
        QTRY_VERIFY_WITH_TIMEOUT(w.filler->height() > fillerHeight, kPatienceMs);
        w.bar->show();
        QVERIFY(w.fence->isVisible());
        QTRY_COMPARE_WITH_TIMEOUT(w.filler->height(), fillerHeight, kPatienceMs);
        // a widget hidden before it is fenced starts hidden
        auto* hidden = new QLabel(QStringLiteral("banner"));
        hidden->hide();
        LayoutFence fence(hidden, w.page);
        QVERIFY(fence.isHidden());
    }
};

QTEST_MAIN(TestLayoutFence)
#include "tst_layoutfence.moc"
