// The transform options and the query commands (top, callers, callees) of the real scorch binary:
// --drop/--focus/--merge against the same operation done here on the plain folded output of every corpus
// perf script file, the module options on a perf.data file, the sandwich against a hand-computed fixture,
// top against the function table, and the stability of the JSON schema (docs/query-json.md).
#include "clirunner.h"
#include "testutil.h"

#include "scorch/analysis.h"
#include "scorch/foldedwriter.h"

#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <map>
#include <set>

namespace {

using Stacks = std::map<QByteArray, qint64>; // folded stack -> count

bool parseFolded(const QByteArray& text, Stacks& out) {
    for (const QByteArray& line : text.split('\n')) {
        if (line.isEmpty())
            continue;
        const qsizetype sp = line.lastIndexOf(' ');
        bool ok = false;
        const qint64 count = line.mid(sp + 1).toLongLong(&ok);
        if (sp < 0 || !ok)
            return false;
        out[line.left(sp)] += count;
    }
    return true;
}

/// Applies `op` to every stack's frames (or drops the stack when it returns false) and sums equal stacks;
/// stacks left empty are left out, as folded output has no line for them.
template <typename Op>
Stacks transformed(const Stacks& in, Op&& op) {
    Stacks out;
    for (const auto& [stack, count] : in) {
        QList<QByteArray> frames = stack.split(';');
        if (!op(frames) || frames.isEmpty())
            continue;
        out[frames.join(';')] += count;
    }
    return out;
}

QString escapeRegex(const QByteArray& name) {
    QString out;
    for (const QChar c : QString::fromUtf8(name)) {
        if (QStringLiteral("\\^$.|?*+()[]{}/").contains(c))
            out += u'\\';
        out += c;
    }
    return out;
}

QByteArray writeTemp(QTemporaryDir& dir, const QString& name, const QByteArray& text) {
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size())
        return {};
    return path.toUtf8();
}

QJsonObject jsonOf(const CliResult& r) {
    QJsonParseError e;
    const QJsonDocument d = QJsonDocument::fromJson(r.out, &e);
    if (e.error != QJsonParseError::NoError)
        qWarning() << "bad JSON:" << e.errorString() << r.out.left(200);
    return d.object();
}

/// The key set and value types of a JSON object, as "key:type" strings.
QStringList shape(const QJsonObject& o) {
    QStringList keys;
    for (auto it = o.begin(); it != o.end(); ++it)
        keys << it.key() + u':' + QString::number(static_cast<int>(it.value().type()));
    keys.sort();
    return keys;
}

// hand-computed fixture: f is called from a, b and main, recursive through h, once a root of its own
const QByteArray kSandwich = "main;a;f;g 10\nmain;b;f 5\nmain;f;h;f;g 3\nmain;c 7\nf;x 2\n";

} // namespace

class TestQuery : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void transformsMatchIndependentCode_data() {
        QTest::addColumn<QString>("input");
        if (!scorch::test::haveCorpus())
            return;
        const QString root = scorch::test::corpusDir() + QStringLiteral("/perf-script/inputs");
        QStringList files;
        for (QDirIterator it(root, QDir::Files, QDirIterator::Subdirectories); it.hasNext();)
            files << it.next();
        files.sort();
        for (const QString& f : files)
            QTest::newRow(qPrintable(f.mid(root.size() + 1))) << f;
    }
    void transformsMatchIndependentCode() {
        if (!scorch::test::haveCorpus())
            QSKIP("../shared/corpus is absent");
        QFETCH(QString, input);
        const CliResult plain = runScorch({QStringLiteral("collapse"), input});
        if (plain.exitCode != 0 || plain.out.isEmpty())
            QSKIP("scorch does not collapse this input (a negative case)");
        Stacks stacks;
        QVERIFY(parseFolded(plain.out, stacks));
        // the frame on most stacks below the root: matches some but usually not all stacks
        std::map<QByteArray, int> onStacks;
        for (const auto& [stack, count] : stacks) {
            const QList<QByteArray> frames = stack.split(';');
            std::set<QByteArray> seen(frames.begin() + 1, frames.end());
            for (const QByteArray& f : seen)
                ++onStacks[f];
        }
        if (onStacks.empty())
            QSKIP("only root frames");
        const QByteArray name = std::max_element(onStacks.begin(), onStacks.end(), [](auto& a, auto& b) {
                                    return a.second < b.second;
                                })->first;
        // a whole name, and a search for part of one (not anchored: found anywhere in a name)
        const QString whole = u'^' + escapeRegex(name) + u'$';
        const QString part = escapeRegex(name.left(std::max<qsizetype>(3, name.size() / 2)));
        for (const QString& pattern : {whole, part}) {
            const QRegularExpression re(pattern);
            QVERIFY2(re.isValid(), qPrintable(pattern));
            auto matches = [&](const QByteArray& f) {
                return re.match(QString::fromUtf8(f)).hasMatch();
            };
            const Stacks drop = transformed(
                stacks, [&](QList<QByteArray>& fs) { return std::none_of(fs.begin(), fs.end(), matches); });
            const Stacks focus = transformed(stacks, [&](QList<QByteArray>& fs) {
                const auto first = std::find_if(fs.begin(), fs.end(), matches);
                if (first == fs.end())
                    return false;
                fs.erase(fs.begin(), first);
                return true;
            });
            const Stacks merge = transformed(stacks, [&](QList<QByteArray>& fs) {
                fs.removeIf(matches);
                return true;
            });
            const std::pair<const char*, const Stacks*> cases[] = {
                {"--drop", &drop}, {"--focus", &focus}, {"--merge", &merge}};
            for (const auto& [option, expected] : cases) {
                const CliResult r =
                    runScorch({QStringLiteral("collapse"), QString::fromUtf8(option), pattern, input});
                QVERIFY2(r.exitCode == 0, r.err.constData());
                Stacks got;
                QVERIFY(parseFolded(r.out, got));
                if (got != *expected) {
                    qWarning() << option << pattern << "got" << got.size() << "stacks, expected"
                               << expected->size();
                    QFAIL("transformed output differs from the independent transform");
                }
            }
            // in the order given: dropping first leaves nothing to focus on, focusing first keeps the frame
            const CliResult both = runScorch({QStringLiteral("collapse"), QStringLiteral("--drop"), pattern,
                                              QStringLiteral("--focus"), pattern, input});
            QCOMPARE(both.out, QByteArray());
            const CliResult merged = runScorch({QStringLiteral("collapse"), QStringLiteral("--merge"),
                                                pattern, QStringLiteral("--focus"), pattern, input});
            QCOMPARE(merged.out, QByteArray());
        }
    }

    void badRegexAndUnknownModuleAreOneLineErrors() {
        QTemporaryDir dir;
        const QString file = QString::fromUtf8(writeTemp(dir, QStringLiteral("s.folded"), kSandwich));
        const CliResult bad =
            runScorch({QStringLiteral("collapse"), QStringLiteral("--focus"), QStringLiteral("("), file});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.startsWith("scorch: --focus: bad regular expression \"(\""), bad.err.constData());
        QCOMPARE(bad.err.count('\n'), 1);
        const CliResult module = runScorch(
            {QStringLiteral("top"), QStringLiteral("--merge-module"), QStringLiteral("libnope.so"), file});
        QCOMPARE(module.exitCode, 1);
        QVERIFY2(module.err.contains("no module named \"libnope.so\""), module.err.constData());
    }

    void moduleOptionsOnPerfData() {
        const QString file = scorch::test::testData(QStringLiteral("perfdata/fp-two-events.data"));
        const CliResult plain = runScorch({QStringLiteral("collapse"), file});
        QVERIFY2(plain.exitCode == 0, plain.err.constData());
        Stacks stacks;
        QVERIFY(parseFolded(plain.out, stacks));
        // which printed names belong to which module: from top's JSON
        const CliResult top = runScorch({QStringLiteral("top"), QStringLiteral("-n"),
                                         QStringLiteral("100000"), QStringLiteral("--json"), file});
        QVERIFY2(top.exitCode == 0, top.err.constData());
        std::map<QString, std::set<QByteArray>> namesOf; // module base name -> names
        std::map<QByteArray, int> moduleCount;           // name -> modules it is in
        for (const QJsonValue v : jsonOf(top)[QStringLiteral("functions")].toArray()) {
            const QString module = v[QStringLiteral("module")].toString();
            const QByteArray name = v[QStringLiteral("name")].toString().toUtf8();
            ++moduleCount[name];
            if (!module.isEmpty())
                namesOf[module.section(u'/', -1)].insert(name);
        }
        // the module with the most functions whose names are its own
        QString module;
        for (const auto& [m, names] : namesOf)
            if (std::all_of(names.begin(), names.end(),
                            [&](const QByteArray& n) { return moduleCount[n] == 1; }) &&
                (module.isEmpty() || names.size() > namesOf[module].size()))
                module = m;
        QVERIFY2(!module.isEmpty(), "the perf.data file names no modules");
        const std::set<QByteArray>& mine = namesOf[module];
        auto inModule = [&](const QByteArray& f) {
            return mine.count(f) != 0;
        };
        const Stacks merged = transformed(stacks, [&](QList<QByteArray>& fs) {
            fs.removeIf(inModule);
            return true;
        });
        const QByteArray label = '[' + module.toUtf8() + ']';
        const Stacks collapsed = transformed(stacks, [&](QList<QByteArray>& fs) {
            QList<QByteArray> out;
            for (const QByteArray& f : fs)
                if (!inModule(f))
                    out << f;
                else if (out.isEmpty() || out.back() != label)
                    out << label;
            fs = out;
            return true;
        });
        QVERIFY(collapsed != stacks); // the module is on some stack
        const CliResult m =
            runScorch({QStringLiteral("collapse"), QStringLiteral("--merge-module"), module, file});
        QVERIFY2(m.exitCode == 0, m.err.constData());
        Stacks got;
        QVERIFY(parseFolded(m.out, got));
        QVERIFY(got == merged);
        const CliResult c =
            runScorch({QStringLiteral("collapse"), QStringLiteral("--collapse-module"), module, file});
        QVERIFY2(c.exitCode == 0, c.err.constData());
        got.clear();
        QVERIFY(parseFolded(c.out, got));
        QVERIFY(got == collapsed);
        // the per-thread output follows the transform: --tid lines sum to the same stacks below the root
        const CliResult tid = runScorch({QStringLiteral("collapse"), QStringLiteral("--tid"),
                                         QStringLiteral("--collapse-module"), module, file});
        Stacks perThread, summed;
        QVERIFY(parseFolded(tid.out, perThread));
        for (const auto& [stack, count] : perThread)
            summed[stack.mid(stack.indexOf(';'))] += count;
        Stacks collapsedBelowRoot;
        for (const auto& [stack, count] : collapsed)
            collapsedBelowRoot[stack.mid(stack.indexOf(';'))] += count;
        QVERIFY(summed == collapsedBelowRoot);
    }

    void sandwichText() {
        QTemporaryDir dir;
        const QString file = QString::fromUtf8(writeTemp(dir, QStringLiteral("s.folded"), kSandwich));
        const CliResult up = runScorch({QStringLiteral("callers"), file, QStringLiteral("f")});
        QVERIFY2(up.exitCode == 0, up.err.constData());
        QCOMPARE(up.out, QByteArray("# callers of f: self 5 (18.52%), total 20 (74.07%) of 27 samples\n"
                                    "# total%       total  function, then its callers outward\n"
                                    "  74.07%          20  f\n"
                                    "  37.04%          10    a\n"
                                    "  37.04%          10      main\n"
                                    "  18.52%           5    b\n"
                                    "  18.52%           5      main\n"
                                    "  11.11%           3    main\n"));
        const CliResult down = runScorch({QStringLiteral("callees"), file, QStringLiteral("^f$")});
        QVERIFY2(down.exitCode == 0, down.err.constData());
        QCOMPARE(down.out, QByteArray("# callees of f: self 5 (18.52%), total 20 (74.07%) of 27 samples\n"
                                      "# total%       total  function, then what it calls\n"
                                      "  74.07%          20  f\n"
                                      "  37.04%          10    g\n"
                                      "  11.11%           3    h\n"
                                      "  11.11%           3      f\n"
                                      "  11.11%           3        g\n"
                                      "   7.41%           2    x\n"));
        const CliResult none = runScorch({QStringLiteral("callers"), file, QStringLiteral("nosuch")});
        QCOMPARE(none.exitCode, 1);
        QVERIFY(none.err.contains("no function named or matching \"nosuch\""));
        const CliResult many = runScorch({QStringLiteral("callers"), file, QStringLiteral("^[abc]$")});
        QCOMPARE(many.exitCode, 1);
        QVERIFY2(many.err.contains("matches 3 functions: a, b, c"), many.err.constData());
        // transforms apply first: with b dropped, f has no self cost and two call sites
        const CliResult dropped = runScorch({QStringLiteral("callers"), QStringLiteral("--drop"),
                                             QStringLiteral("^b$"), file, QStringLiteral("f")});
        QVERIFY(dropped.out.startsWith("# callers of f: self 0 (0.00%), total 15 (68.18%) of 22 samples\n"));
    }

    void sandwichJson() {
        QTemporaryDir dir;
        const QString file = QString::fromUtf8(writeTemp(dir, QStringLiteral("s.folded"), kSandwich));
        for (const QString& command : {QStringLiteral("callers"), QStringLiteral("callees")}) {
            const CliResult r = runScorch({command, QStringLiteral("--json"), file, QStringLiteral("f")});
            QVERIFY2(r.exitCode == 0, r.err.constData());
            const QJsonObject o = jsonOf(r);
            // schema scorch-query/1: these keys with these types, nothing more (docs/query-json.md)
            QCOMPARE(shape(o), QStringList({"command:3", "event:5", "file:3", "function:5", "grandTotal:2",
                                            "schema:3", "tree:4"}));
            QCOMPARE(o[QStringLiteral("schema")].toString(), QStringLiteral("scorch-query/1"));
            QCOMPARE(o[QStringLiteral("command")].toString(), command);
            QCOMPARE(shape(o[QStringLiteral("event")].toObject()), QStringList({"name:3", "unit:3"}));
            const QJsonObject f = o[QStringLiteral("function")].toObject();
            QCOMPARE(shape(f), QStringList({"module:3", "name:3", "self:2", "total:2"}));
            QCOMPARE(f[QStringLiteral("self")].toInt(), 5);
            QCOMPARE(f[QStringLiteral("total")].toInt(), 20);
            QCOMPARE(o[QStringLiteral("grandTotal")].toInt(), 27);
            const QJsonArray tree = o[QStringLiteral("tree")].toArray();
            QCOMPARE(tree.size(), 1);
            // every node has the same shape; children's totals add up to the parent's total minus its self
            std::vector<QJsonObject> todo{tree[0].toObject()};
            int nodes = 0;
            while (!todo.empty()) {
                const QJsonObject n = todo.back();
                todo.pop_back();
                ++nodes;
                QCOMPARE(shape(n), QStringList({"children:4", "module:3", "name:3", "self:2", "total:2"}));
                qint64 sum = n[QStringLiteral("self")].toInteger();
                for (const QJsonValue c : n[QStringLiteral("children")].toArray()) {
                    sum += c[QStringLiteral("total")].toInteger();
                    todo.push_back(c.toObject());
                }
                QCOMPARE(sum, n[QStringLiteral("total")].toInteger());
            }
            QCOMPARE(nodes, command == QStringLiteral("callers") ? 6 : 6);
            QCOMPARE(tree[0][QStringLiteral("total")].toInt(), 20);
        }
    }

    void topMatchesTheFunctionTable() {
        const QString file = scorch::test::testData(QStringLiteral("perfdata/fp-two-events.data"));
        const scorch::Profile p = scorch::importProfile(file.toStdString());
        for (const QString& by : {QStringLiteral("self"), QStringLiteral("total")}) {
            const CliResult r =
                runScorch({QStringLiteral("top"), QStringLiteral("--json"), QStringLiteral("--by"), by,
                           QStringLiteral("-n"), QStringLiteral("5"), file});
            QVERIFY2(r.exitCode == 0, r.err.constData());
            const QJsonObject o = jsonOf(r);
            QCOMPARE(shape(o), QStringList({"by:3", "command:3", "event:5", "file:3", "functions:4",
                                            "grandTotal:2", "schema:3"}));
            const QJsonArray fs = o[QStringLiteral("functions")].toArray();
            QCOMPARE(fs.size(),
                     std::min<qsizetype>(5, static_cast<qsizetype>(scorch::functionCosts(p).size())));
            // each row equals the function table's row of that name and module; rows are sorted by `by`
            std::map<std::pair<QString, QString>, scorch::FunctionCost> table;
            for (const scorch::FunctionCost& fc : scorch::functionCosts(p))
                table.emplace(std::pair(QString::fromStdString(scorch::foldedFrameName(p, fc.frame, {})),
                                        QString::fromUtf8(p.strings.view(p.frames[fc.frame].module))),
                              fc);
            qint64 previous = INT64_MAX;
            for (const QJsonValue v : fs) {
                QCOMPARE(shape(v.toObject()),
                         QStringList({"callSites:2", "module:3", "name:3", "self:2", "total:2"}));
                const auto it = table.find(
                    {v[QStringLiteral("name")].toString(), v[QStringLiteral("module")].toString()});
                QVERIFY(it != table.end());
                QCOMPARE(v[QStringLiteral("self")].toInteger(), it->second.self[0]);
                QCOMPARE(v[QStringLiteral("total")].toInteger(), it->second.total[0]);
                QCOMPARE(v[QStringLiteral("callSites")].toInteger(), qint64(it->second.callSites));
                const qint64 key = v[by].toInteger();
                QVERIFY(key <= previous);
                previous = key;
            }
        }
    }

    void topTextEscapesControlCharacters() {
        QTemporaryDir dir;
        const QString file = QString::fromUtf8(
            writeTemp(dir, QStringLiteral("e.folded"), "main;evil\x1b[2Jname 3\nmain;ok 1\n"));
        const CliResult r = runScorch({QStringLiteral("top"), file});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(!r.out.contains('\x1b'));
        QVERIFY2(r.out.contains("evil\\x1b[2Jname"), r.out.constData());
        QVERIFY2(r.out.contains("   0.00%           0  100.00%           4  main\n"), r.out.constData());
        const CliResult json = runScorch({QStringLiteral("top"), QStringLiteral("--json"), file});
        // JSON names are the names as `collapse` prints them (control characters as \xHH), so a script can
        // pass one back as FUNCTION
        QCOMPARE(jsonOf(json)[QStringLiteral("functions")][0][QStringLiteral("name")].toString(),
                 QStringLiteral("evil\\x1b[2Jname"));
    }
};

QTEST_GUILESS_MAIN(TestQuery)
#include "tst_query.moc"
