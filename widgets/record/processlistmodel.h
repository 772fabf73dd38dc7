// The process list of the Record dialog: every process from /proc (PID, user, threads, CPU%, command line),
// refreshed in place, and the proxy that filters it by text and "only my processes".
#pragma once

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QString>

#include <QHash>
#include <QVector>
#include <cstdint>

namespace scorch {

class ProcessListModel final : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Pid, User, Threads, Cpu, Command, ColumnCount };
    /// Sort values (numbers for PID, threads, CPU%) under this role; the uid under UidRole.
    static constexpr int SortRole = Qt::UserRole;
    static constexpr int UidRole = Qt::UserRole + 1;

    struct Process {
        qint64 pid = 0;
        uint32_t uid = 0;
        QString user;
        int threads = 0;
        double cpuPercent = 0;
        QString command;
        uint64_t cpuTicks = 0; ///< utime + stime at the last refresh
    };

    /// `procDir` is /proc; tests may point it elsewhere.
    explicit ProcessListModel(QObject* parent = nullptr, QString procDir = QStringLiteral("/proc"));

    /// Re-reads the processes: rows of exited processes go, new ones are appended, the rest update in place.
    void refresh();
    const Process& process(int row) const { return m_rows[row]; }
    int rowOfPid(qint64 pid) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    bool readProcess(qint64 pid, Process& out) const;

    QString m_procDir;
    QVector<Process> m_rows;
    qint64 m_lastRefreshMs = 0;
    bool m_refreshed = false;
    QHash<uint32_t, QString> m_users;
};

class ProcessFilterProxy final : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit ProcessFilterProxy(QObject* parent = nullptr);
    /// Text matched against the PID (prefix), the user and the command line (case-insensitive substring).
    void setFilterText(const QString& text);
    /// Only processes of this uid; -1 = all.
    void setOnlyUid(qint64 uid);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QString m_text;
    qint64 m_uid = -1;
};

} // namespace scorch
