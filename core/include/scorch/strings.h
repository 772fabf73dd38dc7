// String interning: every distinct string is stored once and named by a small typed id.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace scorch {

/// Index of an interned string. 0 is always the empty string.
struct StringId {
    uint32_t value = 0;
    friend bool operator==(StringId, StringId) = default;
    explicit operator bool() const { return value != 0; }
};

/// 64-bit hash of a byte string (fast, not cryptographic; stable across runs).
uint64_t hashBytes(std::string_view s, uint64_t seed = 0);

/// Append-only string interner. Strings live in stable chunks, so the views it hands out stay valid for the
/// table's lifetime, also while more strings are added. Not thread-safe: each importer worker owns one.
class StringTable {
public:
    /// How keys are hashed. `Sampled` hashes the length and three slices of long strings (equality is still
    /// checked in full): for caches of long, mostly distinct-at-the-ends keys such as perf frame lines.
    enum class Hashing : uint8_t { Full, Sampled };

    explicit StringTable(Hashing hashing = Hashing::Full);
    StringTable(StringTable&&) noexcept;
    StringTable& operator=(StringTable&&) noexcept;
    ~StringTable();

    /// The same strings under the same ids, copied without hashing them again (a slice's profile).
    StringTable copy() const;

    StringId intern(std::string_view s);
    /// Id of s if it is already interned, else an empty id.
    StringId find(std::string_view s) const;
    std::string_view view(StringId id) const { return m_views[id.value]; }
    std::size_t size() const { return m_views.size(); }
    std::size_t memoryBytes() const;

private:
    std::string_view store(std::string_view s);
    uint64_t hash(std::string_view s) const;

    std::vector<std::string_view> m_views; // id -> text
    std::vector<uint64_t> m_slots;         // open addressing: (hash high bits << 32) | id, 0 = empty
    std::vector<std::unique_ptr<char[]>> m_chunks;
    char* m_active = nullptr; // chunk that small strings are appended to
    std::size_t m_chunkUsed = 0, m_chunkSize = 0, m_bytes = 0;
    Hashing m_hashing = Hashing::Full;
};

} // namespace scorch
