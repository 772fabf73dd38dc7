#include "jsonwalker.h"

#include <cstring>

namespace scorch::detail {

namespace {

bool isJsonSpace(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

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
        if (m_capturing && m_captureKind == Capture::Scalar && m_depthInCapture == 0 && !m_inString) {
            deliverCapture(); // a number at the very end of the input
        }
        if (m_expect == Expect::End)
            return;
        if (m_options.allowTruncated && !m_capturing && !m_path.empty()) {
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
            if (m_handler.descend(m_path, c)) {
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
        for (; i < data.size() && !done; ++i) {
            const char c = data[i];
            if (m_inString) {
                if (m_escape)
                    m_escape = false;
                else if (c == '\\')
                    m_escape = true;
                else if (c == '"') {
                    m_inString = false;
                    done = m_captureKind == Capture::String; // a string value ends with its closing quote
                }
                continue;
            }
            switch (c) {
            case '"':
                m_inString = true;
                break;
            case '{':
            case '[':
                if (m_captureKind == Capture::Scalar)
                    fail("unexpected '" + std::string(1, c) + "'", offset + i);
                if (++m_depthInCapture > m_options.maxDepth)
                    fail("nested deeper than " + std::to_string(m_options.maxDepth) + " levels", offset + i);
                break;
            case '}':
            case ']':
                if (m_captureKind == Capture::Scalar) {
                    done = true;
                    --i; // the delimiter belongs to the parent
                } else if (--m_depthInCapture == 0) {
                    done = true;
                }
                break;
            case ',':
            case ' ':
            case '\n':
            case '\r':
            case '\t':
            case ':':
                if (m_captureKind == Capture::Scalar) {
                    done = true;
                    --i;
                }
                break;
            default:
                break;
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
    std::string buffer(1u << 20, '\0');
    for (;;) {
        if (control.cancel && control.cancel->load(std::memory_order_relaxed))
            throw ImportCancelled();
        if (control.progress)
            control.progress(source.consumed(), source.totalSize());
        const std::size_t got = source.read(buffer.data(), buffer.size());
        if (!got)
            break;
        walker.feed(std::string_view(buffer.data(), got), offset);
        offset += got;
    }
    walker.finish(offset);
    return offset;
}

} // namespace scorch::detail
