#include "welcomepage.h"

#include "common/qtprofile.h"
#include "profilefilters.h"

#include <QFileInfo>
#include <QFont>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace scorch {

namespace {

QPushButton* actionButton(const QString& text, const QString& hint, QWidget* parent) {
    auto* b = new QPushButton(text, parent);
    b->setToolTip(hint);
    b->setMinimumHeight(b->sizeHint().height() * 3 / 2);
    return b;
}

} // namespace

WelcomePage::WelcomePage(QWidget* parent)
    : QWidget(parent)
    , m_open(actionButton(tr("&Open…"),
                          tr("Open profiles (%1); or drop files on the window")
                              .arg(QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText)),
                          this))
    , m_record(actionButton(tr("&Record / Attach…"),
                            tr("Sample a running process or a command, with a live flame graph (Ctrl+R)"),
                            this))
    , m_compare(actionButton(tr("&Compare…"),
                             tr("Compare two profiles: differential and side-by-side flame graphs"), this))
    , m_recentTitle(new QLabel(tr("Recent files"), this))
    , m_recent(new QListWidget(this))
    , m_formats(new QLabel(this)) {
    setObjectName(QStringLiteral("welcome"));
    auto* title = new QLabel(tr("Scorch"), this);
    QFont big = title->font();
    big.setPointSizeF(big.pointSizeF() * 2);
    big.setBold(true);
    title->setFont(big);
    auto* tagline = new QLabel(tr("Flame graphs and call trees of CPU profiles"), this);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_open);
    buttons->addWidget(m_record);
    buttons->addWidget(m_compare);

    QFont bold = m_recentTitle->font();
    bold.setBold(true);
    m_recentTitle->setFont(bold);
    m_recent->setObjectName(QStringLiteral("recentFiles"));
    m_recent->setTextElideMode(Qt::ElideMiddle); // keeps the file name at the end of a long path
    m_recent->setUniformItemSizes(true);
    m_recent->setMaximumHeight(m_recent->fontMetrics().height() * 14); // about ten files: no empty box

    m_formats->setObjectName(QStringLiteral("formats"));
    m_formats->setWordWrap(true);
    m_formats->setTextFormat(Qt::PlainText);
    m_formats->setText(tr("Scorch opens %1; also compressed with gzip, zstd or xz. The format is recognised "
                          "from the content, whatever the file is called.")
                           .arg(profileFormatNames().join(QStringLiteral(", "))));

    auto* column = new QVBoxLayout;
    column->addWidget(title);
    column->addWidget(tagline);
    column->addSpacing(16);
    column->addLayout(buttons);
    column->addSpacing(16);
    column->addWidget(m_recentTitle);
    column->addWidget(m_recent);
    column->addSpacing(8);
    column->addWidget(m_formats);

    auto* centre = new QWidget(this);
    centre->setLayout(column);
    centre->setMaximumWidth(760);
    auto* row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(centre, 4);
    row->addStretch(1);
    auto* outer = new QVBoxLayout(this);
    outer->addStretch(1);
    outer->addLayout(row);
    outer->addStretch(1);

    connect(m_open, &QPushButton::clicked, this, &WelcomePage::openRequested);
    connect(m_record, &QPushButton::clicked, this, &WelcomePage::recordRequested);
    connect(m_compare, &QPushButton::clicked, this, &WelcomePage::compareRequested);
    connect(m_recent, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { Q_EMIT recentActivated(item->data(Qt::UserRole).toString()); });
    connect(m_recent, &QListWidget::itemClicked, this,
            [this](QListWidgetItem* item) { Q_EMIT recentActivated(item->data(Qt::UserRole).toString()); });
}

void WelcomePage::setRecentFiles(const QStringList& paths) {
    m_recent->clear();
    for (const QString& path : paths) {
        auto* item = new QListWidgetItem(
            QStringLiteral("%1   —   %2")
                .arg(displayText(QFileInfo(path).fileName()), displayText(QFileInfo(path).absolutePath())),
            m_recent);
        item->setData(Qt::UserRole, path);
        item->setToolTip(displayText(path));
    }
    m_recentTitle->setVisible(!paths.isEmpty());
    m_recent->setVisible(!paths.isEmpty());
}

} // namespace scorch
