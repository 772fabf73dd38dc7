// Short display names (scorch/shortname.h): C++ template and parameter lists folded, everything else kept.
#include "scorch/shortname.h"

#include <QTest>

using scorch::shortenName;

class TestShortName : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void shortens_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("expected");
        // Names as perf and c++filt print them for libstdc++'s regex executor and containers.
        QTest::newRow("regex executor")
            << QStringLiteral(
                   "std::__detail::_Executor<__gnu_cxx::__normal_iterator<char const*, std::__cxx11::"
                   "basic_string<char, std::char_traits<char>, std::allocator<char> > >, std::allocator<"
                   "std::__cxx11::sub_match<__gnu_cxx::__normal_iterator<char const*, std::__cxx11::"
                   "basic_string<char, std::char_traits<char>, std::allocator<char> > > > >, std::__cxx11::"
                   "regex_traits<char>, true>::_M_dfs(std::__detail::_Executor<__gnu_cxx::__normal_"
                   "iterator<char const*, std::__cxx11::basic_string<char, std::char_traits<char>, std::"
                   "allocator<char> > >, std::allocator<std::__cxx11::sub_match<__gnu_cxx::__normal_"
                   "iterator<char const*, std::__cxx11::basic_string<char, std::char_traits<char>, std::"
                   "allocator<char> > > > >, std::__cxx11::regex_traits<char>, true>::_Match_mode, long)")
            << QStringLiteral("std::__detail::_Executor<…>::_M_dfs(…)");
        QTest::newRow("map insert") << QStringLiteral(
                                           "std::_Rb_tree<int, std::pair<int const, int>, std::_Select1st<"
                                           "std::pair<int const, int> >, std::less<int>, std::allocator<"
                                           "std::pair<int const, int> > >::_M_insert_unique(int&&)")
                                    << QStringLiteral("std::_Rb_tree<…>::_M_insert_unique(…)");
        QTest::newRow("empty lists kept") << QStringLiteral("f()") << QStringLiteral("f()");
        QTest::newRow("empty template") << QStringLiteral("A<>::g()") << QStringLiteral("A<>::g()");
        QTest::newRow("const method")
            << QStringLiteral("Foo::bar(int, char) const") << QStringLiteral("Foo::bar(…) const");
        QTest::newRow("operator<<") << QStringLiteral("std::ostream::operator<<(int)")
                                    << QStringLiteral("std::ostream::operator<<(…)");
        QTest::newRow("operator() of a template")
            << QStringLiteral("Visitor<int>::operator()(Node<int>*) const")
            << QStringLiteral("Visitor<…>::operator()(…) const");
        QTest::newRow("operator<") << QStringLiteral("bool operator< <int>(A<int> const&, A<int> const&)")
                                   << QStringLiteral("bool operator< <int>(…)");
        QTest::newRow("operator->") << QStringLiteral("std::unique_ptr<Foo>::operator->() const")
                                    << QStringLiteral("std::unique_ptr<…>::operator->() const");
        QTest::newRow("operator[]") << QStringLiteral("std::vector<int>::operator[](unsigned long)")
                                    << QStringLiteral("std::vector<…>::operator[](…)");
        QTest::newRow("anonymous namespace") << QStringLiteral("(anonymous namespace)::worker(Job<int>&)")
                                             << QStringLiteral("(anonymous namespace)::worker(…)");
        QTest::newRow("lambda") << QStringLiteral("main::{lambda(int)#1}::operator()(int) const")
                                << QStringLiteral("main::{lambda(…)#1}::operator()(…) const");
        QTest::newRow("clone suffix")
            << QStringLiteral("parse(char const*) [clone .cold]") << QStringLiteral("parse(…) [clone .cold]");
        QTest::newRow("rust generic") << QStringLiteral("core::ptr::drop_in_place<alloc::vec::Vec<u8>>")
                                      << QStringLiteral("core::ptr::drop_in_place<…>");
        QTest::newRow("rust trait impl") << QStringLiteral("<alloc::vec::Vec<T> as core::ops::Drop>::drop")
                                         << QStringLiteral("<alloc::vec::Vec<T> as core::ops::Drop>::drop");
        QTest::newRow("python module")
            << QStringLiteral("py::<module>:/tmp/cpu.py") << QStringLiteral("py::<module>:/tmp/cpu.py");
        QTest::newRow("plain C") << QStringLiteral("memcpy@plt") << QStringLiteral("memcpy@plt");
        QTest::newRow("unknown") << QStringLiteral("[unknown]") << QStringLiteral("[unknown]");
        QTest::newRow("module") << QStringLiteral("[libc.so.6+0x1a2b]")
                                << QStringLiteral("[libc.so.6+0x1a2b]");
        QTest::newRow("unbalanced close") << QStringLiteral("a>b(c") << QStringLiteral("a>b(c");
        QTest::newRow("unbalanced open") << QStringLiteral("f<int(") << QStringLiteral("f<int(");
        QTest::newRow("empty") << QString() << QString();
    }
    void shortens() {
        QFETCH(QString, name);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(shortenName(name.toStdString())), expected);
    }

    // Whatever the input, the result never grows beyond the name plus one ellipsis per folded list and keeps
    // the part after the last top-level "::" readable (the method name).
    void keepsTheMethodName() {
        const std::string name =
            "ns::Outer<std::vector<std::map<int, std::string>>>::Inner<3>::method_name(std::"
            "function<void(int)>, Outer<int>::Inner<2> const&)";
        const std::string s = shortenName(name);
        QVERIFY(s.size() < name.size());
        QVERIFY(s.ends_with("::method_name(…)"));
        QCOMPARE(QString::fromStdString(s), QStringLiteral("ns::Outer<…>::Inner<…>::method_name(…)"));
    }
};

QTEST_APPLESS_MAIN(TestShortName)
#include "tst_shortname.moc"
