// escapeText: untrusted profile text shown as one line of printable text.
#include "scorch/safetext.h"

#include <QTest>

#include <string>

using scorch::escapeText;

class TestSafeText : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void plainTextPassesUnchanged() {
        for (const std::string s : {"", "main", "std::vector<int>::push_back(int const&)", "a\\x1b",
                                    "ünïcødé ✓ 名前", "emoji \xF0\x9F\x94\xA5", "[unknown]"}) {
            QCOMPARE(escapeText(s), s);
            QVERIFY(!scorch::needsEscape(s));
        }
    }

    void controlCharactersAreEscaped() {
        QCOMPARE(escapeText("\x1b]0;pwned\x07"), std::string("\\x1b]0;pwned\\x07"));
        QCOMPARE(escapeText("a\rb\nc"), std::string("a\\x0db\\x0ac"));
        QCOMPARE(escapeText(std::string("x\0y", 3)), std::string("x\\x00y"));
        QCOMPARE(escapeText("tab\there\x7f"), std::string("tab\\x09here\\x7f"));
        // C1 controls (U+0085 NEL, U+009B CSI) as their two UTF-8 bytes
        QCOMPARE(escapeText("a\xC2\x85"
                            "b\xC2\x9B"),
                 std::string("a\\xc2\\x85b\\xc2\\x9b"));
    }

    void bidiOverridesAndSeparatorsAreEscaped() {
        QCOMPARE(escapeText("abc\xE2\x80\xAE"
                            "fed"),
                 std::string("abc\\u202efed")); // U+202E
        QCOMPARE(escapeText("\xE2\x80\xAA\xE2\x81\xA6\xE2\x81\xA9"), std::string("\\u202a\\u2066\\u2069"));
        QCOMPARE(escapeText("line\xE2\x80\xA8"
                            "two"),
                 std::string("line\\u2028two"));
        // neighbours of the ranges stay: U+2029 is escaped, U+202F (narrow no-break space) is not
        QCOMPARE(escapeText("\xE2\x80\xAF"), std::string("\xE2\x80\xAF"));
    }

    void invalidUtf8IsEscapedBytewise() {
        QCOMPARE(escapeText("a\xFF"
                            "b"),
                 std::string("a\\xffb"));
        QCOMPARE(escapeText("\xC3"), std::string("\\xc3"));                   // truncated sequence
        QCOMPARE(escapeText("\xC0\xAF"), std::string("\\xc0\\xaf"));          // overlong '/'
        QCOMPARE(escapeText("\xED\xA0\x80"), std::string("\\xed\\xa0\\x80")); // a surrogate
        QCOMPARE(escapeText("\xE2\x80"), std::string("\\xe2\\x80"));          // truncated U+202E cannot hide
    }

    void resultIsOneLineOfPrintableText() {
        std::string all;
        for (int c = 0; c < 256; ++c)
            all += static_cast<char>(c);
        const std::string e = escapeText(all);
        for (const char c : e)
            QVERIFY(static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7F);
        QVERIFY(!scorch::needsEscape(e));
        QCOMPARE(escapeText(e), e); // escaping twice changes nothing more
    }
};

QTEST_GUILESS_MAIN(TestSafeText)
#include "tst_safetext.moc"
