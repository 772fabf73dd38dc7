// A large folded-stacks file for the tests and benchmarks that load big inputs into the window.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>

namespace scorch::test {

/// 1 MB of folded stacks with a few thousand distinct stacks; `sum` = the sum of its counts.
inline QByteArray largeFoldedBlock(qint64& sum) {
    QByteArray block;
    sum = 0;
    for (int i = 0; block.size() < (1 << 20); ++i) {
        block += "main;worker_" + QByteArray::number(i % 97) + ";step_" + QByteArray::number(i % 31) +
                 ";leaf_" + QByteArray::number(i % 13) + ' ' + QByteArray::number(1 + i % 7) + '\n';
        sum += 1 + i % 7;
    }
    return block;
}

/// About `megabytes` MB of folded stacks; returns the sum of the counts, or -1 on a write error.
inline qint64 writeLargeFolded(const QString& path, int megabytes) {
    qint64 sum = 0;
    const QByteArray block = largeFoldedBlock(sum);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return -1;
    for (int i = 0; i < megabytes; ++i)
        if (f.write(block) != block.size())
            return -1;
    return sum * megabytes;
}

} // namespace scorch::test
