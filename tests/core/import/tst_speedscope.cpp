// speedscope JSON import: the corpus files against speedscope's own per-frame totals, streaming across read
// boundaries, and bad input (truncated, wrong types, huge numbers, deep nesting, invalid indices).
#include "testutil.h"

#include "scorch/analysis.h"

#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace scorch;

namespace {

QString importError(const std::string& text) {
    try {
        test::fromText(text, "bad.speedscope.json");
    } catch (const ImportError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

/// JSON written with ' instead of " (keeps the test data readable; the texts contain no ').
std::string j(std::string text) {
    for (char& c : text)
        if (c == '\'')
            c = '"';
    return text;
}

const std::string kHeader = j("{'$schema':'https://www.speedscope.app/file-format-schema.json',");

} // namespace

class TestSpeedscope : public QObject {
    Q_OBJECT
private Q_SLOTS:
    /// Every corpus input: per frame self and total weight equal speedscope's snapshot (unit-scaled), or the
    /// import fails where speedscope's does, with the same explanation.
    void corpus() {
        SCORCH_REQUIRE_CORPUS();
        const QString root = test::corpusDir() + QStringLiteral("/speedscope");
        int checked = 0;
        for (QDirIterator it(root + QStringLiteral("/inputs"), QDir::Files, QDirIterator::Subdirectories);
             it.hasNext();) {
            const QString input = it.next();
            QString expectedPath = input;
            expectedPath.replace(QStringLiteral("/inputs/"), QStringLiteral("/expected/"));
            expectedPath += QStringLiteral(".speedscope-dump.json");
            const QJsonObject expected = QJsonDocument::fromJson(test::readAll(expectedPath)).object();
            QVERIFY2(!expected.isEmpty(), qPrintable(expectedPath));
            if (expected.contains(QStringLiteral("importError"))) {
                try {
                    importProfile(input.toStdString());
                    QFAIL(qPrintable(input + QStringLiteral(" should not import")));
                } catch (const ImportError& e) {
                    QVERIFY2(QString::fromUtf8(e.what()).contains(
                                 QStringLiteral("leave frame \"B\" while frame \"A\" was at the top at 4")),
                             e.what());
                }
                ++checked;
                continue;
            }
            const Profile p = importProfile(input.toStdString());
            QCOMPARE(p.meta.format, Format::Speedscope);
            const QJsonArray profiles = expected.value(QStringLiteral("profiles")).toArray();
            QCOMPARE(p.threads.size(), std::size_t(profiles.size()));
            const double scale =
                p.costTypes[0].unit == CostUnit::Nanoseconds ? 1e9 : 1; // these are in seconds
            std::map<std::string_view, FunctionCost> byName;
            for (const FunctionCost& fc : functionCosts(p))
                byName[p.frameName(fc.frame)] = fc;
            for (const QJsonValue& f : profiles.at(0).toObject().value(QStringLiteral("frames")).toArray()) {
                const std::string name = f.toObject().value(QStringLiteral("name")).toString().toStdString();
                QVERIFY2(byName.count(name), name.c_str());
                QCOMPARE(double(byName[name].self[0]) / scale,
                         f.toObject().value(QStringLiteral("selfWeight")).toDouble());
                QCOMPARE(double(byName[name].total[0]) / scale,
                         f.toObject().value(QStringLiteral("totalWeight")).toDouble());
            }
            QCOMPARE(p.threads[0].name,
                     profiles.at(0).toObject().value(QStringLiteral("name")).toString().toStdString());
            ++checked;
        }
        QCOMPARE(checked, 4);
    }

    void streamsAcrossReadBoundaries() {
        // > 1 MiB so the walker sees several pieces; names with escapes and unicode cross the piece borders
        std::string json = kHeader;
        json += j("'shared':{'frames':[{'name':'main'},{'name':'say \\\'hi\\\' "
                  "\\u00e9t\\u00e9'},{'name':'leaf','file':'x.c','line':12}]},");
        json += j("'profiles':[{'type':'sampled','name':'t1','unit':'milliseconds','startValue':0,'endValue':"
                  "1,'samples':[");
        const int n = 200000;
        for (int i = 0; i < n; ++i)
            json += i ? (i % 3 ? ",[0,1,2]" : ",[0,2]") : "[0,1,2]";
        json += j("],'weights':[");
        for (int i = 0; i < n; ++i)
            json += i ? ",0.5" : "0.5";
        json += "]}]}";
        QVERIFY(json.size() > (2u << 20));
        const Profile p = test::fromText(json, "big.speedscope.json");
        QCOMPARE(p.meta.samples, uint64_t(n));
        QCOMPARE(p.tree.grandTotal(0), int64_t(n) * 500000); // 0.5 ms each, in ns
        bool quoted = false, located = false;
        for (uint32_t f = 1; f < p.frames.size(); ++f) {
            quoted = quoted || p.frameName(FrameId{f}) == "say \"hi\" \xc3\xa9t\xc3\xa9";
            located = located ||
                      (p.strings.view(p.frames[FrameId{f}].file) == "x.c" && p.frames[FrameId{f}].line == 12);
        }
        QVERIFY(quoted);
        QVERIFY(located);
    }

    void evented() {
        const Profile p = test::fromText(
            std::string(kHeader) + j("'shared':{'frames':[{'name':'a'},{'name':'b'}]},\n            "
                                     "'profiles':[{'type':'evented','name':'e','unit':'nanoseconds','"
                                     "startValue':0,'endValue':10,'events':[\n            "
                                     "{'type':'O','frame':0,'at':0},{'at':2,'type':'O','frame':1},{'type':'C'"
                                     ",'frame':1,'at':7},{'type':'C','frame':0,'at':10}]},\n            "
                                     "{'type':'sampled','name':'s','unit':'nanoseconds','startValue':0,'"
                                     "endValue':1,'samples':[[1]],'weights':[3]}]}"));
        QCOMPARE(p.tree.grandTotal(0), int64_t(13));
        QCOMPARE(p.threads.size(), std::size_t(2)); // one per profile, shown merged or one at a time
        QCOMPARE(p.threads[0].name, std::string("e"));
        // unitless fractional weights are kept with decimals, not rounded
        const auto sampled = [](const std::string& weights) {
            return test::fromText(kHeader +
                                  j("'shared':{'frames':[{'name':'a'}]},'profiles':[{'type':'sampled',"
                                    "'name':'s','unit':'none','startValue':0,'endValue':1,"
                                    "'samples':[[0],[0]],'weights':[") +
                                  weights + "]}]}");
        };
        const Profile f = sampled("1,0.25");
        QCOMPARE(f.costTypes[0].decimals, 3);
        QCOMPARE(formatCostValue(f.tree.grandTotal(0), 3), std::string("1.25"));
        // a large weight keeps its last decimal (its fifth is not taken for a rounding error of the fourth)
        const Profile g = sampled("2,88012.19435");
        QCOMPARE(g.costTypes[0].decimals, 5);
        QCOMPARE(formatCostValue(g.tree.grandTotal(0), 5), std::string("88014.19435"));
    }

    void badInput() {
        const std::string frames = j("'shared':{'frames':[{'name':'a'}]},");
        const std::string sampled =
            j("'profiles':[{'type':'sampled','name':'p','unit':'none','startValue':0,'endValue':1,");
        struct Case {
            std::string json;
            const char* mustMention;
        } cases[] = {
            {std::string(kHeader) + frames + sampled + j("'samples':[[0],[0"), "truncated"},
            {std::string(kHeader) + frames + sampled + j("'samples':[['x']],'weights':[1]}]}"), "samples[0]"},
            {std::string(kHeader) + frames + sampled + j("'samples':[[0]],'weights':[1,2]}]}"),
             "1 samples but 2 weights"},
            {std::string(kHeader) + frames + sampled + j("'samples':[[99]],'weights':[1]}]}"), "frame 99"},
            {std::string(kHeader) + frames + sampled + j("'samples':[[1e300]],'weights':[1]}]}"),
             "samples[0]"},
            {std::string(kHeader) + frames + sampled + j("'samples':[[0]],'weights':[1]}]} trailing"),
             "after the JSON"},
            {std::string(kHeader) + frames +
                 j("'profiles':[{'type':'evented','name':'e','unit':'none','startValue':0,'endValue':1,'"
                   "events':[{'type':'O','frame':0,'at':0}]}]}"),
             "never closed"},
            {std::string(kHeader) + frames +
                 j("'profiles':[{'type':'evented','name':'e','unit':'none','startValue':0,'endValue':1,'"
                   "events':[{'type':'O','frame':0,'at':5},{'type':'C','frame':0,'at':1}]}]}"),
             "back in time"},
            {std::string(kHeader) + "\"x\":" + std::string(100000, '[') + std::string(100000, ']') + "}",
             "nested deeper"},
            {std::string(kHeader) + frames + sampled + "\"samples\":" + std::string(100000, '[') + "}",
             "nested deeper"},
        };
        for (const Case& c : cases) {
            const QString e = importError(c.json);
            QVERIFY2(e.contains(QStringLiteral("bad.speedscope.json")) &&
                         e.contains(QString::fromUtf8(c.mustMention)),
                     qPrintable(QString::fromUtf8(c.mustMention) + QStringLiteral(" / ") + e));
        }
    }
};

QTEST_GUILESS_MAIN(TestSpeedscope)
#include "tst_speedscope.moc"
