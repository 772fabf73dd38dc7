// Shared helpers for Scorch's Qt tests: building profiles from folded literals, corpus paths, files.
#pragma once

#include "scorch/bytesource.h"
#include "scorch/import.h"
#include "scorch/procstatus.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>
#include <QTest>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <map>
#include <string>

namespace scorch::test {

/// The process's pages given to the kernel lazily (MADV_FREE) and not yet taken back, in kB
/// (/proc/self/smaps_rollup); -1 when unknown.
inline long long lazyFreeKb() {
    return procKilobytes("/proc/self/smaps_rollup", "LazyFree");
}

/// How many of this process's mappings are of file `path` (/proc/self/maps).
inline int mappingsOf(const std::string& path) {
    QFile maps(QStringLiteral("/proc/self/maps"));
    if (!maps.open(QIODevice::ReadOnly))
        return 0;
    QByteArray suffix(" ");
    suffix += QByteArray::fromStdString(path);
    int n = 0;
    for (const QByteArray& line : maps.readAll().split('\n'))
        n += line.endsWith(suffix) ? 1 : 0;
    return n;
}

/// A source that is neither mapped nor seekable and gives at most `step` bytes a read(), like a pipe.
class PipeSource : public ByteSource {
public:
    explicit PipeSource(const std::string& bytes, std::size_t step = 4096)
        : m_bytes(bytes)
        , m_step(step) {}
    std::size_t read(char* buffer, std::size_t n) override {
        n = std::min({n, m_step, m_bytes.size() - m_pos});
        std::memcpy(buffer, m_bytes.data() + m_pos, n);
        m_pos += n;
        return n;
    }
    uint64_t consumed() const override { return m_pos; }
    uint64_t totalSize() const override { return 0; }

private:
    const std::string& m_bytes;
    std::size_t m_step;
    std::size_t m_pos = 0;
};

/// A profile from folded-stack text, e.g. "main;a;b 3\nmain;c 1\n".
inline Profile fromFolded(const std::string& text, const ImportOptions& options = {}) {
    return importProfile(memoryByteSource(text, "literal.folded"), "literal.folded", options);
}

/// A profile from any text held in memory (format detected like a file).
inline Profile fromText(const std::string& text, const std::string& name = "literal",
                        const ImportOptions& options = {}) {
    return importProfile(memoryByteSource(text, name), name, options);
}

inline QString corpusDir() {
    return QString::fromUtf8(SCORCH_CORPUS_DIR);
}
inline QString testData(const QString& relative) {
    return QString::fromUtf8(SCORCH_TEST_DATA) + u'/' + relative;
}

/// QSKIP-friendly check: the shared corpus lives beside the repository, not in it.
inline bool haveCorpus() {
    return QDir(corpusDir()).exists(QStringLiteral("MANIFEST.md"));
}

inline QByteArray readAll(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

/// The node of `tree` (over `p`'s frames) reached from the root by following frame names, or kRootNode.
inline NodeId nodeByPath(const Profile& p, const CallTree& tree,
                         std::initializer_list<std::string_view> names) {
    NodeId n = kRootNode;
    for (std::string_view name : names) {
        NodeId found = kRootNode;
        tree.forEachChild(n, [&](NodeId c) {
            if (p.frameName(tree.frame(c)) == name)
                found = c;
        });
        if (found == kRootNode)
            return kRootNode;
        n = found;
    }
    return n;
}

/// Folded text as a map stack -> count (ignores line order).
inline std::map<std::string, std::string> foldedLines(const QByteArray& text) {
    std::map<std::string, std::string> out;
    for (const QByteArray& line : text.split('\n')) {
        if (line.isEmpty())
            continue;
        const qsizetype sp = line.lastIndexOf(' ');
        out[line.left(sp).toStdString()] = line.mid(sp + 1).toStdString();
    }
    return out;
}

} // namespace scorch::test

#define SCORCH_REQUIRE_CORPUS()                                                                              \
    do {                                                                                                     \
        if (!scorch::test::haveCorpus())                                                                     \
            QSKIP("../shared/corpus is absent (expected beside the repository): corpus tests skipped");      \
    } while (false)
