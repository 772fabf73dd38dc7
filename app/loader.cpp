#include "loader.h"

#include "symbolpaths.h"

#include "common/qtprofile.h"

#include "scorch/import.h"
#include "scorch/samples.h"
#include "scorch/transform.h"

#include <QFile>

#include <atomic>
#include <chrono>

namespace scorch {

struct ProfileLoader::Result {
    std::shared_ptr<const Profile> profile;
    QString error;
    bool cancelled = false;
};

ProfileLoader::ProfileLoader(QObject* parent)
    : QObject(parent) {}

ProfileLoader::~ProfileLoader() = default; // the job cancels the import and drops its result

void ProfileLoader::cancel() {
    m_job.cancel();
}

void ProfileLoader::start(const QString& path) {
    Q_ASSERT(!m_started);
    m_started = true;
    m_path = path;
    m_job.start(
        [this, file = QFile::encodeName(path).toStdString(),
         options = withSymbolPaths({})](const JobContext& job) {
            // progress may come from any importer thread: throttle to ~20 updates per second
            auto lastProgressMs = std::make_shared<std::atomic<int64_t>>(-1000);
            ImportControl control;
            control.cancel = job.cancelFlag();
            control.progress = [this, &job, lastProgressMs](uint64_t done, uint64_t total) {
                const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count();
                int64_t last = lastProgressMs->load();
                if (now - last < 50 || !lastProgressMs->compare_exchange_strong(last, now))
                    return;
                job.post([this, done, total] { // on the GUI thread, where the loader is alive
                    Q_EMIT progress(static_cast<qint64>(done), static_cast<qint64>(total));
                });
            };
            control.partial = [this, &job](Profile&& snapshot) {
                if (snapshot.samples)
                    snapshot.samples->prepareThreadIndex(); // (the timeline's lanes read it at once)
                auto shared = std::make_shared<const Profile>(std::move(snapshot));
                job.post([this, shared] { Q_EMIT partial(shared); });
            };
            control.status = [this, &job](const std::string& text) {
                job.post([this, shown = displayText(std::string_view(text))] { Q_EMIT status(shown); });
            };
            Result result;
            try {
                Profile profile = importProfile(file, options, control);
                addModuleFrames(profile); // so that a chip can collapse any module of the shared profile
                if (profile.samples)
                    profile.samples->prepareThreadIndex();
                result.profile = std::make_shared<const Profile>(std::move(profile));
            } catch (const ImportCancelled&) {
                result.cancelled = true;
            } catch (const ImportError& e) {
                result.error = displayText(std::string_view(e.what())); // may quote the file
            } catch (const std::bad_alloc&) {
                result.error = displayText(file) + QStringLiteral(": out of memory");
            } catch (const std::exception& e) {
                result.error =
                    displayText(file) + QStringLiteral(": ") + displayText(std::string_view(e.what()));
            }
            if (job.cancelled())
                result.cancelled = true; // a result that arrives after Cancel is dropped as well
            return result;
        },
        [this](Result result) { finish(std::move(result)); });
}

void ProfileLoader::finish(Result result) {
    if (result.cancelled)
        Q_EMIT cancelled();
    else if (result.profile)
        Q_EMIT loaded(std::move(result.profile));
    else
        Q_EMIT failed(result.error);
}

} // namespace scorch
