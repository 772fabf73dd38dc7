// Internal: a minimal reader of the protocol buffers wire format (varints, length-delimited fields, fixed
// 32/64-bit values), enough to decode pprof's profile.proto without libprotobuf. Every read is bounds
// checked; malformed input throws ProtoError with the byte offset where it went wrong.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace scorch::detail::proto {

class ProtoError : public std::runtime_error {
public:
    ProtoError(const std::string& what, uint64_t offset)
        : std::runtime_error(what)
        , m_offset(offset) {}
    uint64_t offset() const { return m_offset; }

private:
    uint64_t m_offset;
};

enum WireType : uint8_t { Varint = 0, Fixed64 = 1, Bytes = 2, Fixed32 = 5 };

/// Iterates the fields of one message. `base` is the offset of data[0] in the whole input (for messages).
class Reader {
public:
    Reader(std::string_view data, uint64_t base = 0)
        : m_data(data)
        , m_base(base) {}

    /// Moves to the next field; false at the end of the message.
    bool next() {
        if (m_pos >= m_data.size())
            return false;
        m_fieldStart = m_pos;
        const uint64_t key = varint();
        m_type = static_cast<uint8_t>(key & 7);
        m_field = key >> 3;
        if (m_field == 0 || m_field > 0x1fffffff)
            fail("invalid field number " + std::to_string(m_field), m_fieldStart);
        if (m_type != Varint && m_type != Fixed64 && m_type != Bytes && m_type != Fixed32)
            fail("unsupported wire type " + std::to_string(m_type) + " of field " + std::to_string(m_field),
                 m_fieldStart);
        return true;
    }
    uint64_t field() const { return m_field; }
    uint8_t type() const { return m_type; }
    /// Offset of the current field's key in the whole input.
    uint64_t fieldOffset() const { return m_base + m_fieldStart; }
    /// Offset of the next unread byte in the whole input.
    uint64_t offset() const { return m_base + m_pos; }

    uint64_t varint() {
        const std::size_t start = m_pos;
        uint64_t v = 0;
        for (unsigned shift = 0; shift < 64; shift += 7) {
            if (m_pos >= m_data.size())
                fail("truncated varint", start);
            const auto b = static_cast<unsigned char>(m_data[m_pos++]);
            v |= static_cast<uint64_t>(b & 0x7f) << shift;
            if (!(b & 0x80))
                return v;
        }
        fail("varint longer than 10 bytes", start);
    }

    /// The current field's value as an integer (varint or fixed); an error for a length-delimited field.
    uint64_t integer() {
        switch (m_type) {
        case Varint:
            return varint();
        case Fixed64:
            return fixed(8);
        case Fixed32:
            return fixed(4);
        default:
            fail("field " + std::to_string(m_field) + " should be a number", m_fieldStart);
        }
    }

    /// The current field's bytes (a string or an embedded message); base offset via offset() before calling.
    std::string_view bytes() {
        if (m_type != Bytes)
            fail("field " + std::to_string(m_field) + " should be length-delimited", m_fieldStart);
        const uint64_t n = varint();
        if (n > m_data.size() - m_pos)
            fail("field " + std::to_string(m_field) + " claims " + std::to_string(n) + " bytes, only " +
                     std::to_string(m_data.size() - m_pos) + " remain",
                 m_fieldStart);
        const std::string_view out = m_data.substr(m_pos, n);
        m_pos += n;
        return out;
    }

    /// Like bytes(), also giving the offset of its first byte in the whole input.
    std::string_view message(uint64_t& base) {
        if (m_type != Bytes)
            fail("field " + std::to_string(m_field) + " should be an embedded message", m_fieldStart);
        const uint64_t n = varint();
        base = m_base + m_pos;
        if (n > m_data.size() - m_pos)
            fail("field " + std::to_string(m_field) + " claims " + std::to_string(n) + " bytes, only " +
                     std::to_string(m_data.size() - m_pos) + " remain",
                 m_fieldStart);
        const std::string_view out = m_data.substr(m_pos, n);
        m_pos += n;
        return out;
    }

    /// A repeated integer field, packed (one length-delimited run) or not (one value): calls f per value.
    template <typename F>
    void repeated(F&& f) {
        if (m_type != Bytes) {
            f(integer());
            return;
        }
        uint64_t base = 0;
        const std::string_view data = message(base);
        Reader run(data, base);
        while (run.m_pos < run.m_data.size())
            f(run.varint());
    }

    void skip() {
        switch (m_type) {
        case Varint:
            varint();
            break;
        case Fixed64:
            fixed(8);
            break;
        case Fixed32:
            fixed(4);
            break;
        default:
            bytes();
            break;
        }
    }

    [[noreturn]] void fail(const std::string& what, std::size_t pos) const {
        throw ProtoError(what, m_base + pos);
    }

private:
    uint64_t fixed(unsigned n) {
        if (m_data.size() - m_pos < n)
            fail("truncated fixed-size value", m_pos);
        uint64_t v = 0;
        for (unsigned i = 0; i < n; ++i)
            v |= static_cast<uint64_t>(static_cast<unsigned char>(m_data[m_pos + i])) << (8 * i);
        m_pos += n;
        return v;
    }
    std::string_view m_data;
    uint64_t m_base = 0;
    std::size_t m_pos = 0, m_fieldStart = 0;
    uint64_t m_field = 0;
    uint8_t m_type = 0;
};

} // namespace scorch::detail::proto
