#include "disasm/disassemblyview.h"

#include "common/qtprofile.h"

#include "scorch/costs.h"

#include <QFileInfo>
#include <QFontDatabase>
#include <QFontMetrics>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace scorch {

namespace {

constexpr int kAddressRole = Qt::UserRole + 1;
constexpr int kTargetRole = Qt::UserRole + 2;

QString hex(uint64_t v) {
    return QString::number(v, 16);
}

} // namespace

DisassemblyView::DisassemblyView(QWidget* parent)
    : QWidget(parent)
    , m_info(new QLabel(this))
    , m_tree(new QTreeWidget(this)) {
    m_info->setWordWrap(true);
    m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_info->setText(tr("Select a frame to see its instructions."));
    m_tree->setRootIsDecorated(false);
    m_tree->setUniformRowHeights(true);
    m_tree->setAllColumnsShowFocus(true);
    m_tree->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_tree->header()->setStretchLastSection(true);
    m_tree->setHeaderHidden(true); // until there are instructions (an empty tree's header reads "1")
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_info);
    layout->addWidget(m_tree, 1);
    connect(m_tree, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
        const QVariant target = item->data(InstructionColumn, kTargetRole);
        if (target.isValid())
            goToAddress(target.toULongLong());
    });
}

DisassemblyView::~DisassemblyView() = default;

void DisassemblyView::setProfile(std::shared_ptr<const Profile> profile, std::size_t costType) {
    const bool same = profile == m_profile;
    m_profile = std::move(profile);
    m_costType = costType;
    if (same && m_annotation)
        fill(); // the same instructions, another cost type to find the hottest by
    else {
        m_job.drop();
        m_annotation.reset();
        m_frame = FrameId{};
        m_tree->clear();
        m_tree->setHeaderHidden(true);
        m_info->setText(tr("Select a frame to see its instructions."));
    }
}

void DisassemblyView::setCosts(std::shared_ptr<const Profile> profile, bool range) {
    if (profile == m_profile)
        return;
    m_profile = std::move(profile);
    m_range = range;
    m_job.drop();
    // in view: the same instructions with the new costs, not disassembled again for each range dragged
    if (m_annotation && isVisible() && recost(*m_annotation, *m_profile, m_frame)) {
        fill();
        Q_EMIT ready();
        return;
    }
    m_annotation.reset();
    const FrameId frame = m_frame;
    if (frame.value != 0 && isVisible()) {
        m_frame = FrameId{};
        showFrame(frame);
    }
}

void DisassemblyView::showFrame(FrameId frame) {
    if (!m_profile || (frame == m_frame && m_annotation))
        return;
    m_frame = frame;
    m_annotation.reset();
    m_tree->clear();
    m_tree->setHeaderHidden(true);
    const QString name = frameDisplayName(*m_profile, frame);
    if (!hasAddressCosts(*m_profile, frame)) {
        m_info->setText(m_range && m_profile->addressCosts.size() > 0
                            ? tr("No samples of %1 in the selected time range.").arg(name.toHtmlEscaped())
                            : tr("No instructions for %1: only perf.data recordings and Scorch recordings "
                                 "keep the address of every sample.")
                                  .arg(name.toHtmlEscaped()));
        Q_EMIT ready();
        return;
    }
    m_info->setText(tr("Disassembling %1…").arg(name.toHtmlEscaped()));
    ++m_disassembled;
    m_job.start(
        [profile = m_profile, frame,
         sources = m_sources](JobContext&) -> std::pair<std::optional<Annotation>, QString> {
            try {
                Annotation a = annotate(*profile, frame);
                addSourceText(a, sources);
                return {std::move(a), QString()};
            } catch (const DisasmError& e) {
                return {std::nullopt, displayText(std::string_view(e.what()))};
            }
        },
        [this](std::pair<std::optional<Annotation>, QString> result) {
            m_annotation = std::move(result.first);
            if (!m_annotation)
                m_info->setText(result.second);
            else
                fill();
            Q_EMIT ready();
        });
}

void DisassemblyView::fill() {
    m_tree->clear();
    m_tree->setHeaderHidden(false);
    const Profile& p = *m_profile;
    const Annotation& a = *m_annotation;
    QStringList headers{tr("Address"), tr("Instruction"), tr("Source")};
    for (const CostType& t : p.costTypes)
        headers << displayText(t.name);
    m_tree->setColumnCount(static_cast<int>(headers.size()));
    m_tree->setHeaderLabels(headers);
    // the cost columns first, as in the tables: move the sections, keep the column numbers
    for (int c = 0; c < static_cast<int>(p.costTypes.size()); ++c)
        m_tree->header()->moveSection(m_tree->header()->visualIndex(FirstCostColumn + c), c);
    const std::size_t types = std::min(p.costTypes.size(), a.total.size());
    QFont italic = m_tree->font();
    italic.setItalic(true);
    QList<QTreeWidgetItem*> items;
    items.reserve(static_cast<qsizetype>(a.instructions.size()));
    // the source lines a step lighter than the instructions, readable on light and dark palettes
    const QColor text = palette().color(QPalette::Text), base = palette().color(QPalette::Base);
    const QColor sourceColor =
        QColor::fromRgbF(text.redF() * 0.6f + base.redF() * 0.4f, text.greenF() * 0.6f + base.greenF() * 0.4f,
                         text.blueF() * 0.6f + base.blueF() * 0.4f);
    const AnnotatedInstruction* previous = nullptr;
    for (const AnnotatedInstruction& i : a.instructions) {
        // the source line, between the instructions, where it changes (as perf annotate shows it)
        if (!i.file.empty() && (!previous || previous->file != i.file || previous->line != i.line)) {
            auto* line = new QTreeWidgetItem;
            QString text = QFileInfo(displayText(i.file)).fileName() + u':' + QString::number(i.line);
            if (!i.sourceText.empty())
                text += QStringLiteral("   ") + displayText(i.sourceText).trimmed();
            line->setText(0, text);
            line->setToolTip(0, displayText(i.file) + u':' + QString::number(i.line));
            line->setForeground(0, sourceColor);
            line->setFlags(Qt::ItemIsEnabled);
            items << line;
        }
        previous = &i;
        auto* item = new QTreeWidgetItem;
        item->setText(AddressColumn, hex(i.address));
        item->setData(AddressColumn, kAddressRole, QVariant::fromValue<qulonglong>(i.address));
        item->setText(InstructionColumn,
                      QString::fromStdString(i.mnemonic + (i.operands.empty() ? "" : " ") + i.operands));
        if (i.jumpTarget && *i.jumpTarget >= a.start && *i.jumpTarget < a.end) {
            item->setData(InstructionColumn, kTargetRole, QVariant::fromValue<qulonglong>(*i.jumpTarget));
            item->setToolTip(InstructionColumn, tr("Double-click to go to %1").arg(hex(*i.jumpTarget)));
        }
        if (!i.file.empty()) {
            QString source = QFileInfo(displayText(i.file)).fileName() + u':' + QString::number(i.line);
            QString tip = displayText(i.file) + u':' + QString::number(i.line);
            if (!i.inlined.empty()) {
                source += tr(" (inlined %1)").arg(shortDisplayName(displayText(i.inlined)));
                tip += u'\n' + tr("inlined from %1").arg(displayText(i.inlined));
            }
            item->setText(SourceColumn, source);
            item->setToolTip(SourceColumn, tip);
        }
        if (!i.inlined.empty())
            for (int c = 0; c < FirstCostColumn; ++c)
                item->setFont(c, italic);
        for (std::size_t t = 0; t < types; ++t) {
            if (i.self[t] == 0)
                continue;
            const int column = FirstCostColumn + static_cast<int>(t);
            const double share =
                a.total[t] ? 100.0 * static_cast<double>(i.self[t]) / static_cast<double>(a.total[t]) : 0;
            item->setText(column, QStringLiteral("%1%").arg(share, 0, 'f', 1));
            item->setToolTip(column, costWithPercent(p, t, i.self[t], a.total[t]));
            item->setTextAlignment(column, Qt::AlignRight | Qt::AlignVCenter);
        }
        items << item;
    }
    m_tree->addTopLevelItems(items);
    for (QTreeWidgetItem* item : items)
        if (!isInstruction(item))
            item->setFirstColumnSpanned(true);
    const QFontMetrics header(m_tree->header()->font());
    for (int c = 0; c < m_tree->columnCount(); ++c) {
        if (c == SourceColumn) // the last one shown: it stretches
            continue;
        m_tree->resizeColumnToContents(c); // the cells; the header's text too, with room for a sort arrow
        m_tree->setColumnWidth(
            c, std::max(m_tree->columnWidth(c), header.horizontalAdvance(headers.at(c)) + 24));
    }
    const std::size_t type = std::min(m_costType, types ? types - 1 : 0);
    QString info =
        tr("<b>%1</b> in %2: %3 at its instructions")
            .arg(shortDisplayName(displayText(a.function)).toHtmlEscaped(),
                 displayText(QFileInfo(QString::fromStdString(a.module)).fileName()).toHtmlEscaped(),
                 types ? QString::fromStdString(formatCost(a.total[type], p.costTypes[type])).toHtmlEscaped()
                       : QString());
    if (types && a.outside[type] != 0)
        info +=
            tr(", %1 at addresses that start no instruction")
                .arg(QString::fromStdString(formatCost(a.outside[type], p.costTypes[type])).toHtmlEscaped());
    m_info->setText(info);
    m_info->setToolTip(displayText(a.function) + u'\n' + displayText(a.module));
    if (!a.instructions.empty() && types)
        goToAddress(a.instructions[a.hottest(type)].address);
}

bool DisassemblyView::isInstruction(const QTreeWidgetItem* item) {
    return item && item->data(AddressColumn, kAddressRole).isValid();
}

bool DisassemblyView::goToAddress(uint64_t address) {
    for (int r = 0; r < m_tree->topLevelItemCount(); ++r) {
        QTreeWidgetItem* item = m_tree->topLevelItem(r);
        if (item->data(AddressColumn, kAddressRole).toULongLong() == address) {
            m_tree->setCurrentItem(item);
            m_tree->scrollToItem(item, QAbstractItemView::PositionAtCenter);
            // (vertically only: scrolling to the address column would cut off the cost columns before it)
            m_tree->horizontalScrollBar()->setValue(m_tree->horizontalScrollBar()->minimum());
            return true;
        }
    }
    return false;
}

} // namespace scorch
