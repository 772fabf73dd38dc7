// Internal: a streaming walk over a JSON document too large to hold in memory.
//
// The walker reads the document in pieces and tracks only its structure (containers, keys, strings). For
// every value it asks the handler whether to descend into it (containers only) or to take it whole: a value
// taken whole is handed over as raw JSON text, which the handler parses with simdjson. Memory is bounded by
// the largest value taken whole, whatever the document size. Nesting depth is limited and walked without
// recursion.
#pragma once

#include "scorch/bytesource.h"
#include "scorch/import.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace scorch::detail {

struct JsonPathElement {
    std::string key;    ///< member name when the parent is an object
    uint64_t index = 0; ///< element index when the parent is an array
    bool inArray = false;
};
using JsonPath = std::vector<JsonPathElement>;

class JsonHandler {
public:
    enum class Take {
        Walk,   ///< walk into the container: its members/elements are offered one by one
        Whole,  ///< hand the container over whole to value()
        Slices, ///< (arrays) hand the elements over in slices of whole elements to slice(), then leave()
    };
    virtual ~JsonHandler() = default;
    /// A container ('{' or '[') starts at `path`: how to take it.
    virtual Take descend(const JsonPath& path, char open) = 0;
    /// Some consecutive elements of an array taken in slices: their raw text, separated by commas.
    virtual void slice(const JsonPath& path, std::string_view elements) {
        (void)path;
        (void)elements;
    }
    /// A scalar, or a container not descended into, as raw JSON text.
    virtual void value(const JsonPath& path, std::string_view raw) = 0;
    /// A container that was descended into has ended.
    virtual void leave(const JsonPath& path) { (void)path; }
    /// (JsonWalkOptions::allowTruncated) The document ended at `offset` inside open containers; what was
    /// complete has been delivered (an element cut off in the middle is dropped), then the containers left.
    virtual void truncated(uint64_t offset) { (void)offset; }
};

struct JsonWalkOptions {
    std::size_t maxDepth = 4096;
    std::size_t maxValueBytes = 256u << 20; ///< a value taken whole may not be larger
    /// Accept a document that ends inside open arrays/objects (a crashed tracer's file).
    bool allowTruncated = false;
};

/// Walks the document; `head` holds bytes already read from `source`. Throws ImportError naming `name` and
/// the byte offset for malformed or truncated JSON. Returns the number of bytes read.
uint64_t walkJson(ByteSource& source, std::string head, JsonHandler& handler, const JsonWalkOptions& options,
                  const ImportControl& control, const std::string& name);

} // namespace scorch::detail
