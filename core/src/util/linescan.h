// Internal: finding line ends a 64-byte block at a time. One SIMD compare per 16 bytes gives a bitmask of the
// '\n' positions of a block (as simdjson finds its structural characters); the line ends are then its set
// bits, so a short line costs a count-trailing-zeros instead of a memchr call (whose set-up dominates on
// lines of ~50 bytes). Long lines (perf script frame lines with template names: ~300 bytes) cross whole
// blocks without a line end; there libc's memchr (AVX2/EVEX, run-time dispatched) skips the gap in wider
// strides than 16-byte SSE2 compares. SSE2 is part of x86-64, so the block compare needs no dispatch; other
// targets use a plain loop that the compiler vectorises where it can.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace scorch::detail {

/// Bit i is set when block[i] == c, for the 64 bytes at `block`.
inline uint64_t byteMask64(const char* block, char c) {
#if defined(__SSE2__)
    const __m128i needle = _mm_set1_epi8(c);
    const auto part = [&](int k) {
        const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * k));
        return static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, needle))));
    };
    return part(0) | part(1) << 16 | part(2) << 32 | part(3) << 48;
#else
    uint64_t mask = 0;
    for (int i = 0; i < 64; ++i)
        mask |= static_cast<uint64_t>(block[i] == c) << i;
    return mask;
#endif
}

/// The positions of one byte value in [begin, end), in order, found a block at a time. Never reads outside
/// the range (the last partial block is copied into a padded buffer), so it works on a file mapping.
class ByteScanner {
public:
    ByteScanner(const char* begin, const char* end, char c)
        : m_begin(begin)
        , m_size(static_cast<std::size_t>(end - begin))
        , m_c(c) {
        load();
    }

    /// The next occurrence, or nullptr when there is none left.
    const char* next() {
        if (m_mask == 0) {
            // The block after holds the next one on short lines; past it (a line of over 64 bytes), memchr
            // skips the gap in wide strides and the block restarts at what it found.
            m_block += 64;
            if (m_block >= m_size)
                return nullptr;
            load();
            if (m_mask == 0) {
                const std::size_t from = m_block + 64;
                const void* hit = from < m_size ? std::memchr(m_begin + from, m_c, m_size - from) : nullptr;
                if (!hit) {
                    m_block = m_size;
                    return nullptr;
                }
                m_block = static_cast<std::size_t>(static_cast<const char*>(hit) - m_begin);
                load();
            }
        }
        const char* p = m_begin + m_block + static_cast<std::size_t>(std::countr_zero(m_mask));
        m_mask &= m_mask - 1;
        return p;
    }

private:
    void load() {
        if (m_size - m_block >= 64) {
            m_mask = byteMask64(m_begin + m_block, m_c);
        } else if (m_block < m_size) {
            char tail[64];
            std::memset(tail, m_c == '\0' ? 1 : 0, sizeof tail);
            std::memcpy(tail, m_begin + m_block, m_size - m_block);
            m_mask = byteMask64(tail, m_c) & ((uint64_t{1} << (m_size - m_block)) - 1);
        } else {
            m_mask = 0;
        }
    }

    const char* m_begin;
    std::size_t m_size;
    std::size_t m_block = 0; ///< offset of the current block
    uint64_t m_mask = 0;     ///< occurrences in the current block not returned yet
    char m_c;
};

} // namespace scorch::detail
