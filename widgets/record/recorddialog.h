// File > Record…: pick a running process (live process list with a filter) or a command to launch, the
// mechanism, rate and duration; Start/Stop. While recording, the flame graph of the samples so far updates
// every second with the sample count and elapsed time; a launched program's output shows below it. When the
// recording ends it is written to a file in Scorch's recording format and recordingFinished() hands it over
// (the main window opens it in a tab); "Save recording…" copies it anywhere.
#pragma once

#include "scorch/recording.h"

#include <QDialog>
#include <QElapsedTimer>

#include <future>
#include <memory>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QSplitter;
class QTabWidget;
class QTableView;
class QTimer;

namespace scorch {

class FlameGraphPanel;
class ProcessFilterProxy;
class ProgramOutput;
class ProcessListModel;
class Sampler;
struct Profile;

class RecordDialog final : public QDialog {
    Q_OBJECT
public:
    explicit RecordDialog(QWidget* parent = nullptr);
    ~RecordDialog() override;

    ProcessListModel* processModel() const { return m_processes; }
    ProcessFilterProxy* processProxy() const { return m_proxy; }
    QLineEdit* filterEdit() const { return m_filter; }
    QCheckBox* onlyMineBox() const { return m_onlyMine; }
    QTabWidget* targetTabs() const { return m_targetTabs; }
    QLineEdit* commandEdit() const { return m_command; }
    QLineEdit* argumentsEdit() const { return m_arguments; }
    /// "Stop the command when the recording ends" (launch tab; unchecked: it keeps running).
    QCheckBox* killAfterBox() const { return m_killAfter; }
    /// "Off-CPU time too" (SamplerOptions::offCpu).
    QCheckBox* offCpuBox() const { return m_offCpu; }
    QPushButton* startButton() const { return m_start; }
    QPushButton* stopButton() const { return m_stop; }
    QPushButton* saveButton() const { return m_save; }
    QLabel* statusLabel() const { return m_status; }
    FlameGraphPanel* livePanel() const { return m_panel; }
    /// A launched program's standard output and error (shown below the live flame graph from its launch).
    ProgramOutput* programOutput() const { return m_output; }

    bool isRecording() const;
    /// Where finished recordings are written before they are saved elsewhere.
    void setRecordingDir(const QString& dir) { m_recordingDir = dir; }
    /// Where "Save recording…" proposes to save: the recording's own directory, named after the program.
    QString proposedSavePath() const;
    /// The process list / command above, the live flame graph below, a launched program's output last.
    QSplitter* splitter() const { return m_splitter; }

    /// Starts recording with the current settings; returns an error message (also shown) or empty.
    QString start(bool showErrors = true);
    void stop();

Q_SIGNALS:
    void recordingStarted(qint64 pid);
    /// Live flame graph updated (for tests).
    void liveUpdated(quint64 samples);
    /// The recording ended and was written to `path`.
    void recordingFinished(const QString& path);
    void recordingFailed(const QString& message);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    struct Live;
    void poll();
    void finish();
    void saveAs();
    void updateButtons();

    ProcessListModel* m_processes;
    ProcessFilterProxy* m_proxy;
    QTabWidget* m_targetTabs;
    QSplitter* m_splitter = nullptr;
    QList<int> m_idleSizes; // the splitter's sizes before a recording gave the live graph the room
    QTableView* m_view;
    QLineEdit* m_filter;
    QCheckBox* m_onlyMine;
    QLineEdit* m_command;
    QLineEdit* m_arguments;
    QLineEdit* m_workingDir;
    QCheckBox* m_killAfter;
    QComboBox* m_mode;
    QCheckBox* m_offCpu;
    QSpinBox* m_rate;
    QDoubleSpinBox* m_duration;
    QPushButton* m_start;
    QPushButton* m_stop;
    QPushButton* m_save;
    QLabel* m_status;
    FlameGraphPanel* m_panel;
    QWidget* m_outputBox;
    ProgramOutput* m_output;
    QTimer* m_refreshTimer;
    QTimer* m_pollTimer;

    std::shared_ptr<Sampler> m_sampler;
    std::shared_ptr<Live> m_live;
    std::future<std::shared_ptr<const Profile>> m_liveJob;
    QElapsedTimer m_elapsed;
    qint64 m_lastLiveMs = -1000000;
    QString m_recordingDir;
    QString m_lastPath;
    bool m_closeWhenDone = false;
    Recording m_lastRecording;
};

} // namespace scorch
