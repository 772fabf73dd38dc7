// Atomic file writes: the one way Scorch replaces a file (exports, `scorch convert|svg -o`, recordings).
#pragma once

#include <ostream>
#include <stdexcept>
#include <string>

namespace scorch {

/// What AtomicFile throws: "TARGET: what failed (strerror)".
class AtomicFileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A file written beside `target` and put in its place in one step by commit(); until then `target` is
/// untouched (the old file or none), whatever happens to the process:
/// - the data goes into an unnamed file (`O_TMPFILE`) where the file system supports it, so even `kill -9`
///   leaves nothing behind; elsewhere (or with SCORCH_NO_TMPFILE=1) into `.NAME.scorch-PID-XXXXXX` beside
///   the target;
/// - SIGINT, SIGTERM and SIGHUP remove a named temporary file before the signal takes its course (a handler
///   installed before stays in charge after that);
/// - creating one removes the stale `.NAME.scorch-PID-*` temporaries of processes that are gone (killed
///   while writing);
/// - commit() fsyncs the data, renames it over `target` and fsyncs the directory, so after a power loss
///   the target is either the old file or the complete new one.
/// Errors name the target and the reason: `out.json: cannot write (No space left on device)`.
class AtomicFile {
public:
    explicit AtomicFile(const std::string& target);
    ~AtomicFile(); ///< without commit(): the temporary file is removed
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    /// The stream to write the content into (buffered; a failed write sets its badbit and error()).
    std::ostream& stream();
    /// errno of the first failed write, or 0.
    int error() const;
    /// Flushes, fsyncs and renames the file into place; throws AtomicFileError.
    void commit();
    /// The error message for a failed write: "TARGET: cannot write (REASON)".
    std::string writeErrorMessage() const;

    /// How the temporary file is made (for tests): true when it has no name (O_TMPFILE).
    bool unnamed() const;
    /// The prefix of this target's named temporary files: "DIR/.NAME.scorch-".
    static std::string temporaryPrefix(const std::string& target);

private:
    struct State;
    State* m_state;
};

} // namespace scorch
