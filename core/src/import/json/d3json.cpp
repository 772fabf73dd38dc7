// d3-flame-graph hierarchical JSON: nested `{name, value, children}` objects where `value` is the node's
// total. Self cost = value - sum of the children's values (clamped at 0 with a warning when negative). The
// document is walked as a stream without recursion, so nesting is limited by memory, not the call stack.
#include "import/json/chromecpu.h" // jsonNumber
#include "import/json/jsonimporters.h"
#include "import/json/jsonwalker.h"
#include "util/textutil.h"

#include <simdjson.h>

#include <cmath>

namespace scorch::detail {

namespace {

class D3Handler final : public JsonHandler {
public:
    explicit D3Handler(const std::string& name)
        : m_name(name) {}

    Take descend(const JsonPath& path, char open) override {
        const bool inChildren = path.size() >= 2 && path.back().inArray && !m_kinds.empty() &&
                                !m_kinds.back() && path[path.size() - 2].key == "children";
        if (open == '{' && (path.empty() || inChildren)) {
            Node n;
            n.parent = m_open.empty() ? -1 : static_cast<int64_t>(m_open.back());
            m_open.push_back(static_cast<uint32_t>(m_nodes.size()));
            m_nodes.push_back(std::move(n));
            m_kinds.push_back(true);
            return Take::Walk;
        }
        if (open == '[' && !path.empty() && !path.back().inArray && path.back().key == "children" &&
            !m_kinds.empty() && m_kinds.back()) {
            m_kinds.push_back(false);
            return Take::Walk;
        }
        if (path.empty())
            throw ImportError(m_name + ": d3 JSON must be an object {name, value, children}");
        return Take::Whole;
    }

    void value(const JsonPath& path, std::string_view raw) override {
        if (m_open.empty() || path.empty() || path.back().inArray || m_kinds.empty() || !m_kinds.back())
            return;
        const std::string& key = path.back().key;
        if (key != "name" && key != "value")
            return;
        Node& n = m_nodes[m_open.back()];
        std::string wrapped = "[" + std::string(raw) + "]";
        simdjson::padded_string padded(wrapped);
        try {
            auto doc = m_parser.iterate(padded);
            for (auto element : doc.get_array()) {
                simdjson::ondemand::value v = element.value();
                if (key == "name") {
                    std::string_view s;
                    n.name = v.get_string().get(s) ? std::string(raw) : std::string(s);
                } else {
                    double d = 0;
                    if (!jsonNumber(v, d))
                        throw ImportError(m_name + ": node \"" + n.name + "\" (#" +
                                          std::to_string(m_open.back()) + "): \"value\" is not a number");
                    if (std::abs(d) > 9e15)
                        throw ImportError(m_name + ": node \"" + n.name + "\" (#" +
                                          std::to_string(m_open.back()) + "): \"value\" " + std::string(raw) +
                                          " is out of range");
                    n.value = d;
                    n.haveValue = true;
                }
            }
        } catch (const simdjson::simdjson_error& e) {
            throw ImportError(m_name + ": node #" + std::to_string(m_open.back()) + " \"" + key +
                              "\": " + e.what());
        }
    }

    void leave(const JsonPath& path) override {
        (void)path;
        if (m_kinds.empty())
            return;
        const bool node = m_kinds.back();
        m_kinds.pop_back();
        if (!node)
            return;
        Node& n = m_nodes[m_open.back()];
        m_open.pop_back();
        if (!n.haveValue)
            n.value = n.childSum; // no value of its own: the sum of its children
        if (n.parent >= 0)
            m_nodes[n.parent].childSum += n.value;
    }

    void build(TreeBuilder& builder, ProfileMeta& meta, std::size_t maxDepth) {
        bool fractional = false;
        for (const Node& n : m_nodes)
            fractional = fractional || n.value != std::floor(n.value);
        const uint32_t type = builder.costType("value", CostUnit::Count);
        if (fractional)
            builder.ensureDecimals(type, 3);
        const double scale = static_cast<double>(pow10(builder.decimals(type)));
        const uint32_t thread = builder.thread(baseName(m_name), -1, -1);
        std::vector<uint32_t> open;
        std::vector<FrameId> stack;
        uint64_t emitted = 0;
        for (uint32_t i = 0; i < m_nodes.size(); ++i) {
            const Node& n = m_nodes[i];
            while (!open.empty() && static_cast<int64_t>(open.back()) != n.parent) {
                open.pop_back();
                stack.pop_back();
            }
            open.push_back(i);
            stack.push_back(
                builder.frame(n.name.empty() ? std::string_view("(unnamed)") : std::string_view(n.name)));
            double self = n.value - n.childSum;
            if (self < 0) {
                meta.warn("node \"" + n.name + "\" has value " + std::to_string(n.value) +
                          " but its children sum to " + std::to_string(n.childSum) +
                          "; its self value is set to 0");
                self = 0;
            }
            if (self == 0)
                continue;
            std::span<const FrameId> path(stack);
            if (path.size() > maxDepth) {
                meta.warn("node \"" + n.name + "\" is deeper than " + std::to_string(maxDepth) +
                          " levels; its outermost ancestors are left out");
                path = path.subspan(path.size() - maxDepth);
            }
            emitted += path.size();
            if (emitted > kMaxEmittedFrames)
                throw ImportError(m_name + ": more than " + std::to_string(kMaxEmittedFrames) +
                                  " frames in the stacks of the nodes with a value of their own");
            const CostValue cost{type, static_cast<int64_t>(std::llround(self * scale))};
            builder.addSample(thread, path, {&cost, 1});
        }
    }

private:
    static constexpr uint64_t kMaxEmittedFrames = 200'000'000;
    struct Node {
        int64_t parent = -1;
        std::string name;
        double value = 0, childSum = 0;
        bool haveValue = false;
    };
    const std::string& m_name;
    simdjson::ondemand::parser m_parser;
    std::vector<Node> m_nodes; // preorder
    std::vector<uint32_t> m_open;
    std::vector<bool> m_kinds; // walked containers: true = a node, false = a children array
};

} // namespace

Profile importD3Json(ByteSource& source, std::string head, const std::string& name,
                     const ImportOptions& options, const ImportControl& control) {
    D3Handler handler(name);
    JsonWalkOptions walk;
    walk.maxDepth = 4 * options.maxStackDepth + 16; // two levels per node: the object and its children array
    const uint64_t bytes = walkJson(source, std::move(head), handler, walk, control, name);
    TreeBuilder builder;
    builder.setMaxNodes(options.maxNodes);
    ProfileMeta meta;
    handler.build(builder, meta, options.maxStackDepth);
    return finishJson(builder, std::move(meta), Format::D3Json, name, source, bytes);
}

} // namespace scorch::detail
