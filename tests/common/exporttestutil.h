// Helpers for the exporter tests: stacks of a profile by frame name, corpus inputs that import.
#pragma once

#include "testutil.h"

#include <QDirIterator>
#include <QStringList>

#include <map>
#include <sstream>
#include <string>

namespace scorch::test {

/// Self cost of every stack (frame names joined by '\x1f', root first) of cost type `type`, rescaled to
/// `decimals` decimals; stacks that differ only in frame details (module, kind) are summed. Empty names
/// read as `emptyName`.
inline std::map<std::string, int64_t> stacksByName(const Profile& p, std::size_t type, int decimals,
                                                   std::string_view emptyName = {}) {
    std::map<std::string, int64_t> out;
    const int from = p.costTypes[type].decimals;
    for (NodeId n = 1; n < p.tree.size(); ++n) {
        int64_t v = p.tree.self(type, n);
        if (v == 0)
            continue;
        v = decimals >= from ? v * pow10(decimals - from) : v / pow10(from - decimals);
        std::string key;
        for (NodeId m : p.tree.path(n)) {
            if (!key.empty())
                key += '\x1f';
            key += p.nodeName(m).empty() ? emptyName : p.nodeName(m);
        }
        out[key] += v;
    }
    for (auto it = out.begin(); it != out.end();)
        it = it->second == 0 ? out.erase(it) : std::next(it);
    return out;
}

/// Every corpus input of the formats Scorch imports (perf script, folded, speedscope, Chrome profiles and
/// traces, pprof) that imports without error, as paths.
inline QStringList importableCorpusInputs() {
    QStringList files;
    for (const char* dir : {"/perf-script/inputs", "/folded/inputs", "/speedscope/inputs",
                            "/other/chrome/inputs", "/other/trace-event/inputs", "/other/pprof/inputs"}) {
        for (QDirIterator it(corpusDir() + QString::fromUtf8(dir), QDir::Files, QDirIterator::Subdirectories);
             it.hasNext();) {
            const QString path = it.next();
            try {
                const Profile p = importProfile(path.toStdString());
                if (!p.costTypes.empty())
                    files << path;
            } catch (const ImportError&) {
                // invalid inputs (the corpus keeps some on purpose) have nothing to round-trip
            }
        }
    }
    files.sort();
    return files;
}

template <typename F>
std::string written(F&& write) {
    std::ostringstream out;
    write(out);
    return std::move(out).str();
}

} // namespace scorch::test
