// File > Record…'s view of a launched program's output: the program writes its standard output and error
// to an unlinked file in the recording directory (SamplerOptions::outputFd; a file, so that a program left
// running after the recording never blocks or dies on a pipe nobody reads), and this view shows what it
// wrote so far, read on a timer off the file's end. The text is untrusted: each line is escaped like
// profile text (control characters and invalid UTF-8 as `\xHH`, bidi overrides as `\uHHHH`), a carriage
// return keeps what a terminal would show (the text after it), and only the newest lines are kept.
#pragma once

#include <QPlainTextEdit>
#include <QString>

class QTimer;

namespace scorch {

class ProgramOutput final : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit ProgramOutput(QWidget* parent = nullptr);
    ~ProgramOutput() override;

    /// A new, empty output file in `dir` for the next program; returns its descriptor for
    /// SamplerOptions::outputFd (owned by this view), or -1 with `error` set.
    int startFile(const QString& dir, QString& error);
    /// Reads what the program wrote since the last call and shows it (the timer calls it too). A line
    /// still being written waits for its newline unless `flush` (or it is over 64 KiB).
    void readMore(bool flush = false);
    /// Bytes the program wrote so far that were read.
    qint64 bytesRead() const { return m_offset; }

private:
    void appendLines(const QByteArray& bytes);

    int m_fd = -1;
    qint64 m_offset = 0;
    QByteArray m_pending; ///< the start of a line without its newline yet
    QTimer* m_timer;
};

} // namespace scorch
