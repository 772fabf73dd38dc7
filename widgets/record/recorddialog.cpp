#include "record/recorddialog.h"

#include "flame/flamegraphpanel.h"
#include "record/processlistmodel.h"
#include "record/programoutput.h"

#include "scorch/rawprofile.h"
#include "scorch/sampler.h"

#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QScopeGuard>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <unistd.h>
#include <utility>

namespace scorch {

namespace {

/// A file-name-safe name of the recorded program: the launched command's base name, or the attached
/// process's main thread name; "record" when neither is known.
QString programName(const Recording& recording, qint64 pid) {
    QString name;
    if (!recording.command.empty())
        name = QFileInfo(QString::fromStdString(recording.command.front())).fileName();
    else
        name = QString::fromStdString(recording.threadName(pid));
    QString safe;
    for (const QChar c : name)
        safe += c.isLetterOrNumber() || c == u'.' || c == u'-' || c == u'_' ? c : u'_';
    while (safe.startsWith(u'.'))
        safe.remove(0, 1);
    return safe.isEmpty() ? QStringLiteral("record") : safe.left(64);
}

} // namespace

/// The live profile: the samples fetched so far, symbolized incrementally. Used by one job at a time.
struct RecordDialog::Live {
    Symbolizer symbolizer{[] {
        SymbolizerOptions o;
        o.inflatedCopies = defaultInflatedCopies();
        return o;
    }()};
    RawProfileBuilder builder{symbolizer};
    RecordingFeeder feeder{symbolizer, builder};
    std::size_t fed = 0;
};

RecordDialog::RecordDialog(QWidget* parent)
    : QDialog(parent)
    , m_processes(new ProcessListModel(this))
    , m_proxy(new ProcessFilterProxy(this))
    , m_targetTabs(new QTabWidget(this))
    , m_view(new QTableView(this))
    , m_filter(new QLineEdit(this))
    , m_onlyMine(new QCheckBox(tr("Only my processes"), this))
    , m_command(new QLineEdit(this))
    , m_arguments(new QLineEdit(this))
    , m_workingDir(new QLineEdit(this))
    , m_killAfter(new QCheckBox(tr("Stop the command when the recording ends"), this))
    , m_mode(new QComboBox(this))
    , m_offCpu(new QCheckBox(tr("Off-CPU time too"), this))
    , m_rate(new QSpinBox(this))
    , m_duration(new QDoubleSpinBox(this))
    , m_start(new QPushButton(tr("Start"), this))
    , m_stop(new QPushButton(tr("Stop"), this))
    , m_save(new QPushButton(tr("Save recording…"), this))
    , m_status(new QLabel(this))
    , m_panel(new FlameGraphPanel(this))
    , m_outputBox(new QWidget(this))
    , m_output(new ProgramOutput(m_outputBox))
    , m_refreshTimer(new QTimer(this))
    , m_pollTimer(new QTimer(this)) {
    setWindowTitle(tr("Record"));
    m_recordingDir =
        QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/recordings");

    // Attach tab
    m_proxy->setSourceModel(m_processes);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(ProcessListModel::Cpu, Qt::DescendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setWordWrap(false);
    m_filter->setPlaceholderText(tr("Filter by PID, user or command line"));
    m_filter->setClearButtonEnabled(true);
    m_onlyMine->setChecked(true);
    m_proxy->setOnlyUid(getuid());
    auto* attach = new QWidget(this);
    auto* attachLayout = new QVBoxLayout(attach);
    auto* filterRow = new QHBoxLayout;
    filterRow->addWidget(m_filter, 1);
    filterRow->addWidget(m_onlyMine);
    attachLayout->addLayout(filterRow);
    attachLayout->addWidget(m_view, 1);
    for (int c : {int(ProcessListModel::Pid), int(ProcessListModel::Threads), int(ProcessListModel::Cpu)})
        m_view->setColumnWidth(c, 70);
    m_view->setColumnWidth(ProcessListModel::User, 100);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &ProcessFilterProxy::setFilterText);
    connect(m_onlyMine, &QCheckBox::toggled, this,
            [this](bool on) { m_proxy->setOnlyUid(on ? qint64(getuid()) : -1); });
    connect(m_view, &QTableView::activated, this, [this] { start(); });

    // Launch tab
    auto* launch = new QWidget(this);
    auto* form = new QFormLayout(launch);
    m_command->setPlaceholderText(tr("program, e.g. /usr/bin/gzip"));
    m_arguments->setPlaceholderText(tr("arguments, quoted like in a shell"));
    m_workingDir->setText(QDir::currentPath());
    auto* browse = new QPushButton(tr("Browse…"), launch);
    auto* dirRow = new QHBoxLayout;
    dirRow->addWidget(m_workingDir, 1);
    dirRow->addWidget(browse);
    form->addRow(tr("Command:"), m_command);
    form->addRow(tr("Arguments:"), m_arguments);
    form->addRow(tr("Working directory:"), dirRow);
    m_killAfter->setToolTip(tr("Otherwise the command keeps running after the recording (like scorch record "
                               "--kill-after). It never outlives Scorch if Scorch is killed."));
    form->addRow(QString(), m_killAfter);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Working directory"), m_workingDir->text());
        if (!dir.isEmpty())
            m_workingDir->setText(dir);
    });
    m_targetTabs->addTab(attach, tr("Attach to process"));
    m_targetTabs->addTab(launch, tr("Launch command"));

    // Settings
    m_mode->addItem(tr("perf: on-CPU samples, low overhead"), int(SamplerMode::Perf));
    m_mode->addItem(tr("ptrace: wall-clock, also blocked threads"), int(SamplerMode::Ptrace));
    m_rate->setRange(1, 100000);
    m_rate->setSuffix(tr(" Hz"));
    m_rate->setValue(int(Sampler::defaultFrequency(SamplerMode::Perf)));
    m_duration->setRange(0, 24 * 3600);
    m_duration->setDecimals(1);
    m_duration->setSuffix(tr(" s"));
    m_duration->setSpecialValueText(tr("until stopped"));
    connect(m_mode, &QComboBox::currentIndexChanged, this, [this] {
        const auto mode = static_cast<SamplerMode>(m_mode->currentData().toInt());
        const auto other = mode == SamplerMode::Perf ? SamplerMode::Ptrace : SamplerMode::Perf;
        if (m_rate->value() == int(Sampler::defaultFrequency(other)))
            m_rate->setValue(int(Sampler::defaultFrequency(mode)));
    });
    auto* settings = new QHBoxLayout;
    settings->addWidget(new QLabel(tr("Mechanism:"), this));
    settings->addWidget(m_mode);
    settings->addSpacing(12);
    settings->addWidget(new QLabel(tr("Rate:"), this));
    settings->addWidget(m_rate);
    settings->addSpacing(12);
    settings->addWidget(new QLabel(tr("Duration:"), this));
    settings->addWidget(m_duration);
    settings->addSpacing(12);
    m_offCpu->setToolTip(
        tr("Also record where threads wait (sleeping, locks, I/O): off-cpu and wall cost types "
           "beside the samples. perf records every context switch with its stack (the kernel "
           "must allow it: kernel.perf_event_paranoid 1 or lower); ptrace charges blocked "
           "threads' samples."));
    settings->addWidget(m_offCpu);
    settings->addStretch(1);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_status, 1);
    buttons->addWidget(m_start);
    buttons->addWidget(m_stop);
    buttons->addWidget(m_save);
    auto* close = new QPushButton(tr("Close"), this);
    buttons->addWidget(close);
    connect(close, &QPushButton::clicked, this, &QDialog::close);
    connect(m_start, &QPushButton::clicked, this, [this] { start(); });
    connect(m_stop, &QPushButton::clicked, this, &RecordDialog::stop);
    connect(m_save, &QPushButton::clicked, this, &RecordDialog::saveAs);

    m_splitter = new QSplitter(Qt::Vertical, this);
    m_splitter->addWidget(m_targetTabs);
    m_splitter->addWidget(m_panel);
    auto* outputLayout = new QVBoxLayout(m_outputBox);
    outputLayout->setContentsMargins(0, 0, 0, 0);
    outputLayout->addWidget(new QLabel(tr("Program output:"), m_outputBox));
    outputLayout->addWidget(m_output, 1);
    m_outputBox->setVisible(false); // until a command is launched
    m_splitter->addWidget(m_outputBox);
    m_splitter->setStretchFactor(0, 2);
    m_splitter->setStretchFactor(1, 3);
    m_splitter->setStretchFactor(2, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_splitter, 1);
    layout->addLayout(settings);
    layout->addLayout(buttons);

    m_status->setWordWrap(true); // a long path must not widen the dialog
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setText(tr("Pick a process or a command, then Start."));
    m_refreshTimer->setInterval(2000);
    connect(m_refreshTimer, &QTimer::timeout, m_processes, &ProcessListModel::refresh);
    m_refreshTimer->start();
    m_pollTimer->setInterval(200);
    connect(m_pollTimer, &QTimer::timeout, this, &RecordDialog::poll);
    updateButtons();
    resize(1200, 800);
}

RecordDialog::~RecordDialog() {
    if (m_sampler)
        m_sampler->stop();
    if (m_liveJob.valid())
        m_liveJob.wait();
}

bool RecordDialog::isRecording() const {
    return m_sampler && !m_sampler->finished();
}

void RecordDialog::updateButtons() {
    const bool recording = m_sampler != nullptr;
    m_start->setEnabled(!recording);
    m_stop->setEnabled(recording);
    m_save->setEnabled(!recording && !m_lastPath.isEmpty());
    m_targetTabs->setEnabled(!recording);
    m_mode->setEnabled(!recording);
    m_rate->setEnabled(!recording);
    m_duration->setEnabled(!recording);
    m_offCpu->setEnabled(!recording);
}

QString RecordDialog::start(bool showErrors) {
    if (m_sampler)
        return tr("already recording");
    SamplerOptions o;
    o.mode = static_cast<SamplerMode>(m_mode->currentData().toInt());
    o.frequency = m_rate->value();
    o.durationSeconds = m_duration->value();
    o.offCpu = m_offCpu->isChecked();
    QString error;
    if (m_targetTabs->currentIndex() == 0) {
        const QModelIndex current = m_view->currentIndex();
        if (!current.isValid())
            error = tr("Select a process in the list first.");
        else
            o.pid = m_processes->process(m_proxy->mapToSource(current).row()).pid;
    } else {
        const QString command = m_command->text().trimmed();
        if (command.isEmpty())
            error = tr("Enter the command to launch.");
        o.command.push_back(command.toStdString());
        const QStringList args = QProcess::splitCommand(m_arguments->text());
        for (const QString& a : args)
            o.command.push_back(a.toStdString());
        o.workingDirectory = m_workingDir->text().trimmed().toStdString();
        if (error.isEmpty())
            o.outputFd = m_output->startFile(m_recordingDir, error);
    }
    std::shared_ptr<Sampler> sampler;
    if (error.isEmpty()) {
        sampler = std::make_shared<Sampler>(o);
        try {
            sampler->start();
        } catch (const SamplerError& e) {
            error = QString::fromStdString(e.what());
            sampler.reset();
        }
    }
    if (!error.isEmpty()) {
        m_status->setText(error.section(u'\n', 0, 0));
        if (showErrors)
            QMessageBox::warning(this, tr("Cannot record"), error);
        Q_EMIT recordingFailed(error);
        return error;
    }
    m_sampler = std::move(sampler);
    m_live = std::make_shared<Live>();
    m_elapsed.start();
    m_lastLiveMs = -1000000;
    m_panel->setProfile(nullptr);
    // The live flame graph gets most of the height while recording; the target list shrinks to a strip and
    // a launched program's output gets a few lines below the graph.
    m_idleSizes = m_splitter->sizes();
    const int total = m_idleSizes.value(0) + m_idleSizes.value(1) + m_idleSizes.value(2);
    const int strip = std::min(total / 5, m_targetTabs->minimumSizeHint().height() + 40);
    const bool launched = o.outputFd >= 0;
    m_outputBox->setVisible(launched);
    const int output = launched ? std::max(m_idleSizes.value(2), 8 * fontMetrics().lineSpacing()) : 0;
    m_splitter->setSizes({strip, total - strip - output, output});
    updateButtons();
    m_pollTimer->start();
    Q_EMIT recordingStarted(m_sampler->pid());
    poll();
    return {};
}

void RecordDialog::stop() {
    if (m_sampler)
        m_sampler->stop();
}

void RecordDialog::poll() {
    if (!m_sampler)
        return;
    const bool done = m_sampler->finished();
    m_status->setText(tr("Recording PID %1: %2 samples, %3 s")
                          .arg(m_sampler->pid())
                          .arg(m_sampler->samples())
                          .arg(static_cast<double>(m_elapsed.elapsed()) / 1000.0, 0, 'f', 1));
    if (m_liveJob.valid() && m_liveJob.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        std::shared_ptr<const Profile> profile = m_liveJob.get();
        if (profile) {
            m_panel->setProfile(profile);
            Q_EMIT liveUpdated(profile->meta.samples);
        }
    }
    if (done && !m_liveJob.valid()) {
        finish();
        return;
    }
    if (!done && !m_liveJob.valid() && m_elapsed.elapsed() - m_lastLiveMs >= 700) {
        m_lastLiveMs = m_elapsed.elapsed();
        m_liveJob = std::async(std::launch::async, [sampler = m_sampler, live = m_live] {
            Recording delta = sampler->snapshot(live->fed);
            live->fed += delta.samples.size();
            live->feeder.feed(delta);
            if (live->builder.samples() == 0)
                return std::shared_ptr<const Profile>();
            ProfileMeta meta;
            meta.source = "live";
            meta.format = Format::ScorchRecording;
            return std::make_shared<const Profile>(live->builder.snapshot(std::move(meta)));
        });
    }
}

void RecordDialog::finish() {
    m_pollTimer->stop();
    const bool closeAfter = std::exchange(m_closeWhenDone, false);
    auto closeLater = qScopeGuard([this, closeAfter] {
        if (closeAfter)
            QTimer::singleShot(0, this, &QWidget::close);
    });
    std::shared_ptr<Sampler> sampler = std::move(m_sampler);
    m_live.reset();
    sampler->wait();
    m_lastRecording = sampler->take();
    const QString error = QString::fromStdString(sampler->error());
    const qint64 pid = sampler->pid();
    if (m_killAfter->isChecked())
        sampler
            ->stopCommand(); // a launched command only; it is reaped in the background like one left running
    sampler.reset();         // a launched command keeps running, reaped in the background
    if (!m_idleSizes.isEmpty()) { // the target list gets its room back, the output keeps its lines
        const QList<int> now = m_splitter->sizes();
        const int total = now.value(0) + now.value(1) + now.value(2);
        const int output = m_outputBox->isVisible() ? now.value(2) : 0;
        const int targets = std::min(m_idleSizes.value(0), std::max(0, total - output - 120));
        m_splitter->setSizes({targets, total - targets - output, output});
    }
    m_output->readMore(true); // what it wrote up to now (the view goes on reading while it runs)
    updateButtons();
    // How the program ended, when it did while recorded.
    QString exited;
    if (m_lastRecording.exitCode >= 128)
        exited = tr(" %1 was killed by signal %2.")
                     .arg(programName(m_lastRecording, pid))
                     .arg(m_lastRecording.exitCode - 128);
    else if (m_lastRecording.exitCode >= 0)
        exited = tr(" %1 exited with code %2.")
                     .arg(programName(m_lastRecording, pid))
                     .arg(m_lastRecording.exitCode);
    if (m_lastRecording.samples.empty()) {
        const QString why =
            tr("No samples were recorded from PID %1.").arg(pid) + exited +
            (m_lastRecording.mode == "perf" && m_lastRecording.exitCode < 0
                 ? tr(" The perf mechanism samples running threads only: was the process idle? "
                      "The ptrace mechanism also samples blocked threads.")
                 : QString()) +
            (error.isEmpty() ? QString() : u' ' + error);
        m_status->setText(why);
        m_status->setToolTip(why);
        Q_EMIT recordingFailed(why);
        return;
    }
    QDir().mkpath(m_recordingDir);
    // Named after the program (the launched command, or the attached process's name) and the time.
    const QString path =
        m_recordingDir + QStringLiteral("/%1-%2.rec")
                             .arg(programName(m_lastRecording, pid),
                                  QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-hhmmss")));
    try {
        writeRecording(m_lastRecording, path.toStdString());
    } catch (const std::exception& e) {
        const QString why = QString::fromStdString(e.what());
        m_status->setText(why);
        Q_EMIT recordingFailed(why);
        return;
    }
    m_lastPath = path;
    updateButtons();
    // What was recorded, how the program ended and where the file went.
    m_status->setText(
        tr("Recorded %1 samples in %2 s%3.%4 Written to %5 and opened in a tab.")
            .arg(m_lastRecording.samples.size())
            .arg(static_cast<double>(m_lastRecording.endNs - m_lastRecording.startNs) / 1e9, 0, 'f', 1)
            .arg(error.isEmpty() ? QString() : QStringLiteral(" (") + error + u')', exited,
                 QDir::toNativeSeparators(path)));
    m_status->setToolTip(m_status->text());
    Q_EMIT recordingFinished(path);
}

void RecordDialog::saveAs() {
    if (m_lastPath.isEmpty())
        return;
    const QString target = QFileDialog::getSaveFileName(this, tr("Save recording"), proposedSavePath(),
                                                        tr("Scorch recordings (*.rec);;All files (*)"));
    if (target.isEmpty())
        return;
    try {
        writeRecording(m_lastRecording, target.toStdString());
        m_status->setText(tr("Saved %1").arg(target));
    } catch (const std::exception& e) {
        QMessageBox::warning(this, tr("Cannot save"), QString::fromStdString(e.what()));
    }
}

QString RecordDialog::proposedSavePath() const {
    if (m_lastPath.isEmpty())
        return QDir::homePath() + QStringLiteral("/scorch.rec");
    return m_lastPath; // already in the recording directory, named after the program and the time
}

void RecordDialog::closeEvent(QCloseEvent* event) {
    if (m_sampler) {
        // finish() follows from the poll timer, opens the tab and then closes the dialog
        m_sampler->stop();
        m_closeWhenDone = true;
        event->ignore();
        return;
    }
    QDialog::closeEvent(event);
}

} // namespace scorch
