// d3-flame-graph hierarchical JSON import: fixtures with totals checked by hand, self = value - children,
// negative self clamped with a warning, 100 000-level nesting without recursion, bad input.
#include "testutil.h"

#include "scorch/analysis.h"

using namespace scorch;

namespace {

QString importError(const std::string& text) {
    try {
        test::fromText(text, "bad.json");
    } catch (const ImportError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

std::string nested(int levels) {
    std::string s;
    for (int i = 0; i < levels; ++i)
        s += "{\"name\":\"n" + std::to_string(i % 7) + "\",\"value\":1,\"children\":[";
    for (int i = 0; i < levels; ++i)
        s += "]}";
    return s;
}

} // namespace

class TestD3 : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fixture() {
        const std::string path = test::testData(QStringLiteral("d3/stacks.json")).toStdString();
        const QByteArray text = test::readAll(QString::fromStdString(path));
        QCOMPARE(detectFormat(text.toStdString()), Format::D3Json);
        const Profile p = importProfile(path);
        QCOMPARE(p.meta.format, Format::D3Json);
        QCOMPARE(p.costTypes.size(), std::size_t(1));
        QCOMPARE(p.costTypes[0].decimals, 3); // paint's 25.5
        auto value = [&](std::initializer_list<std::string_view> names, bool self) {
            const NodeId n = test::nodeByPath(p, p.tree, names);
            return n == kRootNode ? -1.0 : double(self ? p.tree.self(0, n) : p.tree.total(0, n)) / 1000;
        };
        QCOMPARE(double(p.tree.grandTotal(0)) / 1000, 100.0); // the root's value is the total
        QCOMPARE(value({"root"}, true), 6.0);                 // 100 - (90 + 4)
        QCOMPARE(value({"root", "main"}, true), 9.0);         // 90 - (30 + 46 + 5)
        QCOMPARE(value({"root", "main", "parse"}, true), 18.0);
        QCOMPARE(value({"root", "main", "parse", "lex"}, true), 12.0);
        QCOMPARE(value({"root", "main", "render"}, true), 0.5); // `value` before `name` in the object
        QCOMPARE(value({"root", "main", "render", "paint"}, true), 25.5);
        QCOMPARE(value({"root", "main", "sleep"}, false), 5.0); // no value: the sum of its children
        QCOMPARE(value({"root", "main", "sleep"}, true), 0.0);
        QCOMPARE(value({"root", "main", "sleep", "io \"wait\""}, true), 5.0);
        QCOMPARE(value({"root", "gc"}, true), 4.0);
        QCOMPARE(p.meta.warningCount, uint64_t(0));
    }

    void negativeSelfIsClamped() {
        const Profile p =
            importProfile(test::testData(QStringLiteral("d3/negative-self.json")).toStdString());
        QCOMPARE(p.meta.warningCount, uint64_t(1));
        QVERIFY(QString::fromStdString(p.meta.warnings[0].message).contains(QStringLiteral("\"all\"")));
        QCOMPARE(p.tree.self(0, test::nodeByPath(p, p.tree, {"all"})), int64_t(0));
        QCOMPARE(p.tree.grandTotal(0), int64_t(15));
    }

    void deepNesting() {
        // 100 000 levels: walked without recursion; the stack keeps its innermost 65 536 frames
        const Profile p = test::fromText(nested(100000), "deep.json");
        QCOMPARE(p.tree.grandTotal(0), int64_t(1));
        QCOMPARE(p.tree.maxDepth(), uint32_t(65536));
        QVERIFY(
            QString::fromStdString(p.meta.warnings.at(0).message).contains(QStringLiteral("deeper than")));
        // beyond the walker's limit: a clear error
        QVERIFY(importError(nested(140000)).contains(QStringLiteral("nested deeper than")));
    }

    void badInput() {
        struct Case {
            std::string json;
            const char* mustMention;
        } cases[] = {
            {"{\"name\":\"a\",\"value\":\"lots\"}", "\"value\" is not a number"},
            {"{\"name\":\"a\",\"value\":1e300}", "out of range"},
            {"{\"name\":\"a\",\"value\":3,\"children\":[{\"name\":\"b\",\"value\":1}", "byte offset"},
            {"{\"name\":\"a\",\"value\":3,\"children\":[{\"name\":\"b\",\"value\":1}]} x", "byte offset"},
            {"{\"name\":\"a\",\"value\":0}", "no samples"},
            {"[1,2]", "none of the JSON formats"},
        };
        for (const Case& c : cases) {
            const QString e = importError(c.json);
            QVERIFY2(e.contains(QStringLiteral("bad.json")) && e.contains(QString::fromUtf8(c.mustMention)),
                     qPrintable(QString::fromUtf8(c.mustMention) + QStringLiteral(" / ") + e));
        }
    }
};

QTEST_GUILESS_MAIN(TestD3)
#include "tst_d3.moc"
