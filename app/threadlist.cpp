#include "threadlist.h"

#include "common/qtprofile.h"

#include <QFontMetrics>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QStyle>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace scorch {

namespace {

enum Column { NameColumn, SamplesColumn, PidColumn, TidColumn, ColumnCount };
constexpr int kThreadRole = Qt::UserRole + 1;

/// A tree item that sorts numeric columns as numbers.
class ThreadItem final : public QTreeWidgetItem {
public:
    using QTreeWidgetItem::QTreeWidgetItem;
    bool operator<(const QTreeWidgetItem& other) const override {
        const int column = treeWidget() ? treeWidget()->sortColumn() : 0;
        if (column == NameColumn)
            return text(column).localeAwareCompare(other.text(column)) < 0;
        return data(column, Qt::UserRole).toLongLong() < other.data(column, Qt::UserRole).toLongLong();
    }
};

QString idText(int64_t id) {
    return id >= 0 ? QString::number(id) : QString();
}

} // namespace

ThreadList::ThreadList(QWidget* parent)
    : QWidget(parent)
    , m_filter(new QLineEdit(this))
    , m_tree(new QTreeWidget(this))
    , m_settle(new QTimer(this)) {
    m_tree->setColumnCount(ColumnCount);
    m_tree->setHeaderLabels({tr("Thread"), tr("Samples"), tr("PID"), tr("TID")});
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->setSectionResizeMode(NameColumn, QHeaderView::Stretch);
    m_tree->header()->setStretchLastSection(false);
    m_tree->setToolTip(tr("Check the threads the chart and tables sum over"));
    m_settle->setSingleShot(true);
    m_settle->setInterval(150);
    connect(m_settle, &QTimer::timeout, this, &ThreadList::settle);
    connect(m_tree, &QTreeWidget::itemChanged, this, &ThreadList::itemChanged);
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_tree, &QWidget::customContextMenuRequested, this, &ThreadList::showContextMenu);
    m_filter->setPlaceholderText(tr("Filter threads (name, PID, TID)"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setToolTip(tr("Shows the threads whose name, PID or TID contains this text; their check boxes "
                            "stay as they are"));
    m_filter->hide();
    connect(m_filter, &QLineEdit::textChanged, this, &ThreadList::applyFilter);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_filter);
    layout->addWidget(m_tree);
}

void ThreadList::applyFilter() {
    if (!m_all)
        return;
    const QString text = m_filter->text().trimmed();
    for (int i = 0; i < m_all->childCount(); ++i) {
        QTreeWidgetItem* item = m_all->child(i);
        bool match = text.isEmpty();
        for (int c = NameColumn; !match && c < ColumnCount; ++c)
            match = c != SamplesColumn && item->text(c).contains(text, Qt::CaseInsensitive);
        item->setHidden(!match);
    }
}

void ThreadList::showOnlyMatching() {
    if (!m_all)
        return;
    {
        const QSignalBlocker blocker(m_tree);
        for (int i = 0; i < m_all->childCount(); ++i)
            m_all->child(i)->setCheckState(NameColumn,
                                           m_all->child(i)->isHidden() ? Qt::Unchecked : Qt::Checked);
    }
    settle();
}

void ThreadList::updateFilterVisibility() {
    // A filter box once the threads are more than a screenful of the list (a box that is in use stays).
    const int threads = m_all ? m_all->childCount() : 0;
    const int row =
        std::max(1, m_tree->sizeHintForRow(0) > 0 ? m_tree->sizeHintForRow(0) : fontMetrics().height());
    const int fits =
        std::max(1, (height() - m_tree->header()->height()) / row - 1); // "All threads" takes a row
    m_filter->setVisible(threads > fits || !m_filter->text().isEmpty());
}

void ThreadList::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    updateFilterVisibility();
}

void ThreadList::setProfile(const Profile& profile) {
    const QSignalBlocker blocker(m_tree);
    m_tree->clear();
    m_last.clear();
    m_all = new QTreeWidgetItem(m_tree, {tr("All threads")});
    m_all->setFlags(m_all->flags() | Qt::ItemIsUserCheckable | Qt::ItemIsAutoTristate);
    m_all->setCheckState(NameColumn, Qt::Checked);
    uint64_t samples = 0;
    bool anyPid = false, anyTid = false;
    for (uint32_t i = 0; i < profile.threads.size(); ++i) {
        const ThreadInfo& t = profile.threads[i];
        const QString name = t.name.empty() ? tr("(unnamed)") : displayText(t.name);
        auto* item = new ThreadItem(m_all, {name, QString::number(t.samples), idText(t.pid), idText(t.tid)});
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(NameColumn, Qt::Checked);
        item->setData(NameColumn, kThreadRole, i);
        item->setData(SamplesColumn, Qt::UserRole, static_cast<qulonglong>(t.samples));
        item->setData(PidColumn, Qt::UserRole, static_cast<qlonglong>(t.pid));
        item->setData(TidColumn, Qt::UserRole, static_cast<qlonglong>(t.tid));
        item->setTextAlignment(SamplesColumn, Qt::AlignRight | Qt::AlignVCenter);
        samples += t.samples;
        anyPid = anyPid || t.pid >= 0;
        anyTid = anyTid || t.tid >= 0;
    }
    m_tree->setColumnHidden(PidColumn, !anyPid); // perf script without -F pid, folded stacks
    m_tree->setColumnHidden(TidColumn, !anyTid);
    m_all->setText(SamplesColumn, QString::number(samples));
    m_all->setTextAlignment(SamplesColumn, Qt::AlignRight | Qt::AlignVCenter);
    m_tree->setSortingEnabled(true); // busiest first; the header sorts by any column
    m_tree->sortByColumn(SamplesColumn, Qt::DescendingOrder);
    m_tree->expandAll();
    for (int c = SamplesColumn; c < ColumnCount; ++c)
        m_tree->resizeColumnToContents(c);
    applyFilter(); // a new profile of the same file keeps the filter
    updateFilterVisibility();
}

std::vector<uint32_t> ThreadList::selectedThreads() const {
    std::vector<uint32_t> out;
    if (!m_all || m_all->checkState(NameColumn) == Qt::Checked)
        return out;
    for (int i = 0; i < m_all->childCount(); ++i)
        if (m_all->child(i)->checkState(NameColumn) == Qt::Checked)
            out.push_back(m_all->child(i)->data(NameColumn, kThreadRole).toUInt());
    std::sort(out.begin(), out.end());
    return out;
}

void ThreadList::showOnly(uint32_t thread) {
    if (selectedThreads() != std::vector<uint32_t>{thread})
        toggleOnly(thread);
}

int ThreadList::preferredWidth() const {
    int name = m_tree->header()->fontMetrics().horizontalAdvance(m_tree->headerItem()->text(NameColumn));
    const QFontMetrics fm = m_tree->fontMetrics();
    if (m_all) {
        name = std::max(name, fm.horizontalAdvance(m_all->text(NameColumn)));
        for (int i = 0; i < m_all->childCount(); ++i)
            name = std::max(name,
                            fm.horizontalAdvance(m_all->child(i)->text(NameColumn)) + m_tree->indentation());
    }
    // The expand arrow's indentation, the check box and the cell margins.
    name += m_tree->indentation() + style()->pixelMetric(QStyle::PM_IndicatorWidth) + 24;
    int numbers = 0;
    for (int c = SamplesColumn; c < ColumnCount; ++c)
        if (!m_tree->isColumnHidden(c))
            numbers += m_tree->header()->sectionSize(c);
    return name + numbers + 2 * m_tree->frameWidth() + style()->pixelMetric(QStyle::PM_ScrollBarExtent);
}

void ThreadList::showContextMenu(const QPoint& pos) {
    QTreeWidgetItem* item = m_tree->itemAt(pos);
    if (!m_all)
        return;
    QMenu menu(this);
    if (item && item != m_all) {
        const uint32_t thread = item->data(NameColumn, kThreadRole).toUInt();
        menu.addAction(tr("Show Only This Thread"), this, [this, thread] { showOnly(thread); });
    }
    if (!m_filter->text().trimmed().isEmpty())
        menu.addAction(tr("Show Only Matching Threads"), this, &ThreadList::showOnlyMatching);
    menu.addAction(tr("Show All Threads"), this, [this] {
        {
            const QSignalBlocker blocker(m_tree);
            m_all->setCheckState(NameColumn, Qt::Checked);
            for (int i = 0; i < m_all->childCount(); ++i)
                m_all->child(i)->setCheckState(NameColumn, Qt::Checked);
        }
        settle();
    });
    menu.exec(m_tree->viewport()->mapToGlobal(pos));
}

void ThreadList::toggleOnly(uint32_t thread) {
    if (!m_all)
        return;
    const bool alone = selectedThreads() == std::vector<uint32_t>{thread};
    {
        const QSignalBlocker blocker(m_tree);
        for (int i = 0; i < m_all->childCount(); ++i) {
            QTreeWidgetItem* item = m_all->child(i);
            const bool on = alone || item->data(NameColumn, kThreadRole).toUInt() == thread;
            item->setCheckState(NameColumn, on ? Qt::Checked : Qt::Unchecked);
        }
    }
    settle(); // at once: the click was one deliberate change
}

void ThreadList::itemChanged() {
    m_settle->start(); // one update per burst: a click on "All threads" changes every child
}

void ThreadList::settle() {
    if (m_all && m_all->checkState(NameColumn) == Qt::Unchecked) {
        // No thread at all would be an empty chart; fall back to all threads.
        const QSignalBlocker blocker(m_tree);
        m_all->setCheckState(NameColumn, Qt::Checked);
    }
    std::vector<uint32_t> threads = selectedThreads();
    if (threads == m_last)
        return;
    m_last = threads;
    Q_EMIT threadsChanged(std::move(threads));
}

} // namespace scorch
