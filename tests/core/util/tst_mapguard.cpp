// MappingGuard (core/src/util/mapguard.h): the pages a guarded file mapping loses when its file shrinks read
// as zeros and are reported, instead of raising SIGBUS; a SIGBUS anywhere else still ends the process.
#include "patience.h"
#include "testutil.h"
#include "util/mapguard.h"

#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <string>

using scorch::detail::MappingGuard;

namespace {

constexpr std::size_t kPage = 4096;

/// A file of `pages` pages, byte i = 'a' + i % 26, mapped read-only; the descriptor stays open for ftruncate.
struct MappedFile {
    int fd = -1;
    const volatile char* bytes = nullptr;
    std::size_t size = 0;
    MappedFile(const std::string& path, std::size_t pages)
        : size(pages * kPage) {
        fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
        std::string text(size, '\0');
        for (std::size_t i = 0; i < size; ++i)
            text[i] = static_cast<char>('a' + i % 26);
        if (fd < 0 || ::write(fd, text.data(), size) != static_cast<ssize_t>(size))
            return;
        void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED)
            bytes = static_cast<const volatile char*>(p);
    }
    ~MappedFile() {
        if (bytes)
            ::munmap(const_cast<char*>(bytes), size);
        if (fd >= 0)
            ::close(fd);
    }
};

} // namespace

class TestMapGuard : public QObject {
    Q_OBJECT
private Q_SLOTS:
    /// A fault in a mapping nobody guards is not swallowed: the process that takes it ends by the signal
    /// (or by the handler installed before the guard's), it does not go on, nor fault forever. (First: the
    /// child installs the guard's handler itself only while no test before has in this process.)
    void otherFaultsStillEndTheProcess() {
        QTemporaryDir dir;
        const std::string guarded = (dir.path() + QStringLiteral("/guarded")).toStdString();
        const std::string other = (dir.path() + QStringLiteral("/other")).toStdString();
        const pid_t child = ::fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            // without QtTest's crash handler (which would print a stack trace): the guard's handler,
            // installed first here, falls back to the default action, which ends the process
            ::signal(SIGBUS, SIG_DFL);
            MappedFile g(guarded, 1);
            MappedFile f(other, 3);
            MappingGuard guard; // the handler is installed, for another mapping
            if (!g.bytes || !f.bytes || !guard.watch(const_cast<const char*>(g.bytes), g.size) ||
                ::ftruncate(f.fd, 0) != 0)
                ::_exit(3);
            const char c = f.bytes[2 * kPage];
            ::_exit(c == 0 ? 0 : 1); // reached only if the fault was swallowed
        }
        int status = 0;
        // the child's end, waited for like any event (bounded only so that a hang fails)
        const bool ended = QTest::qWaitFor([&] { return ::waitpid(child, &status, WNOHANG) != 0; },
                                           scorch::test::kPatienceMs);
        if (!ended) {
            ::kill(child, SIGKILL);
            ::waitpid(child, &status, 0);
            QFAIL("the child did not end: the fault repeated forever");
        }
        QVERIFY2(!(WIFEXITED(status) && WEXITSTATUS(status) <= 1),
                 qPrintable(
                     QStringLiteral("the child went on after the fault (exit %1)").arg(WEXITSTATUS(status))));
        QVERIFY2(!(WIFEXITED(status) && WEXITSTATUS(status) == 3), "the child could not set up its files");
    }
    void lostPagesReadAsZeros() {
        QTemporaryDir dir;
        MappedFile f((dir.path() + QStringLiteral("/shrinks")).toStdString(), 4);
        QVERIFY(f.bytes);
        MappingGuard guard;
        QVERIFY(guard.watch(const_cast<const char*>(f.bytes), f.size));
        QVERIFY(!guard.lostFrom());
        QCOMPARE(f.bytes[kPage + 5], char('a' + (kPage + 5) % 26)); // mapped in before the cut
        // cut to a page and 100 bytes: the rest of that page reads as zeros (the kernel's rule, no fault);
        // the pages past it are lost, the third one first touched, then the second
        QCOMPARE(::ftruncate(f.fd, kPage + 100), 0);
        QCOMPARE(f.bytes[10], char('a' + 10 % 26));
        QCOMPARE(f.bytes[kPage + 200], '\0');
        QVERIFY(!guard.lostFrom());
        QCOMPARE(f.bytes[3 * kPage + 1], '\0');
        QCOMPARE(guard.lostFrom().value_or(0), uint64_t(3 * kPage));
        QCOMPARE(f.bytes[2 * kPage + 7], '\0');
        QCOMPARE(guard.lostFrom().value_or(0), uint64_t(2 * kPage));
        QCOMPARE(f.bytes[3 * kPage + 2], '\0'); // zero pages from the first loss on: no fault
        // stopped, the guard reports nothing; its slot serves the next mapping
        guard.stop();
        QVERIFY(!guard.lostFrom());
        MappedFile g((dir.path() + QStringLiteral("/next")).toStdString(), 2);
        QVERIFY(guard.watch(const_cast<const char*>(g.bytes), g.size));
        QVERIFY(!guard.lostFrom());
    }
};

QTEST_GUILESS_MAIN(TestMapGuard)
#include "tst_mapguard.moc"
