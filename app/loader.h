// ProfileLoader: imports one file off the GUI thread with throttled progress and cancellation.
// Destroying the loader cancels the import and drops its result; nothing reaches a deleted receiver.
#pragma once

#include "common/backgroundjob.h"
#include "scorch/profile.h"

#include <QObject>
#include <QString>

#include <memory>

namespace scorch {

class ProfileLoader final : public QObject {
    Q_OBJECT
public:
    explicit ProfileLoader(QObject* parent = nullptr);
    ~ProfileLoader() override; ///< cancels a running import

    /// Starts importing `path` (once per loader).
    void start(const QString& path);
    /// Asks the import to stop; cancelled() follows once it has.
    void cancel();
    bool isRunning() const { return m_job.isRunning(); }
    QString path() const { return m_path; }

Q_SIGNALS:
    /// done/total in bytes of the (compressed) file; total is 0 when unknown. At most ~20 per second.
    void progress(qint64 done, qint64 total);
    /// What was read so far (importers that read progressively: perf.data), about every half second while
    /// loading; loaded() follows with the complete profile.
    void partial(std::shared_ptr<const scorch::Profile> profile);
    /// What the import is doing besides reading, e.g. "debuginfod: fetching debug info of /usr/bin/x
    /// (1.2 MB of 8.0 MB)" (escaped for display); an empty text when that step ended.
    void status(const QString& text);
    void loaded(std::shared_ptr<const scorch::Profile> profile);
    /// The import failed; `message` names the file and, where known, the line or offset.
    void failed(const QString& message);
    void cancelled();

private:
    struct Result;
    void finish(Result result);

    BackgroundJob m_job{this};
    QString m_path;
    bool m_started = false;
};

} // namespace scorch
