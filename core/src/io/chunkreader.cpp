#include "io/chunkreader.h"

#include "scorch/cancel.h"

#include <algorithm>
#include <cstring>

namespace scorch::detail {

namespace {

/// Position just after the last record boundary in buf, or 0 when there is none.
std::size_t lastBoundary(std::string_view buf, Boundary boundary) {
    if (boundary == Boundary::Line) {
        const void* nl = memrchr(buf.data(), '\n', buf.size());
        return nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - buf.data()) + 1 : 0;
    }
    // the line that ends at the last '\n' must be empty (or a lone '\r')
    std::size_t end = buf.size();
    while (end > 0) {
        const void* nl = memrchr(buf.data(), '\n', end);
        if (!nl)
            return 0;
        const auto i = static_cast<std::size_t>(static_cast<const char*>(nl) - buf.data());
        if (i == 0)
            return 0;
        if (buf[i - 1] == '\n' || (buf[i - 1] == '\r' && i >= 2 && buf[i - 2] == '\n'))
            return i + 1;
        end = i;
    }
    return 0;
}

} // namespace

void Buffer::reserve(std::size_t n) {
    if (n <= capacity)
        return;
    if (n >= kHugePageBytes)
        n = roundUp(n, kHugePageBytes);
    std::unique_ptr<char[], Free> bigger(
        static_cast<char*>(::operator new[](n, std::align_val_t(kHugePageBytes))));
    adviseHugePages(bigger.get(), n);
    if (size)
        std::memcpy(bigger.get(), data.get(), size);
    data = std::move(bigger);
    capacity = n;
}

void Buffer::consume(std::size_t n) {
    std::memmove(data.get(), data.get() + n, size - n);
    size -= n;
}

Buffer BufferPool::take(std::size_t capacity) {
    Buffer b;
    {
        std::lock_guard lock(m_mutex);
        if (!m_free.empty()) {
            b = std::move(m_free.back());
            m_free.pop_back();
        }
    }
    b.size = 0;
    b.reserve(capacity);
    return b;
}

void BufferPool::give(Buffer&& b) {
    std::lock_guard lock(m_mutex);
    if (m_free.size() < 16)
        m_free.push_back(std::move(b));
}

std::size_t CutRules::findCut(std::string_view view, std::size_t& target) const {
    if (const std::size_t cut = lastBoundary(view, boundary))
        return cut;
    const std::size_t lineCut = lastBoundary(view, Boundary::Line);
    if (boundary == Boundary::BlankLine && lineCut && view.size() >= maxChunk)
        return lineCut; // a huge record without blank lines: split between lines
    if (!lineCut && view.size() > maxLineBytes)
        return std::string_view::npos;
    target = std::min(maxChunk, std::max(target * 2, view.size() + chunkBytes));
    return 0;
}

ChunkReader::ChunkReader(ByteSource& source, std::string head, const CutRules& rules, BufferPool& pool,
                         Diagnostics& diagnostics, const ImportControl& control)
    : m_source(source)
    , m_rules(rules)
    , m_pool(pool)
    , m_diagnostics(diagnostics)
    , m_control(control)
    , m_target(rules.chunkBytes)
    , m_buf(pool.take(std::max(rules.chunkBytes, head.size()))) {
    std::memcpy(m_buf.data.get(), head.data(), head.size());
    m_buf.size = head.size();
    m_bytes = head.size();
}

bool ChunkReader::next(OwnedChunk& chunk) {
    for (;;) {
        if (cancelRequested(m_control.cancel))
            throw ImportCancelled();
        m_buf.reserve(m_target);
        while (!m_eof && m_buf.size < m_target) {
            const std::size_t got = m_source.read(m_buf.data.get() + m_buf.size, m_target - m_buf.size);
            m_buf.size += got;
            m_bytes += got;
            m_eof = got == 0;
        }
        if (m_control.progress)
            m_control.progress(m_source.consumed(), m_source.totalSize());
        if (m_skipping) { // drop bytes up to the end of an over-long line
            const void* nl = std::memchr(m_buf.data.get(), '\n', m_buf.size);
            const std::size_t n =
                nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - m_buf.data.get()) : m_buf.size;
            m_skipped += n;
            m_buf.consume(nl ? n + 1 : n);
            if (nl || m_eof) {
                m_diagnostics.warnBeforeChunk(m_index, overLongLineMessage(m_skipped, m_rules.maxLineBytes));
                m_skipping = false;
            }
            if (!nl && m_eof)
                return false;
            continue;
        }
        if (m_buf.size == 0 && m_eof)
            return false;
        const std::size_t cut = m_eof ? m_buf.size : m_rules.findCut(m_buf.view(), m_target);
        if (cut == 0)
            continue;
        if (cut == std::string_view::npos) {
            m_skipping = true;
            m_skipped = 0;
            m_target = m_rules.chunkBytes;
            continue;
        }
        Buffer rest = m_pool.take(std::max(m_rules.chunkBytes, m_buf.size - cut));
        std::memcpy(rest.data.get(), m_buf.data.get() + cut, m_buf.size - cut);
        rest.size = m_buf.size - cut;
        m_buf.size = cut;
        const std::string_view text = m_buf.view();
        chunk = OwnedChunk{std::move(m_buf), text, m_index++};
        m_buf = std::move(rest);
        m_target = m_rules.chunkBytes;
        return true;
    }
}

} // namespace scorch::detail
