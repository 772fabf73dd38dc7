// SummaryPage: what a profile holds, as Hotspot's summary page does: the recording (command line, host, OS,
// perf version, CPU, ...), duration, sample rate, samples and lost samples, the events, the threads, every
// kept warning and the top functions by self cost. The top functions are summed off the GUI thread.
#pragma once

#include "common/backgroundjob.h"
#include "scorch/profile.h"

#include <QWidget>

#include <memory>

class QTextBrowser;

namespace scorch {

class SummaryPage final : public QWidget {
    Q_OBJECT
public:
    explicit SummaryPage(QWidget* parent = nullptr);

    void setProfile(std::shared_ptr<const Profile> profile);
    /// The page as plain text (for tests and copying).
    QString text() const;
    /// The top functions are filled in (after setProfile; they are summed off the GUI thread).
    bool complete() const { return m_complete; }
    /// Scrolls to the list of warnings.
    void showWarnings();
    QTextBrowser* browser() const { return m_browser; }

    /// A duration in seconds in human units: "14.49 s", "2.30 ms", "850 ns".
    static QString durationText(double seconds);

Q_SIGNALS:
    /// The top functions are in (complete() is now true).
    void completed();

private:
    void render(const QString& topFunctions);

    std::shared_ptr<const Profile> m_profile;
    QTextBrowser* m_browser;
    BackgroundJob m_job{this};
    bool m_complete = false;
};

} // namespace scorch
