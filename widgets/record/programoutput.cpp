#include "record/programoutput.h"

#include "common/qtprofile.h"

#include <QDir>
#include <QFontDatabase>
#include <QTimer>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace scorch {

namespace {

constexpr qint64 kReadPerCall = 1 << 20;     // bytes per timer tick: the GUI thread stays responsive
constexpr qsizetype kLongestLine = 64 << 10; // a line without a newline shown once it is this long
constexpr int kKeptLines = 10000;

/// One line of program output for display: what a terminal would show after the last carriage return,
/// escaped, tabs kept.
QString displayLine(QByteArray line) {
    if (line.endsWith('\r'))
        line.chop(1);
    if (const qsizetype cr = line.lastIndexOf('\r'); cr >= 0)
        line = line.mid(cr + 1);
    QStringList parts;
    for (const QByteArray& part : line.split('\t'))
        parts << displayText(std::string_view(part.constData(), std::size_t(part.size())));
    return parts.join(u'\t');
}

} // namespace

ProgramOutput::ProgramOutput(QWidget* parent)
    : QPlainTextEdit(parent)
    , m_timer(new QTimer(this)) {
    setReadOnly(true);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setMaximumBlockCount(kKeptLines);
    setPlaceholderText(tr("The program's output appears here."));
    m_timer->setInterval(250);
    connect(m_timer, &QTimer::timeout, this, [this] { readMore(); });
}

ProgramOutput::~ProgramOutput() {
    if (m_fd >= 0)
        ::close(m_fd);
}

int ProgramOutput::startFile(const QString& dir, QString& error) {
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
    m_offset = 0;
    m_pending.clear();
    clear();
    QDir().mkpath(dir);
    QByteArray templ = QFile::encodeName(dir + QStringLiteral("/output-XXXXXX"));
    const int fd = mkostemp(templ.data(), O_CLOEXEC);
    if (fd < 0) {
        error =
            tr("cannot create the output file in %1: %2").arg(dir, QString::fromLocal8Bit(strerror(errno)));
        return -1;
    }
    ::unlink(templ.constData()); // gone with the last descriptor: the program's and this view's
    m_fd = fd;
    m_timer->start();
    return fd;
}

void ProgramOutput::readMore(bool flush) {
    if (m_fd < 0)
        return;
    QByteArray chunk(kReadPerCall, Qt::Uninitialized);
    ssize_t n;
    while ((n = ::pread(m_fd, chunk.data(), std::size_t(chunk.size()), m_offset)) < 0 && errno == EINTR) {
    }
    if (n > 0) {
        m_offset += n;
        chunk.truncate(n);
        appendLines(chunk);
    }
    if (flush && !m_pending.isEmpty()) {
        appendPlainText(displayLine(m_pending));
        m_pending.clear();
    }
}

void ProgramOutput::appendLines(const QByteArray& bytes) {
    m_pending += bytes;
    const qsizetype end = m_pending.lastIndexOf('\n');
    if (end < 0 && m_pending.size() < kLongestLine)
        return;
    const qsizetype cut = end >= 0 ? end : m_pending.size();
    QStringList lines;
    for (const QByteArray& line : m_pending.left(cut).split('\n'))
        lines << displayLine(line);
    m_pending.remove(0, end >= 0 ? cut + 1 : cut);
    appendPlainText(lines.join(u'\n'));
}

} // namespace scorch
