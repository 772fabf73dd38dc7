// Chrome/V8 .cpuprofile importer: `{nodes, samples, timeDeltas}` (DevTools, Node >= 12) and the older
// `{head, samples, timestamps}` with a nested call tree (Node 10). Walked as a stream: `nodes`, `samples`,
// `timeDeltas` and `timestamps` are parsed in slices, the nested `head` tree without recursion.
#include "import/json/chromecpu.h"
#include "import/json/jsonimporters.h"
#include "import/json/jsonwalker.h"
#include "util/textutil.h"

#include <cmath>

namespace scorch::detail {

namespace {

class CpuProfileHandler final : public JsonHandler {
public:
    explicit CpuProfileHandler(const std::string& name)
        : m_name(name) {}

    Take descend(const JsonPath& path, char open) override {
        if (path.empty())
            return open == '{' ? Take::Walk : Take::Whole;
        const std::string& key = path.back().key;
        if (path.size() == 1 && open == '[' &&
            (key == "nodes" || key == "samples" || key == "timeDeltas" || key == "timestamps"))
            return Take::Slices;
        if (open == '{' && isHeadNode(path)) {
            HeadNode n;
            n.parent = m_open.empty() ? -1 : static_cast<int64_t>(m_open.back());
            m_open.push_back(static_cast<uint32_t>(m_head.size()));
            m_head.push_back(std::move(n));
            m_containers.push_back(true);
            return Take::Walk;
        }
        if (open == '[' && !path.back().inArray && key == "children" && path.size() >= 2 && !m_open.empty()) {
            m_containers.push_back(false);
            return Take::Walk;
        }
        return Take::Whole;
    }

    void slice(const JsonPath& path, std::string_view elements) override {
        const std::string& key = path[0].key;
        std::string json;
        json.reserve(elements.size() + 2);
        json += '[';
        json += elements;
        json += ']';
        simdjson::padded_string padded(json);
        uint64_t& index = m_index[key];
        const int which = key == "nodes" ? 0 : key == "samples" ? 1 : key == "timeDeltas" ? 2 : 3;
        try {
            auto doc = m_parser.iterate(padded);
            for (auto element : doc.get_array()) {
                if (which == 0) {
                    m_profile.addNode(element.value(), m_name + ": nodes[" + std::to_string(index) + "]");
                } else {
                    double v = 0;
                    if (!jsonNumber(element.value(), v) || std::abs(v) > 9e15)
                        throw ImportError(m_name + ": " + key + "[" + std::to_string(index) +
                                          "]: expected a number");
                    if (which == 1)
                        m_profile.addSample(static_cast<int64_t>(v));
                    else if (which == 2)
                        m_profile.addTimeDelta(v);
                    else
                        m_profile.addTimestamp(v);
                }
                ++index;
            }
        } catch (const simdjson::simdjson_error& e) {
            throw ImportError(m_name + ": " + key + "[" + std::to_string(index) + "]: " + e.what());
        }
    }

    void value(const JsonPath& path, std::string_view raw) override {
        if (m_open.empty() || path.empty() || path.back().inArray)
            return;
        HeadNode& n = m_head[m_open.back()];
        const std::string& key = path.back().key;
        if (key != "id" && key != "functionName" && key != "url" && key != "lineNumber" &&
            key != "columnNumber" && key != "callFrame")
            return;
        try {
            if (key == "callFrame") {
                simdjson::padded_string padded(raw);
                auto doc = m_parser.iterate(padded);
                for (auto f : doc.get_object()) {
                    const std::string_view k = f.unescaped_key();
                    double d = 0;
                    if (k == "functionName")
                        n.frame.functionName = std::string(std::string_view(f.value().get_string()));
                    else if (k == "url")
                        n.frame.url = std::string(std::string_view(f.value().get_string()));
                    else if (k == "lineNumber" && jsonNumber(f.value(), d) && d >= 0 && d < 4e9)
                        n.frame.lineNumber = static_cast<int64_t>(d);
                }
                return;
            }
            // a scalar: read it as the element of a one-element array
            std::string wrapped = "[" + std::string(raw) + "]";
            simdjson::padded_string scalar(wrapped);
            auto array = m_scalarParser.iterate(scalar);
            for (auto element : array.get_array()) {
                simdjson::ondemand::value v = element.value();
                double d = 0;
                if (key == "functionName")
                    n.frame.functionName = std::string(std::string_view(v.get_string()));
                else if (key == "url")
                    n.frame.url = std::string(std::string_view(v.get_string()));
                else if (key == "lineNumber" && jsonNumber(v, d) && d >= 0 && d < 4e9)
                    n.frame.lineNumber = static_cast<int64_t>(d);
                else if (key == "id") {
                    if (!jsonNumber(v, d) || d != std::floor(d) || std::abs(d) > 9e15)
                        throw ImportError(m_name + ": a node of \"head\" has an id that is not an integer");
                    n.id = static_cast<int64_t>(d);
                    n.haveId = true;
                }
            }
        } catch (const simdjson::simdjson_error& e) {
            throw ImportError(m_name + ": \"head\" node \"" + key + "\": " + e.what());
        }
    }

    void leave(const JsonPath& path) override {
        (void)path;
        if (m_containers.empty())
            return;
        const bool node = m_containers.back();
        m_containers.pop_back();
        if (node)
            m_open.pop_back();
    }

    void build(TreeBuilder& builder, ProfileMeta& meta, std::size_t maxDepth) {
        for (HeadNode& n : m_head) {
            if (!n.haveId)
                throw ImportError(m_name + ": a node of \"head\" has no \"id\"");
            m_profile.addNode(n.id, n.parent >= 0 ? m_head[n.parent].id : -1, std::move(n.frame));
        }
        if (m_profile.empty())
            throw ImportError(m_name + ": this .cpuprofile has no nodes and no samples");
        const uint32_t thread = builder.thread(baseName(m_name), -1, -1);
        const uint32_t type = builder.costType("time", CostUnit::Nanoseconds);
        m_profile.build(builder, thread, type, meta, m_name, maxDepth);
    }

private:
    struct HeadNode {
        int64_t id = 0, parent = -1; // parent: index into m_head
        bool haveId = false;
        CpuProfileData::CallFrame frame;
    };

    /// `head` itself, or an element of a `children` array of a head node.
    bool isHeadNode(const JsonPath& path) const {
        if (path.size() == 1)
            return path[0].key == "head";
        return path.size() >= 3 && path.back().inArray && !m_containers.empty() && !m_containers.back() &&
               path[path.size() - 2].key == "children";
    }

    const std::string& m_name;
    simdjson::ondemand::parser m_parser, m_scalarParser;
    CpuProfileData m_profile;
    std::vector<HeadNode> m_head;
    std::vector<uint32_t> m_open;   // head nodes being walked (indices into m_head)
    std::vector<bool> m_containers; // walked containers inside head: true = a node, false = a children array
    std::unordered_map<std::string, uint64_t> m_index;
};

} // namespace

Profile importChromeCpuProfile(ByteSource& source, std::string head, const std::string& name,
                               const ImportOptions& options, const ImportControl& control) {
    CpuProfileHandler handler(name);
    JsonWalkOptions walk;
    walk.maxDepth = 2 * options.maxStackDepth + 16; // a nested `head` tree takes two levels per frame
    const uint64_t bytes = walkJson(source, std::move(head), handler, walk, control, name);
    TreeBuilder builder;
    builder.setMaxNodes(options.maxNodes);
    ProfileMeta meta;
    handler.build(builder, meta, options.maxStackDepth);
    return finishJson(builder, std::move(meta), Format::ChromeCpuProfile, name, source, bytes);
}

} // namespace scorch::detail
