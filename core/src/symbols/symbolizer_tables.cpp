// Address tables of the Symbolizer (ELF symbols, kallsyms, perf-PID.map) and small helpers.
#include "symbols/symbolizer_internal.h"

#include "util/linescan.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <limits>

#define HAVE_DECL_BASENAME 1 // libiberty.h would declare basename() again, unlike <cstring>
#include <libiberty/demangle.h>

namespace scorch::detail {

void AddressTable::add(uint64_t start, uint64_t end, std::string_view name, std::string_view module,
                       uint64_t limit) {
    Entry e{};
    e.start = start;
    e.end = std::max(start, end);
    e.limit = limit;
    e.name = static_cast<uint32_t>(m_text.size());
    e.nameLen = static_cast<uint32_t>(name.size());
    m_text.append(name);
    e.module = static_cast<uint32_t>(m_text.size());
    e.moduleLen = static_cast<uint32_t>(module.size());
    m_text.append(module);
    e.order = static_cast<uint32_t>(m_entries.size());
    m_entries.push_back(e);
}

void AddressTable::finalize(uint64_t lastSymbolSlack) {
    auto before = [](const Entry& a, const Entry& b) {
        return a.start != b.start ? a.start < b.start : a.order < b.order;
    };
    // kallsyms and symbol tables mostly come sorted already
    if (!std::is_sorted(m_entries.begin(), m_entries.end(), before))
        std::sort(m_entries.begin(), m_entries.end(), before);
    // equal starts: the entry added last wins (a JIT map that reuses an address range)
    std::size_t out = 0;
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
        if (out > 0 && m_entries[out - 1].start == m_entries[i].start)
            m_entries[out - 1] = m_entries[i];
        else
            m_entries[out++] = m_entries[i];
    }
    m_entries.resize(out);
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
        Entry& e = m_entries[i];
        if (e.end != e.start)
            continue;
        if (i + 1 < m_entries.size())
            e.end = m_entries[i + 1].start;
        else
            e.end = e.start > std::numeric_limits<uint64_t>::max() - lastSymbolSlack
                        ? e.start
                        : e.start + lastSymbolSlack;
        e.end = std::max(e.start, std::min(e.end, e.limit));
    }
}

int64_t AddressTable::find(uint64_t addr) const {
    auto it = std::upper_bound(m_entries.begin(), m_entries.end(), addr,
                               [](uint64_t a, const Entry& e) { return a < e.start; });
    // the closest start first; a few steps back for a larger symbol that encloses the address
    for (int steps = 0; it != m_entries.begin() && steps < 8; ++steps) {
        --it;
        if (addr < it->end)
            return it - m_entries.begin();
    }
    return -1;
}

std::string_view AddressTable::name(int64_t index) const {
    const Entry& e = m_entries[static_cast<std::size_t>(index)];
    return std::string_view(m_text).substr(e.name, e.nameLen);
}

std::string_view AddressTable::module(int64_t index) const {
    const Entry& e = m_entries[static_cast<std::size_t>(index)];
    return std::string_view(m_text).substr(e.module, e.moduleLen);
}

void AddressTable::adoptText(std::string text, std::size_t expectedEntries) {
    m_text = std::move(text);
    m_entries.reserve(expectedEntries);
}

bool AddressTable::allZero() const {
    return std::all_of(m_entries.begin(), m_entries.end(), [](const Entry& e) { return e.start == 0; });
}

namespace {

/// The value of a hexadecimal digit, -1 for any other character.
int hexDigit(unsigned char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

bool parseHex(std::string_view s, uint64_t& value) {
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s.remove_prefix(2);
    if (s.empty() || s.size() > 16)
        return false;
    value = 0;
    for (char c : s) {
        const int d = hexDigit(static_cast<unsigned char>(c));
        if (d < 0)
            return false;
        value = value << 4 | static_cast<unsigned>(d);
    }
    return true;
}

/// Next whitespace-separated field of `line` (advancing it).
std::string_view field(std::string_view& line) {
    std::size_t b = 0;
    while (b < line.size() && (line[b] == ' ' || line[b] == '\t'))
        ++b;
    std::size_t e = b;
    while (e < line.size() && line[e] != ' ' && line[e] != '\t')
        ++e;
    const std::string_view f = line.substr(b, e - b);
    line.remove_prefix(e);
    return f;
}

template <typename F>
void forEachLine(std::string_view text, F&& f) {
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        f(line);
        if (nl == std::string_view::npos)
            break;
        text.remove_prefix(nl + 1);
    }
}

} // namespace

AddressTable parseKallsyms(std::string input) {
    // a table of 120k kernel symbols is read on every open of a recording with kernel frames: names stay
    // in the text (no copies), lines are taken apart in one pass, and their ends are found a 64-byte block
    // at a time (a memchr call per ~45-byte line cost more than the rest of the line's work)
    AddressTable table;
    // offsets are 32-bit: past 4 GiB (never seen in practice) the names are copied
    const bool inText = input.size() < UINT32_MAX;
    const std::size_t expected = input.size() / 40 + 16;
    if (inText)
        table.adoptText(std::move(input), expected);
    const std::string_view text = inText ? table.text() : std::string_view(input);
    const char* const base = text.data();
    const char* const end = base + text.size();
    auto blank = [](char c) {
        return c == ' ' || c == '\t';
    };
    ByteScanner lineEnds(base, end, '\n');
    for (const char* p = base; p < end;) {
        const char* nl = lineEnds.next();
        if (!nl)
            nl = end;
        const char* q = p;
        p = nl + 1;
        while (q < nl && blank(*q))
            ++q;
        uint64_t addr = 0;
        const char* digits = q;
        for (int d; q < nl && (d = hexDigit(static_cast<unsigned char>(*q))) >= 0; ++q)
            addr = addr << 4 | static_cast<unsigned>(d);
        if (q == digits || q - digits > 16 || q == nl || !blank(*q))
            continue;
        while (q < nl && blank(*q))
            ++q;
        if (nl - q < 3 || !blank(q[1]))
            continue; // "ADDR T NAME" needs a one-letter type
        const char t = q[0];
        q += 2;
        while (q < nl && blank(*q))
            ++q;
        const char* name = q;
        while (q < nl && !blank(*q) && *q != '\r')
            ++q;
        if (q == name)
            continue;
        const auto nameLen = static_cast<uint32_t>(q - name);
        while (q < nl && blank(*q))
            ++q;
        uint32_t module = 0, moduleLen = 0;
        if (q < nl && *q == '[') {
            const char* close = q + 1;
            while (close < nl && *close != ']')
                ++close;
            if (close < nl) {
                module = static_cast<uint32_t>(q + 1 - base);
                moduleLen = static_cast<uint32_t>(close - q - 1);
            }
        }
        // every symbol ends the one before it; only functions get a name
        const bool function = t == 't' || t == 'T' || t == 'w' || t == 'W';
        const auto nameAt = static_cast<uint32_t>(name - base);
        if (inText)
            table.addInText(addr, nameAt, function ? nameLen : 0, module, moduleLen);
        else
            table.add(addr, addr, text.substr(nameAt, function ? nameLen : 0),
                      text.substr(module, moduleLen));
    }
    table.finalize(4096);
    return table;
}

AddressTable parsePerfMap(std::string_view text) {
    AddressTable table;
    forEachLine(text, [&](std::string_view line) {
        uint64_t start, size;
        if (!parseHex(field(line), start) || !parseHex(field(line), size) || size == 0)
            return;
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t'))
            line.remove_prefix(1);
        if (line.empty() || start > std::numeric_limits<uint64_t>::max() - size)
            return;
        table.add(start, start + size, line);
    });
    table.finalize(0);
    return table;
}

std::string toHex(const unsigned char* bytes, std::size_t size) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(size * 2);
    for (std::size_t i = 0; i < size; ++i) {
        out += digits[bytes[i] >> 4];
        out += digits[bytes[i] & 15];
    }
    return out;
}

bool buildIdMatches(std::string_view recorded, std::string_view actual) {
    auto lower = [](char c) {
        return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    };
    if (actual.empty() || recorded.size() < actual.size())
        return false;
    for (std::size_t i = 0; i < actual.size(); ++i)
        if (lower(recorded[i]) != lower(actual[i]))
            return false;
    // perf pads build-ids to 20 bytes with zeros
    return std::all_of(recorded.begin() + static_cast<std::ptrdiff_t>(actual.size()), recorded.end(),
                       [](char c) { return c == '0'; });
}

std::string buildIdFromNotes(std::string_view notes) {
    auto word = [&](std::size_t at) {
        uint32_t v;
        std::memcpy(&v, notes.data() + at, 4);
        return v;
    };
    auto align4 = [](uint64_t n) {
        return (n + 3) & ~uint64_t(3);
    };
    std::size_t at = 0;
    while (at + 12 <= notes.size()) {
        const uint64_t nameSize = word(at), descSize = word(at + 4), type = word(at + 8);
        const uint64_t nameAt = at + 12, descAt = nameAt + align4(nameSize);
        if (descAt > notes.size() || align4(descSize) > notes.size() - descAt)
            break;
        if (type == 3 && nameSize == 4 && notes.substr(nameAt, 4) == std::string_view("GNU\0", 4))
            return toHex(reinterpret_cast<const unsigned char*>(notes.data() + descAt), descSize);
        at = descAt + align4(descSize);
    }
    return {};
}

std::string demangle(std::string_view name, bool enabled) {
    if (name.size() > 4 && name.ends_with("@plt")) // a PLT entry (synthesized): the callee's name + @plt
        return demangle(name.substr(0, name.size() - 4), enabled) + "@plt";
    const std::size_t at = name.find('@');
    if (at != std::string_view::npos && at > 0)
        name = name.substr(0, at);
    if (!enabled || !(name.starts_with("_Z") || name.starts_with("_R")))
        return std::string(name);
    const std::string mangled(name);
    // Rust: the v0 scheme (`_R...`) and the legacy one (`_ZN...17h<hash>E`, C++-like with a hash as its last
    // component) through libiberty's Rust demangler, which drops the legacy hash as perf and Hotspot show
    // these names; it declines everything else
    if (name.starts_with("_R") ||
        (name.starts_with("_ZN") && name.ends_with('E') && name.find("17h") != name.npos)) {
        if (char* rust = rust_demangle(mangled.c_str(), DMGL_PARAMS | DMGL_ANSI)) {
            std::string result(rust);
            std::free(rust);
            return result;
        }
        if (name.starts_with("_R"))
            return mangled;
    }
    int status = 0;
    char* out = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
    if (status != 0 || !out)
        return mangled;
    std::string result(out);
    std::free(out);
    return result;
}

} // namespace scorch::detail
