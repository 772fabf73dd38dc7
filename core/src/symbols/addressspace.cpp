// AddressSpace: see addressspace.h.
#include "symbols/addressspace.h"

#include <algorithm>

namespace scorch::detail {

namespace {

bool startsWith(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

} // namespace

Mapping::Kind mappingKind(std::string_view path) {
    if (startsWith(path, "//anon") || startsWith(path, "/anon_hugepage") || startsWith(path, "/dev/zero") ||
        startsWith(path, "[anon") || startsWith(path, "/memfd:") || startsWith(path, "/tmp/perf-"))
        return Mapping::Kind::Jit;
    if (path == "[vdso]")
        return Mapping::Kind::File; // symbolized from perf's build-id cache, where perf record copies it
    if (startsWith(path, "[") || path.empty())
        return Mapping::Kind::Other; // [stack], [heap], [vsyscall]: no file to read
    return Mapping::Kind::File;
}

void AddressSpace::map(const Mapping& m) {
    // The mappings never overlap, so their ends are sorted too: [first, last) are the ones `m` overlaps.
    const auto first = std::upper_bound(m_mappings.begin(), m_mappings.end(), m.start,
                                        [](uint64_t a, const Mapping& x) { return a < x.end; });
    const auto last = std::lower_bound(first, m_mappings.end(), m.end,
                                       [](const Mapping& x, uint64_t a) { return x.start < a; });
    Mapping pieces[3];
    std::size_t n = 0;
    if (first != last && first->start < m.start) { // the head of a mapping `m` starts inside
        pieces[n] = *first;
        pieces[n++].end = m.start;
    }
    pieces[n++] = m;
    if (first != last && std::prev(last)->end > m.end) { // the tail of a mapping `m` ends inside
        Mapping tail = *std::prev(last);
        tail.pgoff += m.end - tail.start;
        tail.start = m.end;
        tail.module = {};
        pieces[n++] = tail;
    }
    // replace [first, last) by the pieces
    const auto at = first - m_mappings.begin();
    const auto replaced = static_cast<std::size_t>(last - first);
    if (replaced >= n) {
        std::copy(pieces, pieces + n, first);
        m_mappings.erase(first + static_cast<std::ptrdiff_t>(n), last);
    } else {
        std::copy(pieces, pieces + replaced, first);
        m_mappings.insert(m_mappings.begin() + at + static_cast<std::ptrdiff_t>(replaced), pieces + replaced,
                          pieces + n);
    }
}

void AddressSpace::add(std::span<const Mapping> mappings) {
    m_mappings.insert(m_mappings.end(), mappings.begin(), mappings.end());
    std::stable_sort(m_mappings.begin(), m_mappings.end(),
                     [](const Mapping& a, const Mapping& b) { return a.start < b.start; });
}

const Mapping* AddressSpace::find(uint64_t address) const {
    auto it = std::upper_bound(m_mappings.begin(), m_mappings.end(), address,
                               [](uint64_t a, const Mapping& x) { return a < x.start; });
    if (it == m_mappings.begin())
        return nullptr;
    --it;
    return address < it->end ? &*it : nullptr;
}

const Mapping* AddressSpace::findAt(uint64_t address, uint64_t timeNs) const {
    auto it = std::upper_bound(m_mappings.begin(), m_mappings.end(), address,
                               [](uint64_t a, const Mapping& x) { return a < x.start; });
    const Mapping* best = nullptr;
    int looked = 0;
    while (it != m_mappings.begin() && looked++ < 16) {
        --it;
        if (address >= it->end)
            continue;
        const bool before = it->timeNs <= timeNs;
        if (!best || (before && (best->timeNs > timeNs || it->timeNs > best->timeNs)) ||
            (!before && best->timeNs > timeNs && it->timeNs < best->timeNs))
            best = &*it;
    }
    return best;
}

} // namespace scorch::detail
