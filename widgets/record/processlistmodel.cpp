#include "record/processlistmodel.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QSet>

#include <pwd.h>
#include <unistd.h>

namespace scorch {

namespace {

QByteArray readProcFile(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.read(1 << 16);
}

qint64 nowMs() {
    static QElapsedTimer timer;
    if (!timer.isValid())
        timer.start();
    return timer.elapsed();
}

} // namespace

ProcessListModel::ProcessListModel(QObject* parent, QString procDir)
    : QAbstractTableModel(parent)
    , m_procDir(std::move(procDir)) {
    refresh();
}

bool ProcessListModel::readProcess(qint64 pid, Process& p) const {
    const QString dir = m_procDir + u'/' + QString::number(pid);
    const QByteArray status = readProcFile(dir + QStringLiteral("/status"));
    if (status.isEmpty())
        return false;
    p.pid = pid;
    for (const QByteArray& line : status.split('\n')) {
        if (line.startsWith("Uid:"))
            p.uid = line.mid(4).simplified().split(' ').value(0).toUInt();
        else if (line.startsWith("Threads:"))
            p.threads = line.mid(8).trimmed().toInt();
    }
    QByteArray cmdline = readProcFile(dir + QStringLiteral("/cmdline"));
    while (cmdline.endsWith('\0'))
        cmdline.chop(1);
    cmdline.replace('\0', ' ');
    if (cmdline.isEmpty())
        p.command = u'[' + QString::fromUtf8(readProcFile(dir + QStringLiteral("/comm")).trimmed()) + u']';
    else
        p.command = QString::fromUtf8(cmdline);
    // stat: "pid (comm) state ppid ... utime(14) stime(15)"; comm may contain spaces and parentheses.
    const QByteArray stat = readProcFile(dir + QStringLiteral("/stat"));
    const qsizetype close = stat.lastIndexOf(')');
    if (close > 0) {
        const QList<QByteArray> f = stat.mid(close + 2).split(' ');
        if (f.size() > 12)
            p.cpuTicks = f[11].toULongLong() + f[12].toULongLong();
    }
    return true;
}

void ProcessListModel::refresh() {
    const qint64 now = nowMs();
    const double seconds = m_refreshed ? static_cast<double>(now - m_lastRefreshMs) / 1000.0 : 0.0;
    m_lastRefreshMs = now;
    m_refreshed = true;
    static const double ticksPerSecond = static_cast<double>(sysconf(_SC_CLK_TCK));

    QHash<qint64, Process> fresh;
    const QStringList entries = QDir(m_procDir).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& e : entries) {
        bool ok = false;
        const qint64 pid = e.toLongLong(&ok);
        Process p;
        if (ok && pid > 0 && readProcess(pid, p)) {
            if (!m_users.contains(p.uid)) {
                const passwd* pw = getpwuid(p.uid);
                m_users.insert(p.uid, pw ? QString::fromLocal8Bit(pw->pw_name) : QString::number(p.uid));
            }
            p.user = m_users.value(p.uid);
            fresh.insert(pid, p);
        }
    }
    // Remove exited processes (from the end, so that row numbers stay valid).
    for (int row = static_cast<int>(m_rows.size()) - 1; row >= 0; --row) {
        if (!fresh.contains(m_rows[row].pid)) {
            beginRemoveRows({}, row, row);
            m_rows.remove(row);
            endRemoveRows();
        }
    }
    QSet<qint64> known;
    for (int row = 0; row < m_rows.size(); ++row) {
        Process& old = m_rows[row];
        Process p = fresh.value(old.pid);
        known.insert(old.pid);
        p.cpuPercent = seconds > 0 && p.cpuTicks >= old.cpuTicks
                           ? 100.0 * static_cast<double>(p.cpuTicks - old.cpuTicks) / ticksPerSecond / seconds
                           : old.cpuPercent;
        old = p;
    }
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(static_cast<int>(m_rows.size()) - 1, ColumnCount - 1));
    QVector<Process> added;
    for (auto it = fresh.cbegin(); it != fresh.cend(); ++it)
        if (!known.contains(it.key()))
            added.push_back(it.value());
    std::sort(added.begin(), added.end(), [](const Process& a, const Process& b) { return a.pid < b.pid; });
    if (!added.isEmpty()) {
        const int first = static_cast<int>(m_rows.size());
        beginInsertRows({}, first, first + static_cast<int>(added.size()) - 1);
        m_rows += added;
        endInsertRows();
    }
}

int ProcessListModel::rowOfPid(qint64 pid) const {
    for (int row = 0; row < m_rows.size(); ++row)
        if (m_rows[row].pid == pid)
            return row;
    return -1;
}

int ProcessListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ProcessListModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProcessListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const Process& p = m_rows[index.row()];
    if (role == UidRole)
        return QVariant::fromValue(qint64(p.uid));
    if (role == Qt::TextAlignmentRole)
        return index.column() == Command || index.column() == User
                   ? QVariant()
                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case Pid:
        return role == SortRole ? QVariant(p.pid) : QVariant(QString::number(p.pid));
    case User:
        return p.user;
    case Threads:
        return role == SortRole ? QVariant(p.threads) : QVariant(QString::number(p.threads));
    case Cpu:
        return role == SortRole ? QVariant(p.cpuPercent) : QVariant(QString::number(p.cpuPercent, 'f', 1));
    case Command:
        return p.command;
    default:
        return {};
    }
}

QVariant ProcessListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Pid:
        return tr("PID");
    case User:
        return tr("User");
    case Threads:
        return tr("Threads");
    case Cpu:
        return tr("CPU %");
    case Command:
        return tr("Command line");
    default:
        return {};
    }
}

ProcessFilterProxy::ProcessFilterProxy(QObject* parent)
    : QSortFilterProxyModel(parent) {
    setSortRole(ProcessListModel::SortRole);
    setDynamicSortFilter(true);
}

void ProcessFilterProxy::setFilterText(const QString& text) {
    m_text = text.trimmed();
    invalidateFilter();
}

void ProcessFilterProxy::setOnlyUid(qint64 uid) {
    m_uid = uid;
    invalidateFilter();
}

bool ProcessFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    const QAbstractItemModel* m = sourceModel();
    auto cell = [&](int column, int role = Qt::DisplayRole) {
        return m->data(m->index(sourceRow, column, sourceParent), role);
    };
    if (m_uid >= 0 && cell(0, ProcessListModel::UidRole).toLongLong() != m_uid)
        return false;
    if (m_text.isEmpty())
        return true;
    return cell(ProcessListModel::Pid).toString().startsWith(m_text) ||
           cell(ProcessListModel::User).toString().contains(m_text, Qt::CaseInsensitive) ||
           cell(ProcessListModel::Command).toString().contains(m_text, Qt::CaseInsensitive);
}

} // namespace scorch
