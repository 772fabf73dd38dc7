// Internal helpers shared by the exporters: a buffered writer and text escaping for JSON and XML.
#pragma once

#include "scorch/profile.h"

#include <charconv>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace scorch::detail {

/// Appends to a buffer and hands it to the stream in ~1 MiB pieces.
class BufferedOut {
public:
    explicit BufferedOut(std::ostream& out)
        : m_out(out) {
        m_buffer.reserve(kFlushAt + 65536);
    }
    ~BufferedOut() { flush(); }
    BufferedOut(const BufferedOut&) = delete;
    BufferedOut& operator=(const BufferedOut&) = delete;

    BufferedOut& operator<<(std::string_view s) {
        m_buffer.append(s);
        maybeFlush();
        return *this;
    }
    BufferedOut& operator<<(char c) {
        m_buffer.push_back(c);
        return *this;
    }
    BufferedOut& operator<<(int64_t v) { return number(v); }
    BufferedOut& operator<<(uint64_t v) { return number(v); }
    BufferedOut& operator<<(uint32_t v) { return number(v); }
    BufferedOut& operator<<(int v) { return number(v); }
    std::string& buffer() { return m_buffer; }
    void maybeFlush() {
        if (m_buffer.size() >= kFlushAt)
            flush();
    }
    void flush() {
        if (!m_buffer.empty())
            m_out.write(m_buffer.data(), static_cast<std::streamsize>(m_buffer.size()));
        m_buffer.clear();
    }

private:
    template <typename T>
    BufferedOut& number(T v) {
        char buf[24];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        m_buffer.append(buf, r.ptr);
        maybeFlush();
        return *this;
    }
    static constexpr std::size_t kFlushAt = 1u << 20;
    std::ostream& m_out;
    std::string m_buffer;
};

/// Length of the valid UTF-8 sequence at s[i], or 0 when the bytes there are not valid UTF-8.
std::size_t utf8SequenceLength(std::string_view s, std::size_t i);

/// s as a JSON string literal with quotes; invalid UTF-8 becomes U+FFFD.
void appendJsonString(std::string& out, std::string_view s);

/// s escaped for XML text and attribute values; invalid UTF-8 and characters XML forbids become U+FFFD.
void appendXmlText(std::string& out, std::string_view s);

/// The self costs of a profile as (thread, node, costs) rows: ThreadCosts when the importer filled it, else
/// the tree's self costs as thread 0. Rows with all costs zero are left out; rows are ordered by thread,
/// then node (preorder). Cost on the root itself (samples without any frame) is a row of the root: an empty
/// stack.
struct CostRows {
    std::vector<uint32_t> thread;
    std::vector<NodeId> node;
    std::vector<std::vector<int64_t>> cost; ///< [costType][row]
    std::size_t threadCount = 0;
};
CostRows costRows(const Profile& profile);

/// The root-first path of frames to n (the invisible root left out).
void framePath(const CallTree& tree, NodeId n, std::vector<FrameId>& out);

} // namespace scorch::detail
