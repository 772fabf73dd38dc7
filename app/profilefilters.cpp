#include "profilefilters.h"

#include <QCoreApplication>

namespace scorch {
namespace {

struct FormatPatterns {
    const char* name;
    const char* patterns;
};

// One line per format Scorch opens; the compressed variants (.gz, .zst, .xz) of each are opened too.
constexpr FormatPatterns kFormats[] = {
    {QT_TRANSLATE_NOOP("scorch::ProfileFilters", "perf.data recordings"), "perf.data* *.data *.perf.data"},
    {QT_TRANSLATE_NOOP("scorch::ProfileFilters", "perf script output"),
     "*.perf *.script *.txt *.stacks *.out"},
    {QT_TRANSLATE_NOOP("scorch::ProfileFilters", "folded stacks"), "*.folded *.collapsed *.txt"},
    {QT_TRANSLATE_NOOP("scorch::ProfileFilters", "speedscope, Chrome and d3 JSON"),
     "*.json *.cpuprofile *.trace *.speedscope"},
    {QT_TRANSLATE_NOOP("scorch::ProfileFilters", "pprof"), "*.pb *.pb.gz *.prof *.pprof *.pprof.gz"},
    {QT_TRANSLATE_NOOP("scorch::ProfileFilters", "Scorch recordings"), "*.rec"},
    {QT_TRANSLATE_NOOP("scorch::ProfileFilters", "perf archives (beside or holding a perf.data)"),
     "*.tar.bz2 *.tar.gz *.tar.zst *.tar.xz"},
};
constexpr const char* kCompressed = "*.gz *.zst *.xz";

QString tr(const char* text) {
    return QCoreApplication::translate("scorch::ProfileFilters", text);
}

} // namespace

QStringList profileNamePatterns() {
    QStringList all;
    for (const FormatPatterns& f : kFormats)
        for (const QString& p : QString::fromLatin1(f.patterns).split(QLatin1Char(' ')))
            if (!all.contains(p))
                all << p;
    all << QString::fromLatin1(kCompressed).split(QLatin1Char(' '));
    return all;
}

QStringList profileFormatNames() {
    QStringList names;
    for (const FormatPatterns& f : kFormats)
        names << tr(f.name);
    return names;
}

QString profileFileFilter() {
    QStringList filters;
    filters << tr("All profiles (%1)").arg(profileNamePatterns().join(QLatin1Char(' ')));
    for (const FormatPatterns& f : kFormats)
        filters << QStringLiteral("%1 (%2)").arg(tr(f.name), QString::fromLatin1(f.patterns));
    filters << tr("All files (*)");
    return filters.join(QStringLiteral(";;"));
}

} // namespace scorch
