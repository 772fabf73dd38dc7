// The Record dialog: the process model over a fake /proc (rows update in place, CPU%), the filter proxy
// (text, only my processes), and a real recording through the dialog with live updates that ends in a tab.
#include "flame/flamegraphpanel.h"
#include "mainwindow.h"
#include "patience.h"
#include "profiletab.h"
#include "record/processlistmodel.h"
#include "record/programoutput.h"
#include "record/recorddialog.h"

#include "scorch/import.h"

#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <unistd.h>

using namespace scorch;
using scorch::test::kPatienceMs;

namespace {

void writeFile(const QString& path, const QByteArray& data) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(data);
}

/// A fake /proc/PID with the fields the model reads.
void fakeProcess(const QString& proc, int pid, int uid, int threads, const QByteArray& cmdline, int ticks) {
    const QString dir = proc + u'/' + QString::number(pid);
    QDir().mkpath(dir);
    writeFile(dir + QStringLiteral("/status"), "Name:\tx\nUid:\t" + QByteArray::number(uid) + "\t" +
                                                   QByteArray::number(uid) + "\t0\t0\nThreads:\t" +
                                                   QByteArray::number(threads) + "\n");
    writeFile(dir + QStringLiteral("/cmdline"), cmdline);
    writeFile(dir + QStringLiteral("/comm"), "kworker\n");
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
    writeFile(dir + QStringLiteral("/stat"), QByteArray::number(pid) + " (we ird) R 1 1 1 0 -1 0 0 0 0 0 " +
                                                 QByteArray::number(ticks) + " 0 0 0\n");
}

QStringList column(const QAbstractItemModel& m, int c) {
    QStringList out;
    for (int r = 0; r < m.rowCount(); ++r)
        out << m.index(r, c).data().toString();
    return out;
}

/// A shown dialog at the smallest size the issues name, on the Launch tab with the sampler's test target and
/// `arguments`, writing its recordings to `dir`.
void setUpLaunch(RecordDialog& dialog, const QString& dir, const QString& arguments) {
    dialog.resize(1024, 700);
    dialog.show();
    dialog.setRecordingDir(dir);
    dialog.targetTabs()->setCurrentIndex(1);
    dialog.commandEdit()->setText(QString::fromUtf8(SCORCH_SAMPLER_TARGET));
    dialog.argumentsEdit()->setText(arguments);
}

} // namespace

class TestRecordDialog : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void processModel() {
        const QString proc = m_dir.filePath(QStringLiteral("proc"));
        fakeProcess(proc, 100, 0, 3, QByteArray("/usr/bin/app\0--flag\0", 20), 50);
        fakeProcess(proc, 200, 4242, 1, "", 10); // a kernel thread: no command line
        QDir().mkpath(proc + QStringLiteral("/self-not-a-pid"));
        ProcessListModel model(nullptr, proc);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(ProcessListModel::ColumnCount));
        const int app = model.rowOfPid(100), kw = model.rowOfPid(200);
        QVERIFY(app >= 0 && kw >= 0);
        QCOMPARE(model.index(app, ProcessListModel::Command).data().toString(),
                 QStringLiteral("/usr/bin/app --flag"));
        QCOMPARE(model.index(kw, ProcessListModel::Command).data().toString(), QStringLiteral("[kworker]"));
        QCOMPARE(model.index(app, ProcessListModel::Threads).data().toString(), QStringLiteral("3"));
        QCOMPARE(model.index(app, ProcessListModel::User).data().toString(), QStringLiteral("root"));
        QCOMPARE(model.index(kw, ProcessListModel::User).data().toString(), QStringLiteral("4242"));

        // CPU% from the tick delta between refreshes; an exited process goes, a new one is appended, rows
        // of the others stay (a selection survives).
        QTest::qWait(200);
        fakeProcess(proc, 100, 0, 4, QByteArray("/usr/bin/app\0--flag\0", 20), 50 + 100);
        QDir(proc + QStringLiteral("/200")).removeRecursively();
        fakeProcess(proc, 300, 0, 1, QByteArray("new\0", 4), 0);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        model.refresh();
        QCOMPARE(removed.count(), 1);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(model.rowCount(), 2);
        const int appNow = model.rowOfPid(100);
        QCOMPARE(model.index(appNow, ProcessListModel::Threads).data().toString(), QStringLiteral("4"));
        const double cpu =
            model.index(appNow, ProcessListModel::Cpu).data(ProcessListModel::SortRole).toDouble();
        // 100 ticks in >= 0.2 s: positive, and at most 100 ticks / CLK_TCK / 0.2 s
        QVERIFY2(cpu > 0 && cpu <= 100.0 * 100 / double(sysconf(_SC_CLK_TCK)) / 0.2 + 1,
                 qPrintable(QString::number(cpu)));
        QCOMPARE(model.rowOfPid(200), -1);
        QVERIFY(model.rowOfPid(300) >= 0);
    }

    void filterProxy() {
        const QString proc = m_dir.filePath(QStringLiteral("proc2"));
        fakeProcess(proc, 1234, 0, 1, QByteArray("/usr/sbin/sshd\0-D\0", 18), 0);
        fakeProcess(proc, 1300, 4242, 2, QByteArray("python3\0server.py\0", 18), 0);
        fakeProcess(proc, 99, 4242, 1, QByteArray("SSH-agent\0", 10), 0);
        ProcessListModel model(nullptr, proc);
        ProcessFilterProxy proxy;
        proxy.setSourceModel(&model);
        proxy.sort(ProcessListModel::Pid, Qt::AscendingOrder);
        QCOMPARE(column(proxy, ProcessListModel::Pid),
                 (QStringList{QStringLiteral("99"), QStringLiteral("1234"), QStringLiteral("1300")}));
        proxy.setFilterText(QStringLiteral("ssh")); // command line, case-insensitive
        QCOMPARE(column(proxy, ProcessListModel::Pid),
                 (QStringList{QStringLiteral("99"), QStringLiteral("1234")}));
        proxy.setFilterText(QStringLiteral("13")); // PID prefix
        QCOMPARE(column(proxy, ProcessListModel::Pid), (QStringList{QStringLiteral("1300")}));
        proxy.setFilterText(QStringLiteral("root")); // user
        QCOMPARE(column(proxy, ProcessListModel::Pid), (QStringList{QStringLiteral("1234")}));
        proxy.setFilterText({});
        proxy.setOnlyUid(4242);
        QCOMPARE(column(proxy, ProcessListModel::Pid),
                 (QStringList{QStringLiteral("99"), QStringLiteral("1300")}));
        proxy.setFilterText(QStringLiteral("ssh"));
        QCOMPARE(column(proxy, ProcessListModel::Pid), (QStringList{QStringLiteral("99")}));
        proxy.setOnlyUid(-1);
        proxy.setFilterText({});
        proxy.sort(ProcessListModel::Threads, Qt::DescendingOrder);
        QCOMPARE(column(proxy, ProcessListModel::Pid).first(), QStringLiteral("1300"));
    }

    void dialogFiltersLiveProcessList() {
        RecordDialog dialog;
        // This test process is in the real list, under "only my processes" too.
        const QString me = QString::number(QCoreApplication::applicationPid());
        auto has = [&] {
            return column(*dialog.processProxy(), ProcessListModel::Pid).contains(me);
        };
        QVERIFY(dialog.onlyMineBox()->isChecked());
        QVERIFY(has());
        dialog.filterEdit()->setText(me);
        QVERIFY(has());
        QVERIFY(dialog.processProxy()->rowCount() <= 3);
        dialog.filterEdit()->setText(QStringLiteral("no-such-process-name-xyz"));
        QCOMPARE(dialog.processProxy()->rowCount(), 0);
    }

    void recordFromMainWindow() {
        MainWindow window;
        QAction* action = nullptr;
        for (QAction* a : window.menuBar()->actions().first()->menu()->actions())
            if (a->text().startsWith(QStringLiteral("&Record")))
                action = a;
        QVERIFY2(action, "File > Record… exists");
        action->trigger();
        RecordDialog* dialog = window.findChild<RecordDialog*>();
        QVERIFY(dialog && dialog->isVisible());
        dialog->setRecordingDir(m_dir.filePath(QStringLiteral("recordings")));
        dialog->targetTabs()->setCurrentIndex(1);
        dialog->commandEdit()->setText(QString::fromUtf8(SCORCH_SAMPLER_TARGET));
        // The target works until SIGUSR1: it runs on (untraced) after Stop, and this test ends it.
        dialog->argumentsEdit()->setText(QStringLiteral("wait"));
        QSignalSpy started(dialog, &RecordDialog::recordingStarted);
        QSignalSpy live(dialog, &RecordDialog::liveUpdated);
        QSignalSpy finished(dialog, &RecordDialog::recordingFinished);
        auto endTargets = qScopeGuard([&] {
            for (const QList<QVariant>& args : started)
                kill(static_cast<pid_t>(args.at(0).toLongLong()), SIGUSR1);
        });
        const QString error = dialog->start(false);
        if (error.contains(QStringLiteral("was refused")))
            QSKIP(qPrintable(error));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(started.count(), 1);
        QVERIFY(dialog->isRecording());
        QVERIFY(!dialog->startButton()->isEnabled() && dialog->stopButton()->isEnabled());
        // The live flame graph follows the recording: it updates again and again while samples arrive, each
        // time with the samples so far. (How often is a figure of bench_responsiveness, not a test.)
        QTRY_VERIFY_WITH_TIMEOUT(live.count() >= 2 &&
                                     live.last().at(0).toULongLong() > live.first().at(0).toULongLong(),
                                 kPatienceMs);
        for (qsizetype i = 1; i < live.count(); ++i)
            QVERIFY(live.at(i).at(0).toULongLong() >= live.at(i - 1).at(0).toULongLong());
        QVERIFY(dialog->livePanel()->data() != nullptr);
        QVERIFY(dialog->statusLabel()->text().contains(QStringLiteral("samples")));
        dialog->stop();
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, kPatienceMs);
        const QString path = finished.at(0).at(0).toString();
        QVERIFY(QFile::exists(path));
        QVERIFY(dialog->saveButton()->isEnabled());
        // Stop keeps the profile: it opens in a tab of the main window.
        QCOMPARE(window.tabCount(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(window.tab(0)->state() == ProfileTab::State::Loaded, kPatienceMs);
        QCOMPARE(window.tab(0)->profile()->meta.format, Format::ScorchRecording);
        QVERIFY(window.tab(0)->profile()->meta.samples >= live.last().at(0).toULongLong());

        // Closing the dialog while recording stops the recording, keeps it and then closes.
        dialog->targetTabs()->setCurrentIndex(1);
        QVERIFY(dialog->start(false).isEmpty());
        QCOMPARE(started.count(), 2);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->livePanel()->data() != nullptr, kPatienceMs);
        dialog->close();
        QVERIFY(dialog->isVisible()); // until the recording is written
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 2, kPatienceMs);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->isVisible(), kPatienceMs);
        QTRY_COMPARE_WITH_TIMEOUT(window.tabCount(), 2, kPatienceMs);
    }

    /// "Off-CPU time too": the recording has the off-cpu and wall cost types from its first live update on.
    void offCpuTimeToo() {
        RecordDialog dialog;
        setUpLaunch(dialog, m_dir.filePath(QStringLiteral("offcpu")),
                    QStringLiteral("wait")); // until a signal
        QVERIFY(!dialog.offCpuBox()->isChecked() && dialog.offCpuBox()->isVisible());
        dialog.offCpuBox()->setChecked(true);
        QSignalSpy started(&dialog, &RecordDialog::recordingStarted);
        QSignalSpy live(&dialog, &RecordDialog::liveUpdated);
        QSignalSpy finished(&dialog, &RecordDialog::recordingFinished);
        const QString error = dialog.start(false);
        if (error.contains(QStringLiteral("was refused")) ||
            error.contains(QStringLiteral("perf_event_paranoid")))
            QSKIP(qPrintable(error));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const auto pid = static_cast<pid_t>(started.at(0).at(0).toLongLong());
        auto endTarget = qScopeGuard([&] { kill(pid, SIGKILL); });
        QVERIFY(!dialog.offCpuBox()->isEnabled()); // fixed while recording
        QTRY_VERIFY_WITH_TIMEOUT(live.count() >= 1 && dialog.livePanel()->data(), kPatienceMs);
        const Profile& p = *dialog.livePanel()->data()->profile;
        QVERIFY(p.costTypeIndex("off-cpu") >= 0 && p.costTypeIndex("wall") >= 0);
        dialog.stop();
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, kPatienceMs);
        QVERIFY(dialog.offCpuBox()->isEnabled());
    }

    /// A launched program's output (standard output and error) shows in the dialog, escaped, and how it
    /// ended is in the status line; a program that fails at once makes no recording but says why.
    void programOutputAndExitStatus() {
        RecordDialog dialog;
        // Each worker thread works for 0.2 s of CPU time, then the program prints its counts and exits 0.
        setUpLaunch(dialog, m_dir.filePath(QStringLiteral("output")), QStringLiteral("cpu=0.2"));
        QSignalSpy started(&dialog, &RecordDialog::recordingStarted);
        QSignalSpy finished(&dialog, &RecordDialog::recordingFinished);
        QSignalSpy failed(&dialog, &RecordDialog::recordingFailed);
        const QString error = dialog.start(false);
        if (error.contains(QStringLiteral("was refused")))
            QSKIP(qPrintable(error));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const auto pid = static_cast<pid_t>(started.at(0).at(0).toLongLong());
        auto endTarget = qScopeGuard([&] { kill(pid, SIGKILL); });
        QVERIFY(dialog.programOutput()->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() + failed.count() == 1, kPatienceMs);
        QVERIFY2(finished.count() == 1, qPrintable(dialog.statusLabel()->text()));
        const QString output = dialog.programOutput()->toPlainText();
        QVERIFY2(output.contains(QStringLiteral("units busy=")) &&
                     output.contains(QStringLiteral("errors=0")),
                 qPrintable(output));
        const QString program = QFileInfo(QString::fromUtf8(SCORCH_SAMPLER_TARGET)).fileName();
        QVERIFY2(dialog.statusLabel()->text().contains(program + QStringLiteral(" exited with code 0")),
                 qPrintable(dialog.statusLabel()->text()));
        QVERIFY(dialog.programOutput()->isVisible()); // still there to read after the recording

        // A shell that writes an escape sequence and a progress line to its error output and fails: the
        // escape is shown as text, the progress line as a terminal would show it, and the exit code is in the
        // status line whether or not a sample was taken before it exited.
        dialog.commandEdit()->setText(QStringLiteral("/bin/sh"));
        dialog.argumentsEdit()->setText(
            QStringLiteral("-c \"printf 'bad\\033[31mred\\n50%%\\r100%%\\n' >&2; exit 3\""));
        QVERIFY(dialog.start(false).isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() + failed.count() == 2, kPatienceMs);
        QVERIFY2(dialog.statusLabel()->text().contains(QStringLiteral("sh exited with code 3")),
                 qPrintable(dialog.statusLabel()->text()));
        QCOMPARE(dialog.programOutput()->toPlainText(), QStringLiteral("bad\\x1b[31mred\n100%"));
    }

    /// "Stop the command when the recording ends": the launched command is stopped with the recording;
    /// unchecked (above) it keeps running.
    void killAfterStopsTheCommand() {
        RecordDialog dialog;
        setUpLaunch(dialog, m_dir.filePath(QStringLiteral("killafter")),
                    QStringLiteral("wait"));          // works until a signal
        QVERIFY(!dialog.killAfterBox()->isChecked()); // the default: the command keeps running
        dialog.killAfterBox()->setChecked(true);
        QSignalSpy started(&dialog, &RecordDialog::recordingStarted);
        QSignalSpy live(&dialog, &RecordDialog::liveUpdated);
        QSignalSpy finished(&dialog, &RecordDialog::recordingFinished);
        const QString error = dialog.start(false);
        if (error.contains(QStringLiteral("was refused")))
            QSKIP(qPrintable(error));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const auto pid = static_cast<pid_t>(started.at(0).at(0).toLongLong());
        auto endTarget = qScopeGuard([&] { kill(pid, SIGKILL); });
        QTRY_VERIFY_WITH_TIMEOUT(live.count() >= 1, kPatienceMs); // it has samples
        // While recording, the live flame graph has most of the height.
        const QList<int> recording = dialog.splitter()->sizes();
        QVERIFY2(recording.value(1) > 2 * recording.value(0),
                 qPrintable(QStringLiteral("%1 / %2").arg(recording.value(0)).arg(recording.value(1))));
        dialog.stop();
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, kPatienceMs);
        // stopped (SIGTERM) and reaped in the background: gone
        QTRY_VERIFY_WITH_TIMEOUT(kill(pid, 0) != 0, kPatienceMs);
        // The file is named after the program, and the dialog says where it went; Save proposes it there.
        const QFileInfo written(finished.at(0).at(0).toString());
        const QString program = QFileInfo(QString::fromUtf8(SCORCH_SAMPLER_TARGET)).fileName();
        QVERIFY2(written.fileName().startsWith(program + u'-'), qPrintable(written.fileName()));
        QVERIFY2(dialog.statusLabel()->text().contains(written.filePath()),
                 qPrintable(dialog.statusLabel()->text()));
        QCOMPARE(QFileInfo(dialog.proposedSavePath()).absolutePath(), written.absolutePath());
        QVERIFY(dialog.splitter()->sizes().value(0) >=
                recording.value(0)); // the target list has its room back
    }
};

QTEST_MAIN(TestRecordDialog)
#include "tst_recorddialog.moc"
