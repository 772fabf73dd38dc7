#include "import/json/jsonwalker.h"

#include "io/chunkpipeline.h"

#include <cstring>

namespace scorch::detail {

namespace {

bool isJsonSpace(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/// Bytes that matter while scanning a value taken whole: in a container, quotes and brackets; in a scalar,
/// anything that ends it.
struct StopTables {
    unsigned char container[256] = {}, scalar[256] = {};
    StopTables() {
        for (unsigned char c : std::string_view("\"{}[]"))
            container[c] = 1;
        for (unsigned char c : std::string_view("\"{}[],: \n\r\t"))
            scalar[c] = 1;
    }
};
const StopTables kStopTables;
const unsigned char* const kContainerStop = kStopTables.container;
const unsigned char* const kScalarStop = kStopTables.scalar;

class Walker {
public:
    Walker(JsonHandler& handler, const JsonWalkOptions& options, const std::string& name)
        : m_handler(handler)
        , m_options(options)
        , m_name(name) {}

    /// Feeds the next piece of input; `offset` is the byte offset of data[0] in the document.
    void feed(std::string_view data, uint64_t offset) {
        std::size_t i = 0;
        while (i < data.size()) {
            if (m_slicing) {
                i = continueSlice(data, i, offset);
                continue;
            }
            if (m_capturing) {
                i = continueCapture(data, i, offset);
                continue;
            }
            const char c = data[i];
            if (isJsonSpace(c)) {
                ++i;
                continue;
            }
            switch (m_expect) {
            case Expect::Value:
                startValue(data, i, offset);
                break;
            case Expect::Key:
                if (c == '}' && m_emptyOk) {
                    closeContainer('}', offset + i);
                    ++i;
                    break;
                }
                if (c != '"')
                    fail("expected a member name", offset + i);
                m_capturing = true;
                m_captureKind = Capture::Key;
                m_capture.clear();
                m_inString = true;
                m_escape = false;
                ++i;
                break;
            case Expect::Colon:
                if (c != ':')
                    fail("expected ':'", offset + i);
                m_expect = Expect::Value;
                ++i;
                break;
            case Expect::CommaOrEnd: {
                const bool array = m_path.back().inArray;
                if (c == ',') {
                    if (array) {
                        ++m_path.back().index;
                        m_expect = Expect::Value;
                    } else {
                        m_expect = Expect::Key;
                    }
                    m_emptyOk = false;
                } else if (c == (array ? ']' : '}')) {
                    closeContainer(c, offset + i);
                } else {
                    fail(array ? "expected ',' or ']'" : "expected ',' or '}'", offset + i);
                }
                ++i;
                break;
            }
            case Expect::End:
                fail("unexpected data after the JSON document", offset + i);
            }
        }
    }

    void finish(uint64_t offset) {
        if (m_slicing && !m_options.allowTruncated)
            fail("truncated JSON: the input ends inside an array", offset);
        if (m_slicing) { // hand over the complete elements, drop one cut off in the middle
            m_handler.truncated(offset);
            deliverSlice(m_depthInCapture == 0 && !m_inString ? m_capture.size() : m_lastClose);
            m_slicing = false;
            m_capture.clear();
            m_handler.leave(m_path);
            while (!m_path.empty()) {
                m_path.pop_back();
                m_handler.leave(m_path);
            }
            return;
        }
        if (m_capturing && m_captureKind == Capture::Scalar && m_depthInCapture == 0 && !m_inString) {
            deliverCapture(); // a number at the very end of the input
        }
        if (m_expect == Expect::End)
            return;
        if (m_options.allowTruncated && !m_capturing && !m_path.empty()) {
            m_handler.truncated(offset);
            while (!m_path.empty()) {
                m_path.pop_back();
                m_handler.leave(m_path);
            }
            return;
        }
        fail(m_path.empty() && !m_capturing ? "the document is empty"
                                            : "truncated JSON: the input ends inside a value",
             offset);
    }

private:
    enum class Expect { Value, Key, Colon, CommaOrEnd, End };
    enum class Capture { Key, Scalar, String, Container };

    [[noreturn]] void fail(const std::string& what, uint64_t offset) const {
        throw ImportError(m_name + ": invalid JSON at byte offset " + std::to_string(offset) + ": " + what);
    }

    void startValue(std::string_view data, std::size_t& i, uint64_t offset) {
        const char c = data[i];
        if (c == ']' && m_emptyOk && !m_path.empty() && m_path.back().inArray) {
            closeContainer(']', offset + i);
            ++i;
            return;
        }
        m_emptyOk = false;
        if (c == '{' || c == '[') {
            const JsonHandler::Take take = m_handler.descend(m_path, c);
            if (take == JsonHandler::Take::Slices && c == '[') {
                m_slicing = true;
                m_runBegin = m_runEnd = m_lastClose = 0;
                m_capture.clear();
                m_depthInCapture = 0;
                m_inString = false;
                m_escape = false;
                m_captureStart = offset + i;
                ++i;
                return;
            }
            if (take == JsonHandler::Take::Walk) {
                if (m_path.size() >= m_options.maxDepth)
                    fail("nested deeper than " + std::to_string(m_options.maxDepth) + " levels", offset + i);
                JsonPathElement e;
                e.inArray = c == '[';
                m_path.push_back(std::move(e));
                m_expect = c == '[' ? Expect::Value : Expect::Key;
                m_emptyOk = true;
                ++i;
                return;
            }
            beginCapture(Capture::Container, data, i, offset);
            return;
        }
        if (c == '}' || c == ']' || c == ',' || c == ':')
            fail(std::string("unexpected '") + c + "'", offset + i);
        beginCapture(c == '"' ? Capture::String : Capture::Scalar, data, i, offset);
    }

    void beginCapture(Capture kind, std::string_view data, std::size_t& i, uint64_t offset) {
        m_capturing = true;
        m_captureKind = kind;
        m_capture.clear();
        m_captureStart = offset + i;
        m_depthInCapture = 0;
        m_inString = false;
        m_escape = false;
        i = continueCapture(data, i, offset);
    }

    /// Scans a value being taken whole from data[i]; returns where scanning stopped.
    std::size_t continueCapture(std::string_view data, std::size_t i, uint64_t offset) {
        const std::size_t begin = i;
        bool done = false;
        std::size_t end = data.size();
        if (m_captureKind == Capture::Key) {
            for (; i < data.size(); ++i) {
                const char c = data[i];
                if (m_escape)
                    m_escape = false;
                else if (c == '\\')
                    m_escape = true;
                else if (c == '"') {
                    done = true;
                    end = i;
                    ++i;
                    break;
                }
            }
            m_capture.append(data.substr(begin, end - begin));
            if (done) {
                m_capturing = false;
                m_path.back().key = m_capture;
                m_expect = Expect::Colon;
            }
            return i;
        }
        const bool scalar = m_captureKind == Capture::Scalar;
        const unsigned char* table = scalar ? kScalarStop : kContainerStop;
        const std::size_t n = data.size();
        while (i < n && !done) {
            if (m_inString) {
                if (!skipString(data, i))
                    break;
                done = m_captureKind == Capture::String; // a string value ends with its closing quote
                continue;
            }
            while (i < n && !table[static_cast<unsigned char>(data[i])]) // the bytes that change nothing
                ++i;
            if (i >= n)
                break;
            const char c = data[i];
            if (scalar) { // any structural character or space ends a number/true/false/null
                if (c == '{' || c == '[' || c == '"')
                    fail("unexpected '" + std::string(1, c) + "'", offset + i);
                done = true;
                break;
            }
            ++i;
            if (c == '"') {
                m_inString = true;
            } else if (c == '{' || c == '[') {
                if (++m_depthInCapture > m_options.maxDepth)
                    fail("nested deeper than " + std::to_string(m_options.maxDepth) + " levels",
                         offset + i - 1);
            } else if (--m_depthInCapture == 0) { // '}' or ']'
                done = true;
            }
        }
        const std::string_view piece = data.substr(begin, i - begin);
        if (done && m_capture.empty()) {
            m_capturing = false;
            m_handler.value(m_path, piece); // the common case: the value lies within this piece
            afterValue();
            return i;
        }
        if (m_capture.size() + piece.size() > m_options.maxValueBytes)
            fail("a single value is larger than " + std::to_string(m_options.maxValueBytes >> 20) + " MiB",
                 m_captureStart);
        m_capture.append(piece);
        if (done)
            deliverCapture();
        return i;
    }

    /// Scans the elements of an array taken in slices and hands over about 1 MiB of whole elements at a time.
    /// Only quotes and brackets are looked at byte by byte; cut points are found afterwards: a comma in the
    /// last stretch of plain text at the array's own level, or just after the last element that closed there.
    std::size_t continueSlice(std::string_view data, std::size_t i, uint64_t offset) {
        std::size_t begin = i, base = m_capture.size(); // base: capture index of data[begin]
        const std::size_t n = data.size();
        while (i < n) {
            if (m_inString) {
                if (!skipString(data, i))
                    break;
                continue;
            }
            const std::size_t run = i;
            while (i < n && !kContainerStop[static_cast<unsigned char>(data[i])])
                ++i;
            if (m_depthInCapture == 0 && i > run) {
                m_runBegin = base + (run - begin);
                m_runEnd = base + (i - begin);
            }
            if (i >= n)
                break;
            const char c = data[i];
            if (c == '"') {
                m_inString = true;
            } else if (c == '{' || c == '[') {
                if (++m_depthInCapture > m_options.maxDepth)
                    fail("nested deeper than " + std::to_string(m_options.maxDepth) + " levels", offset + i);
            } else if (m_depthInCapture > 0) {
                if (--m_depthInCapture == 0 && base + (i - begin) + 1 >= (1u << 20)) { // a slice is full
                    appendSlice(data.substr(begin, i + 1 - begin));
                    deliverSlice(m_capture.size());
                    begin = i + 1;
                    base = m_capture.size();
                } else if (m_depthInCapture == 0)
                    m_lastClose = base + (i - begin) + 1;
            } else { // the array's own closing bracket
                if (c != ']')
                    fail("unexpected '}'", offset + i);
                appendSlice(data.substr(begin, i - begin));
                deliverSlice(m_capture.size());
                m_slicing = false;
                m_handler.leave(m_path);
                afterValue();
                return i + 1;
            }
            ++i;
        }
        appendSlice(data.substr(begin, n - begin));
        if (m_depthInCapture == 0 && !m_inString && m_capture.size() >= (1u << 20)) {
            std::size_t cut = m_lastClose;
            if (m_runEnd > m_runBegin) {
                const void* comma = memrchr(m_capture.data() + m_runBegin, ',', m_runEnd - m_runBegin);
                if (comma)
                    cut = std::max(
                        cut, static_cast<std::size_t>(static_cast<const char*>(comma) - m_capture.data()));
            }
            if (cut > 0)
                deliverSlice(cut);
        }
        return n;
    }

    /// Inside a string: moves i past its closing quote (true), or to the end of the piece (false).
    bool skipString(std::string_view data, std::size_t& i) {
        const std::size_t n = data.size();
        while (i < n) {
            if (m_escape) {
                m_escape = false;
                ++i;
                continue;
            }
            while (i < n && data[i] != '"' && data[i] != '\\')
                ++i;
            if (i >= n)
                return false;
            m_escape = data[i++] == '\\';
            if (!m_escape) {
                m_inString = false;
                return true;
            }
        }
        return false;
    }

    void appendSlice(std::string_view text) {
        if (m_capture.size() + text.size() > m_options.maxValueBytes)
            fail("an array element is larger than " + std::to_string(m_options.maxValueBytes >> 20) + " MiB",
                 m_captureStart);
        m_capture.append(text);
    }

    /// Hands over m_capture[0, cut) (minus separators at its edges) and keeps the rest.
    void deliverSlice(std::size_t cut) {
        std::string_view text(m_capture.data(), cut);
        while (!text.empty() && (isJsonSpace(text.front()) || text.front() == ','))
            text.remove_prefix(1);
        while (!text.empty() && (isJsonSpace(text.back()) || text.back() == ','))
            text.remove_suffix(1);
        if (!text.empty())
            m_handler.slice(m_path, text);
        m_capture.erase(
            0, std::min(cut + 1, m_capture.size())); // the comma or closing bracket at the cut goes too
        m_runBegin = m_runEnd = m_lastClose = 0;
    }

    void deliverCapture() {
        m_capturing = false;
        m_handler.value(m_path, m_capture);
        m_capture.clear();
        afterValue();
    }

    void afterValue() { m_expect = m_path.empty() ? Expect::End : Expect::CommaOrEnd; }

    void closeContainer(char c, uint64_t offset) {
        if (m_path.empty() || m_path.back().inArray != (c == ']'))
            fail(std::string("unexpected '") + c + "'", offset);
        m_path.pop_back();
        m_handler.leave(m_path);
        m_emptyOk = false;
        afterValue();
    }

    JsonHandler& m_handler;
    const JsonWalkOptions& m_options;
    const std::string& m_name;
    JsonPath m_path;
    Expect m_expect = Expect::Value;
    bool m_emptyOk = false;
    bool m_capturing = false;
    bool m_slicing = false;
    std::size_t m_runBegin = 0, m_runEnd = 0, m_lastClose = 0; // slice cut candidates (capture indices)
    Capture m_captureKind = Capture::Scalar;
    std::string m_capture;
    uint64_t m_captureStart = 0;
    std::size_t m_depthInCapture = 0;
    bool m_inString = false, m_escape = false;
};

} // namespace

uint64_t walkJson(ByteSource& source, std::string head, JsonHandler& handler, const JsonWalkOptions& options,
                  const ImportControl& control, const std::string& name) {
    Walker walker(handler, options, name);
    uint64_t offset = 0;
    // a UTF-8 byte order mark is allowed before the document
    std::string_view first = head;
    if (first.starts_with("\xef\xbb\xbf")) {
        first.remove_prefix(3);
        offset = 3;
    }
    walker.feed(first, offset);
    offset = head.size();
    readRest(source, control, [&](std::string_view block) {
        walker.feed(block, offset);
        offset += block.size();
    });
    walker.finish(offset);
    return offset;
}

} // namespace scorch::detail
