#include "mainwindow.h"

#include "cli/comparearguments.h"
#include "common/heaptrim.h"
#include "common/qtprofile.h"
#include "compare/compareview.h"
#include "comparedialog.h"
#include "comparetab.h"
#include "flame/flamegraphpanel.h"
#include "profilefilters.h"
#include "profiletab.h"
#include "record/recorddialog.h"
#include "symbolpaths.h"
#include "welcomepage.h"

#include <QAction>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace scorch {

namespace {

constexpr int kMaxRecent = 10;
const auto kRecentKey = QStringLiteral("recentFiles");
const auto kGeometryKey = QStringLiteral("window/geometry");
const auto kStateKey = QStringLiteral("window/state");

/// Local files among dropped URLs.
QStringList localFiles(const QMimeData* mime) {
    QStringList files;
    if (!mime || !mime->hasUrls())
        return files;
    const QList<QUrl> urls = mime->urls();
    for (const QUrl& url : urls)
        if (url.isLocalFile())
            files << url.toLocalFile();
    return files;
}

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_central(new QStackedWidget(this))
    , m_welcome(new WelcomePage(this))
    , m_tabs(new QTabWidget(this)) {
    setWindowTitle(tr("Scorch"));
    setAcceptDrops(true);
    connect(m_welcome, &WelcomePage::openRequested, this, &MainWindow::showOpenDialog);
    connect(m_welcome, &WelcomePage::recordRequested, this, &MainWindow::showRecordDialog);
    connect(m_welcome, &WelcomePage::compareRequested, this, &MainWindow::showCompareDialog);
    connect(m_welcome, &WelcomePage::recentActivated, this, &MainWindow::openFile);
    m_tabs->setTabsClosable(true);
    m_tabs->setMovable(true);
    m_tabs->setDocumentMode(true);
    m_central->addWidget(m_welcome);
    m_central->addWidget(m_tabs);
    setCentralWidget(m_central);
    connect(m_tabs, &QTabWidget::tabCloseRequested, this, &MainWindow::closeTab);
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::updateStatus);
    createFileMenu();
    createViewMenu();
    createHelpMenu();
    createStatusWidgets();
    restoreSettings();
    updateStatus();
}

MainWindow::~MainWindow() = default;

void MainWindow::createFileMenu() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::showOpenDialog);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_recentMenu->setObjectName(QStringLiteral("recentMenu"));
    updateRecentMenu();
    file->addAction(tr("&Compare…"), this, &MainWindow::showCompareDialog)
        ->setToolTip(
            tr("Compare two profiles (open tabs or files): differential and side-by-side flame graphs"));
    file->addAction(tr("&Record…"), QKeySequence(Qt::CTRL | Qt::Key_R), this, &MainWindow::showRecordDialog);
    m_exportMenu = file->addMenu(tr("&Export"));
    addExportActions(m_exportMenu, [this](ExportKind kind) { showExportDialog(kind); });
    file->addSeparator();
    file->addAction(tr("Symbol &Paths…"), this, &MainWindow::showSymbolPathsDialog)
        ->setToolTip(tr("Where binaries and debug info of perf.data files and recordings are looked for"));
    file->addSeparator();
    file->addAction(tr("&Close Tab"), QKeySequence::Close, this,
                    [this] { closeTab(m_tabs->currentIndex()); });
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
}

RecordDialog* MainWindow::showRecordDialog() {
    if (!m_recordDialog) {
        m_recordDialog = new RecordDialog(this);
        connect(m_recordDialog, &RecordDialog::recordingFinished, this, &MainWindow::openFile);
    }
    m_recordDialog->show();
    m_recordDialog->raise();
    return m_recordDialog;
}

SymbolPathsDialog* MainWindow::showSymbolPathsDialog() {
    auto* dialog = new SymbolPathsDialog(loadSymbolPaths(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, dialog, [dialog] { saveSymbolPaths(dialog->paths()); });
    dialog->open();
    return dialog;
}

void MainWindow::createViewMenu() {
    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Find in Flame Graph…"), QKeySequence::Find, this, [this] {
        if (ProfileTab* t = currentTab(); t && t->state() == ProfileTab::State::Loaded)
            t->panel()->focusSearch();
        else if (auto* c = qobject_cast<CompareTab*>(m_tabs->currentWidget()); c && c->view()->isReady())
            c->view()->focusSearch();
    });
    const auto findNext = [this](bool backwards) {
        if (ProfileTab* t = currentTab(); t && t->state() == ProfileTab::State::Loaded)
            t->panel()->findNext(backwards);
        else if (auto* c = qobject_cast<CompareTab*>(m_tabs->currentWidget()); c && c->view()->isReady())
            c->view()->findNext(backwards);
    };
    view->addAction(tr("Find &Next"), QKeySequence::FindNext, this, [findNext] { findNext(false); });
    view->addAction(tr("Find Pre&vious"), QKeySequence::FindPrevious, this, [findNext] { findNext(true); });
    view->addSeparator();
    view->addAction(tr("&Reload"), QKeySequence::Refresh, this, [this] {
        if (currentTab())
            reloadTab(m_tabs->currentIndex());
    });
}

void MainWindow::createHelpMenu() {
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcuts);
    help->addAction(tr("&About Scorch"), this, [this] {
        QMessageBox::about(
            this, tr("About Scorch"),
            tr("<h3>Scorch</h3><p>A flame graph viewer and profiler front end: it opens %1 (also "
               "compressed), shows flame and icicle charts, top-down, bottom-up and function tables with "
               "source-line costs, compares two profiles with a differential flame graph, and records "
               "running processes with a live flame graph.</p><p>Command line: <code>scorch "
               "--help</code>.</p>")
                .arg(profileFormatNames().join(QStringLiteral(", ")).toHtmlEscaped()));
    });
}

QDialog* MainWindow::showShortcuts() {
    struct Row {
        QString keys, what;
    };
    const auto key = [](QKeySequence::StandardKey k) {
        return QKeySequence(k).toString(QKeySequence::NativeText);
    };
    const Row rows[] = {
        {key(QKeySequence::Open), tr("Open profiles")},
        {QStringLiteral("Ctrl+R"), tr("Record / attach to a process")},
        {key(QKeySequence::Find), tr("Find functions in the flame graph")},
        {key(QKeySequence::FindNext) + QStringLiteral(", ") + tr("Enter"), tr("Next match, heaviest first")},
        {key(QKeySequence::FindPrevious) + QStringLiteral(", ") + tr("Shift+Enter"), tr("Previous match")},
        {key(QKeySequence::Refresh), tr("Reload the file of the current tab")},
        {tr("Click, Enter"), tr("Zoom into a frame (the selected one)")},
        {tr("Esc, 0"), tr("Zoom out to the whole profile; Esc also closes the find bar")},
        {tr("+, −"), tr("Zoom in and out")},
        {tr("Alt+Left, Alt+Right"), tr("Back and forward through zooms")},
        {tr("Arrow keys"), tr("Move the selection: caller, heaviest callee, siblings")},
        {tr("S"), tr("Show the selected frame's function in the Sandwich (callers and callees)")},
        {tr("Double-click (Sandwich)"),
         tr("Move the sandwich to a caller or callee; Alt+Left/Right: back, forward")},
        {tr("Wheel"), tr("Scroll deep stacks up and down")},
        {tr("Ctrl+wheel, sideways wheel, drag"), tr("Zoom around the pointer; pan")},
        {key(QKeySequence::Close), tr("Close the tab")},
        {key(QKeySequence::Quit), tr("Quit")},
    };
    auto* dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Keyboard Shortcuts"));
    auto* table = new QTableWidget(static_cast<int>(std::size(rows)), 2, dialog);
    table->setObjectName(QStringLiteral("shortcuts"));
    table->setHorizontalHeaderLabels({tr("Keys"), tr("Action")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionMode(QAbstractItemView::NoSelection);
    for (int r = 0; r < table->rowCount(); ++r) {
        table->setItem(r, 0, new QTableWidgetItem(rows[r].keys));
        table->setItem(r, 1, new QTableWidgetItem(rows[r].what));
    }
    table->resizeColumnsToContents();
    table->horizontalHeader()->setStretchLastSection(true);
    auto* close = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    connect(close, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(table);
    layout->addWidget(close);
    dialog->resize(table->horizontalHeader()->length() + 80,
                   table->verticalHeader()->length() + table->horizontalHeader()->height() + 90);
    dialog->show();
    return dialog;
}

void MainWindow::createStatusWidgets() {
    m_progressBox = new QWidget(this);
    m_progressLabel = new QLabel(m_progressBox);
    m_progress = new QProgressBar(m_progressBox);
    m_progress->setRange(0, 100);
    m_progress->setMaximumWidth(240);
    m_cancel = new QPushButton(tr("Cancel"), m_progressBox);
    auto* layout = new QHBoxLayout(m_progressBox);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_progressLabel);
    layout->addWidget(m_progress);
    layout->addWidget(m_cancel);
    statusBar()->addPermanentWidget(m_progressBox);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (ProfileTab* t = currentTab())
            t->cancelLoad();
    });
}

ProfileTab* MainWindow::openFile(const QString& path) {
    ProfileTab* tab = insertProfileTab(path, -1);
    addRecent(path);
    return tab;
}

ProfileTab* MainWindow::reloadTab(int index) {
    ProfileTab* old = tab(index);
    if (!old)
        return nullptr;
    ProfileTab* fresh = insertProfileTab(old->path(), index);
    m_tabs->removeTab(m_tabs->indexOf(old));
    delete old; // cancels a running load; its result is dropped
    updateStatus();
    return fresh;
}

ProfileTab* MainWindow::insertProfileTab(const QString& path, int at) {
    auto* tab = new ProfileTab(path, m_tabs);
    const int index = m_tabs->insertTab(at, tab, tab->title());
    m_tabs->setTabToolTip(index, displayText(path));
    m_tabs->setCurrentIndex(index);
    m_central->setCurrentWidget(m_tabs);
    connect(tab, &ProfileTab::progressChanged, this, &MainWindow::updateStatus);
    connect(tab, &ProfileTab::stateChanged, this, &MainWindow::updateStatus);
    connect(tab, &ProfileTab::stateChanged, this, [this, tab](ProfileTab::State state) {
        const bool problem = state == ProfileTab::State::Failed || state == ProfileTab::State::Cancelled;
        m_tabs->setTabIcon(m_tabs->indexOf(tab),
                           problem ? style()->standardIcon(QStyle::SP_MessageBoxWarning) : QIcon());
    });
    connect(tab, &ProfileTab::retryRequested, this, [this, tab] { reloadTab(m_tabs->indexOf(tab)); });
    connect(tab, &ProfileTab::comparisonReady, this,
            [this](std::shared_ptr<const Profile> before, const QString& beforeLabel,
                   std::shared_ptr<const Profile> after, const QString& afterLabel) {
                // two ranges of one recording last differently long: compared as shares, not amounts
                DiffOptions options;
                options.normalize = true;
                addComparison(new CompareTab(std::move(before), beforeLabel, std::move(after), afterLabel,
                                             m_tabs, options));
            });
    return tab;
}

void MainWindow::openFiles(const QStringList& paths) {
    for (const QString& path : paths)
        openFile(path);
}

int MainWindow::tabCount() const {
    return m_tabs->count();
}

ProfileTab* MainWindow::tab(int index) const {
    return qobject_cast<ProfileTab*>(m_tabs->widget(index));
}

ProfileTab* MainWindow::currentTab() const {
    return qobject_cast<ProfileTab*>(m_tabs->currentWidget());
}

void MainWindow::closeTab(int index) {
    QWidget* t = m_tabs->widget(index); // a ProfileTab or a CompareTab
    if (!t)
        return;
    m_tabs->removeTab(index);
    delete t;       // cancels a running load; its result is dropped
    trimHeapSoon(); // (what the tab held)
    if (m_tabs->count() == 0)
        m_central->setCurrentWidget(m_welcome);
    updateStatus();
}

void MainWindow::showOpenDialog() {
    const QStringList files =
        QFileDialog::getOpenFileNames(this, tr("Open Profiles"), QString(), profileFileFilter());
    openFiles(files);
}

void MainWindow::openArguments(QStringList arguments) {
    CompareTab* compare = nullptr;
    if (!arguments.isEmpty() && arguments.first() == QLatin1String("--diff")) {
        std::vector<std::string> utf8;
        for (const QString& a : arguments.mid(1))
            utf8.push_back(a.toStdString());
        const std::vector<std::string_view> args(utf8.begin(), utf8.end());
        cli::CompareArguments parsed;
        if (cli::parseCompareArguments(args, parsed)) {
            compare = openComparison(QString::fromStdString(parsed.before),
                                     QString::fromStdString(parsed.after), parsed.options);
            arguments.clear();
            for (const std::string& f : parsed.files)
                arguments.push_back(QString::fromStdString(f));
        } else { // main.cpp refuses these: open what is left as files
            arguments.removeFirst();
            while (!arguments.isEmpty() && arguments.first().startsWith(QLatin1String("--")))
                arguments.removeFirst();
        }
    }
    openFiles(arguments);
    if (compare)
        m_tabs->setCurrentWidget(compare); // the comparison stays in front
}

CompareTab* MainWindow::openComparison(const QString& before, const QString& after,
                                       const DiffOptions& options) {
    addRecent(before);
    addRecent(after);
    auto* tab = new CompareTab(before, after, m_tabs);
    tab->setDiffOptions(options);
    return addComparison(tab);
}

CompareTab* MainWindow::addComparison(CompareTab* tab) {
    const int index = m_tabs->addTab(tab, tab->title());
    m_tabs->setTabToolTip(index, displayText(tab->beforePath()) + QStringLiteral("\n") +
                                     displayText(tab->afterPath()));
    m_tabs->setCurrentIndex(index);
    m_central->setCurrentWidget(m_tabs);
    connect(tab, &CompareTab::stateChanged, this, [this, tab](CompareTab::State state) {
        const bool problem = state == CompareTab::State::Failed || state == CompareTab::State::Cancelled;
        m_tabs->setTabIcon(m_tabs->indexOf(tab),
                           problem ? style()->standardIcon(QStyle::SP_MessageBoxWarning) : QIcon());
    });
    updateStatus();
    return tab;
}

void MainWindow::showCompareDialog() {
    QList<CompareDialog::Source> open;
    for (int i = 0; i < tabCount(); ++i)
        if (ProfileTab* t = tab(i); t && t->state() == ProfileTab::State::Loaded)
            open.push_back({t->path(), t->profile()});
    CompareDialog dialog(open, this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const CompareDialog::Source before = dialog.before(), after = dialog.after();
    if (before.profile && after.profile)
        addComparison(new CompareTab(before.profile, before.path, after.profile, after.path, m_tabs));
    else // a file on either side: load both (an open tab's file again, which keeps this simple)
        openComparison(before.path, after.path);
}

QString MainWindow::exportCurrent(ExportKind kind, const QString& target) {
    ProfileTab* t = currentTab();
    if (!t || t->state() != ProfileTab::State::Loaded)
        return tr("No loaded profile to export.");
    return exportChart(kind, *t->panel()->view(), target, t->path());
}

void MainWindow::showExportDialog(ExportKind kind) {
    ProfileTab* t = currentTab();
    if (!t || t->state() != ProfileTab::State::Loaded) {
        statusBar()->showMessage(tr("No loaded profile to export."), 5000);
        return;
    }
    const QFileInfo source(t->path());
    const ExportFormat& format = exportFormat(kind);
    const QString suffix = QString::fromLatin1(format.suffix);
    const QString filter = QCoreApplication::translate("scorch::Exporter", format.filter);
    const QString proposal = source.dir().filePath(source.completeBaseName() + suffix);
    const QString target = QFileDialog::getSaveFileName(this, tr("Export"), proposal, filter);
    if (target.isEmpty())
        return;
    if (const QString error = exportCurrent(kind, target); !error.isEmpty())
        QMessageBox::warning(this, tr("Export failed"), error);
    else
        statusBar()->showMessage(tr("Saved %1").arg(target), 5000);
}

QStringList MainWindow::recentFiles() const {
    return QSettings().value(kRecentKey).toStringList();
}

void MainWindow::addRecent(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList recent = recentFiles();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    QSettings().setValue(kRecentKey, recent);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
    m_recentMenu->clear();
    const QStringList recent = recentFiles();
    for (const QString& path : recent)
        m_recentMenu->addAction(QFileInfo(path).fileName() + QStringLiteral("  —  ") + path, this,
                                [this, path] { openFile(path); });
    if (!recent.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear List"), this, [this] {
            QSettings().remove(kRecentKey);
            updateRecentMenu();
        });
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
    m_welcome->setRecentFiles(recent);
}

void MainWindow::updateStatus() {
    ProfileTab* t = currentTab();
    const bool loading = t && t->state() == ProfileTab::State::Loading;
    m_progressBox->setVisible(loading);
    m_exportMenu->setEnabled(t && t->state() == ProfileTab::State::Loaded);
    const auto* compare = qobject_cast<CompareTab*>(m_tabs->currentWidget());
    setWindowTitle(t         ? tr("%1 — Scorch").arg(t->title())
                   : compare ? tr("%1 — Scorch").arg(compare->title())
                             : tr("Scorch"));
    if (!loading)
        return;
    m_progressLabel->setText(tr("Loading %1").arg(t->title()));
    if (!t->loadingStatus().isEmpty()) {
        m_progressLabel->setText(tr("Loading %1: %2").arg(t->title(), t->loadingStatus()));
        m_progress->setRange(0, 0); // a transfer of unknown length beside the reading: busy indicator
    } else if (t->progressPercent() >= 100) {
        m_progressLabel->setText(tr("Building the call tree of %1").arg(t->title()));
        m_progress->setRange(0, 0); // all read; merging takes a moment: busy indicator
    } else if (t->progressPercent() < 0) {
        m_progress->setRange(0, 0); // size unknown (a pipe): busy indicator
    } else {
        m_progress->setRange(0, 100);
        m_progress->setValue(t->progressPercent());
    }
}

void MainWindow::restoreSettings() {
    const QSettings settings;
    if (!restoreGeometry(settings.value(kGeometryKey).toByteArray())) {
        const QScreen* screen = QGuiApplication::primaryScreen();
        const QSize available = screen ? screen->availableSize() : QSize(1600, 1000);
        // A small screen (a 1024x700 laptop) has no room to spare: the window takes all of it, maximized
        // where a window manager does that, and sized to the screen where none does.
        const bool small = available.width() < 1280 || available.height() < 800;
        resize(small ? available : available.boundedTo(QSize(1600, 1100)) * 0.9);
        if (small)
            m_smallScreenSize = size();
    }
    restoreState(settings.value(kStateKey).toByteArray());
}

void MainWindow::saveSettings() const {
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
}

void MainWindow::showEvent(QShowEvent* event) {
    if (!m_smallScreenSize.isEmpty() && size() == m_smallScreenSize)
        setWindowState(windowState() | Qt::WindowMaximized);
    m_smallScreenSize = {};
    QMainWindow::showEvent(event);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveSettings();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (!localFiles(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QStringList files = localFiles(event->mimeData());
    if (files.isEmpty())
        return;
    event->acceptProposedAction();
    openFiles(files);
}

} // namespace scorch
