// ByteScanner (core/src/util/linescan.h): the line ends the text importers split on, found 64 bytes at a
// time, must be exactly the positions a byte-by-byte scan finds, for every length and alignment.
#include "util/linescan.h"

#include <QTest>

#include <random>
#include <string>
#include <vector>

using scorch::detail::ByteScanner;

namespace {

std::vector<std::size_t> scanned(const std::string& s, std::size_t begin, std::size_t end, char c) {
    std::vector<std::size_t> out;
    ByteScanner scanner(s.data() + begin, s.data() + end, c);
    while (const char* p = scanner.next())
        out.push_back(static_cast<std::size_t>(p - s.data()));
    return out;
}

std::vector<std::size_t> expected(const std::string& s, std::size_t begin, std::size_t end, char c) {
    std::vector<std::size_t> out;
    for (std::size_t i = begin; i < end; ++i)
        if (s[i] == c)
            out.push_back(i);
    return out;
}

} // namespace

class TestLineScan : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyLengthAndAlignmentMatchesAByteScan() {
        std::mt19937 rng(7);
        for (const int density : {2, 7, 50, 1000}) { // about one '\n' in `density` bytes
            std::string s(400, 'x');
            for (char& ch : s)
                ch = rng() % density == 0 ? '\n' : static_cast<char>(rng() % 256);
            for (std::size_t begin = 0; begin < 70; ++begin)
                for (std::size_t end = begin; end <= s.size(); end += 1 + end % 5)
                    for (const char c : {'\n', '\0', '\xff'})
                        QCOMPARE(scanned(s, begin, end, c), expected(s, begin, end, c));
        }
    }

    void edgesOfBlocks() {
        std::string s(256, 'a');
        for (const std::size_t i : {0, 15, 16, 31, 32, 47, 48, 63, 64, 127, 128, 255})
            s[i] = '\n';
        QCOMPARE(scanned(s, 0, s.size(), '\n'), expected(s, 0, s.size(), '\n'));
        const std::string lines(130, '\n'); // every byte a line end
        QCOMPARE(scanned(lines, 0, lines.size(), '\n').size(), lines.size());
        QCOMPARE(scanned(lines, 3, 3, '\n').size(), std::size_t{0}); // empty range
    }
};

QTEST_APPLESS_MAIN(TestLineScan)
#include "tst_linescan.moc"
