// The file dialogs' profile filters (File > Open, File > Compare's Browse) and the Compare dialog's labels.
#include "comparedialog.h"
#include "profilefilters.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QTemporaryDir>
#include <QTest>

using namespace scorch;

namespace {
QStringList names(std::initializer_list<const char*> list) {
    QStringList out;
    for (const char* n : list)
        out << QString::fromLatin1(n);
    return out;
}
} // namespace

class TestProfileFilters : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The default filter shows every file that could be a profile: formats are detected from the content.
    void defaultFilterShowsEveryProfile() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QStringList profiles = names({"perf.data", "perf.data.old", "app.json", "page.cpuprofile",
                                            "cpu.pb.gz", "heap.prof", "scorch.rec", "run.perf", "out.folded",
                                            "stacks.txt", "big.folded.zst", "server.data", "trace.json.gz"});
        const QStringList others = names({"notes.md", "main.cpp", "picture.png"});
        for (const QString& name : profiles + others) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
        }
        QStringList shown = QDir(dir.path()).entryList(profileNamePatterns(), QDir::Files, QDir::Name);
        QStringList expected = profiles;
        expected.sort();
        shown.sort();
        QCOMPARE(shown, expected);
    }

    // The dialog string: the default first, a filter per format, "All files" last; every pattern of the
    // default is in it.
    void filterString() {
        const QStringList filters = profileFileFilter().split(QStringLiteral(";;"));
        QVERIFY(filters.size() >= 4);
        QVERIFY(filters.first().startsWith(QStringLiteral("All profiles (")));
        for (const QString& p : profileNamePatterns())
            QVERIFY2(filters.first().contains(p), qPrintable(p));
        QCOMPARE(filters.last(), QStringLiteral("All files (*)"));
        QVERIFY(filters.filter(QStringLiteral("perf.data")).size() >= 2); // default + its own entry
    }

    // "&Before:" / "&After:" are mnemonics of labels whose buddies are the combo boxes, never shown as text.
    void compareDialogLabelsHaveBuddies() {
        CompareDialog dialog({});
        const auto labels = dialog.findChildren<QLabel*>();
        int withBuddy = 0;
        for (QLabel* label : labels) {
            if (label->text() == QStringLiteral("&Before:") || label->text() == QStringLiteral("&After:")) {
                QVERIFY(qobject_cast<QComboBox*>(label->buddy()));
                ++withBuddy;
            }
        }
        QCOMPARE(withBuddy, 2);
    }
};

QTEST_MAIN(TestProfileFilters)
#include "tst_profilefilters.moc"
