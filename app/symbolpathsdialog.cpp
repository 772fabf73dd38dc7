#include "symbolpathsdialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace scorch {

SymbolPathsDialog::SymbolPathsDialog(const Paths& paths, QWidget* parent)
    : QDialog(parent)
    , m_search(new QListWidget(this))
    , m_debug(new QListWidget(this))
    , m_sysroot(new QLineEdit(paths.sysroot, this))
    , m_debuginfod(new QLineEdit(paths.debuginfod, this)) {
    setWindowTitle(tr("Symbol Paths"));
    m_search->setObjectName(QStringLiteral("searchPaths"));
    m_debug->setObjectName(QStringLiteral("debugDirs"));
    m_sysroot->setObjectName(QStringLiteral("sysroot"));
    m_sysroot->setPlaceholderText(tr("none: recorded paths are read as they are"));
    m_debuginfod->setObjectName(QStringLiteral("debuginfod"));
    m_debuginfod->setPlaceholderText(tr("none, e.g. https://debuginfod.debian.net"));
    m_debuginfod->setToolTip(
        tr("Binaries and debug info that are not found on this machine are fetched by build-id from these "
           "servers (space-separated URLs, as DEBUGINFOD_URLS) and cached."));
    for (const QString& d : paths.searchPaths)
        addTo(m_search, d);
    for (const QString& d : paths.debugDirs)
        addTo(m_debug, d);

    auto* intro = new QLabel(
        tr("Where the binaries and debug info of perf.data files and Scorch recordings are looked for, "
           "besides the paths in the recording, /usr/lib/debug and perf's build-id cache (~/.debug); then "
           "they are fetched from the debuginfod servers by build-id. "
           "A file is only used when its build-id matches the recorded one. Applies to profiles opened from "
           "now on."),
        this);
    intro->setWordWrap(true);

    auto* sysrootRow = new QWidget(this);
    auto* sysrootLayout = new QHBoxLayout(sysrootRow);
    sysrootLayout->setContentsMargins(0, 0, 0, 0);
    auto* browse = new QPushButton(tr("Browse…"), sysrootRow);
    sysrootLayout->addWidget(m_sysroot);
    sysrootLayout->addWidget(browse);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Sysroot"), m_sysroot->text());
        if (!dir.isEmpty())
            m_sysroot->setText(dir);
    });

    auto* form = new QFormLayout;
    form->addRow(tr("Module search directories:"), listEditor(m_search, tr("Module Search Directory")));
    form->addRow(tr("Debug-info directories:"), listEditor(m_debug, tr("Debug-Info Directory")));
    form->addRow(tr("Sysroot:"), sysrootRow);
    form->addRow(tr("debuginfod servers:"), m_debuginfod);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(buttons);
    resize(620, 420);
}

QWidget* SymbolPathsDialog::listEditor(QListWidget* list, const QString& what) {
    auto* box = new QWidget(this);
    auto* add = new QPushButton(tr("Add…"), box);
    auto* remove = new QPushButton(tr("Remove"), box);
    remove->setEnabled(false);
    auto* buttons = new QVBoxLayout;
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addStretch();
    auto* layout = new QHBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(list);
    layout->addLayout(buttons);
    list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    connect(add, &QPushButton::clicked, this, [this, list, what] {
        addTo(list, QFileDialog::getExistingDirectory(this, what, QDir::homePath()));
    });
    connect(remove, &QPushButton::clicked, list, [list] { qDeleteAll(list->selectedItems()); });
    connect(list, &QListWidget::itemSelectionChanged, remove,
            [list, remove] { remove->setEnabled(!list->selectedItems().isEmpty()); });
    return box;
}

void SymbolPathsDialog::addTo(QListWidget* list, const QString& dir) {
    const QString clean = dir.isEmpty() ? QString() : QDir::cleanPath(dir);
    if (clean.isEmpty() || !list->findItems(clean, Qt::MatchExactly).isEmpty())
        return;
    list->addItem(clean);
}

void SymbolPathsDialog::addSearchPath(const QString& dir) {
    addTo(m_search, dir);
}

void SymbolPathsDialog::addDebugDir(const QString& dir) {
    addTo(m_debug, dir);
}

SymbolPathsDialog::Paths SymbolPathsDialog::paths() const {
    Paths p;
    for (int i = 0; i < m_search->count(); ++i)
        p.searchPaths << m_search->item(i)->text();
    for (int i = 0; i < m_debug->count(); ++i)
        p.debugDirs << m_debug->item(i)->text();
    const QString sysroot = m_sysroot->text().trimmed();
    p.sysroot = sysroot.isEmpty() ? QString() : QDir::cleanPath(sysroot);
    p.debuginfod = m_debuginfod->text().simplified();
    return p;
}

} // namespace scorch
