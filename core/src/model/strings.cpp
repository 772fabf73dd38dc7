#include "scorch/strings.h"

#include "util/hash.h"

#include <cstring>

namespace scorch {

using detail::mix64;

uint64_t hashBytes(std::string_view s, uint64_t seed) {
    constexpr uint64_t k0 = 0xa0761d6478bd642full, k1 = 0xe7037ed1a0b428dbull, k2 = 0x8ebc6af09c88c6e3ull;
    const char* p = s.data();
    std::size_t n = s.size();
    uint64_t h = seed ^ k0 ^ (n * k1);
    if (n >= 32) { // two independent lanes keep the multiplier busy on long names
        uint64_t h2 = h ^ k2;
        do {
            uint64_t a, b, c, d;
            std::memcpy(&a, p, 8);
            std::memcpy(&b, p + 8, 8);
            std::memcpy(&c, p + 16, 8);
            std::memcpy(&d, p + 24, 8);
            h = mix64(a ^ k1, b ^ h);
            h2 = mix64(c ^ k2, d ^ h2);
            p += 32;
            n -= 32;
        } while (n >= 32);
        h ^= h2;
    }
    while (n >= 16) {
        uint64_t a, b;
        std::memcpy(&a, p, 8);
        std::memcpy(&b, p + 8, 8);
        h = mix64(a ^ k1, b ^ h ^ k2);
        p += 16;
        n -= 16;
    }
    if (n >= 8) {
        uint64_t a;
        std::memcpy(&a, p, 8);
        h = mix64(a ^ k2, h ^ k1);
        p += 8;
        n -= 8;
    }
    uint64_t t = 0;
    if (n) // an empty view may have a null data()
        std::memcpy(&t, p, n);
    h = mix64(t ^ k1 ^ n, h ^ k2);
    return mix64(h, k0 ^ s.size());
}

StringTable::StringTable(Hashing hashing)
    : m_views{std::string_view{}}
    , m_slots(1024, 0)
    , m_hashing(hashing) {}

uint64_t StringTable::hash(std::string_view s) const {
    if (m_hashing == Hashing::Full || s.size() <= 96)
        return hashBytes(s);
    // the length and 80 of the bytes: the first 32, 16 from the middle and the last 32, in one pass
    constexpr uint64_t k0 = 0xa0761d6478bd642full, k1 = 0xe7037ed1a0b428dbull, k2 = 0x8ebc6af09c88c6e3ull;
    const std::size_t n = s.size();
    uint64_t w[10];
    std::memcpy(w, s.data(), 32);
    std::memcpy(w + 4, s.data() + n / 2 - 8, 16);
    std::memcpy(w + 6, s.data() + n - 32, 32);
    uint64_t h = mix64(w[0] ^ k1, w[1] ^ k0 ^ n), h2 = mix64(w[2] ^ k2, w[3] ^ k1);
    h = mix64(w[4] ^ k2, w[5] ^ h);
    h2 = mix64(w[6] ^ k1, w[7] ^ h2);
    h = mix64(w[8] ^ k0, w[9] ^ h ^ k2);
    return mix64(h ^ h2, k0 ^ n);
}

StringTable::StringTable(StringTable&&) noexcept = default;
StringTable& StringTable::operator=(StringTable&&) noexcept = default;
StringTable::~StringTable() = default;

StringTable StringTable::copy() const {
    StringTable t(m_hashing);
    t.m_slots = m_slots; // (the same hashes and ids)
    std::size_t bytes = 0;
    for (const std::string_view v : m_views)
        bytes += v.size();
    t.m_views.reserve(m_views.size());
    char* dst = nullptr;
    if (bytes > 0) { // all of them in one allocation; a string interned later starts a new chunk
        t.m_chunks.push_back(std::make_unique<char[]>(bytes));
        dst = t.m_chunks.back().get();
        t.m_bytes = bytes;
    }
    for (std::size_t i = 1; i < m_views.size(); ++i) {
        if (!m_views[i].empty())
            std::memcpy(dst, m_views[i].data(), m_views[i].size());
        t.m_views.emplace_back(dst, m_views[i].size());
        dst += m_views[i].size();
    }
    return t;
}

std::string_view StringTable::store(std::string_view s) {
    constexpr std::size_t kChunk = 256 * 1024;
    if (s.size() > kChunk / 4) { // a long string gets an allocation of its own
        m_chunks.push_back(std::make_unique<char[]>(s.size()));
        std::memcpy(m_chunks.back().get(), s.data(), s.size());
        m_bytes += s.size();
        return {m_chunks.back().get(), s.size()};
    }
    if (!m_active || m_chunkUsed + s.size() > m_chunkSize) {
        m_chunks.push_back(std::make_unique<char[]>(kChunk));
        m_active = m_chunks.back().get();
        m_chunkSize = kChunk;
        m_chunkUsed = 0;
        m_bytes += kChunk;
    }
    char* dst = m_active + m_chunkUsed;
    std::memcpy(dst, s.data(), s.size());
    m_chunkUsed += s.size();
    return {dst, s.size()};
}

StringId StringTable::find(std::string_view s) const {
    if (s.empty())
        return {};
    const detail::IndexProbe p =
        detail::probeIndex(m_slots, hash(s), [&](uint32_t i) { return m_views[i] == s; });
    return p.found() ? StringId{p.index} : StringId{};
}

StringId StringTable::intern(std::string_view s) {
    if (s.empty())
        return {};
    const uint64_t h = hash(s);
    const detail::IndexProbe p = detail::probeIndex(m_slots, h, [&](uint32_t i) { return m_views[i] == s; });
    if (p.found())
        return {p.index};
    const auto id = static_cast<uint32_t>(m_views.size());
    m_views.push_back(store(s));
    detail::insertIndex(m_slots, p, h, id, m_views.size(), [&](uint32_t i) { return hash(m_views[i]); });
    return {id};
}

std::size_t StringTable::memoryBytes() const {
    return m_bytes + m_views.capacity() * sizeof(std::string_view) + m_slots.capacity() * sizeof(uint64_t);
}

} // namespace scorch
