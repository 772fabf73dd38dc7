// Test helpers for the format conformance suites: a profile's per-thread stacks and per-function self costs,
// and the same read from speedscope's expected dumps (corpus `*.speedscope-dump.json`), so the two can be
// compared: totals, per-name self weights and the heaviest stacks.
#pragma once

#include "testutil.h"

#include "scorch/profile.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace scorch::test {

/// One profile (thread) of an expected speedscope dump.
struct ExpectedProfile {
    std::string name;
    std::map<std::string, double> selfByName; ///< frames[].selfWeight summed by name (speedscope's unit)
    std::map<std::string, double> stacks;     ///< `stacks` summed by stack, in ns (time) or plain numbers
    double total = 0;                         ///< sum of selfWeight
};

/// "12.34ms" -> 12340000 (ns); "3" -> 3. Units as speedscope's formatters print them.
inline double parseSpeedscopeValue(const std::string& text) {
    std::size_t end = 0;
    const double v = std::stod(text, &end);
    const std::string unit = text.substr(end);
    if (unit == "ns")
        return v;
    if (unit == "\xc2\xb5s")
        return v * 1e3;
    if (unit == "ms")
        return v * 1e6;
    if (unit == "s")
        return v * 1e9;
    if (unit == "min")
        return v * 60e9;
    return v;
}

inline std::vector<ExpectedProfile> expectedSpeedscopeDump(const QString& path) {
    std::vector<ExpectedProfile> out;
    const QJsonObject doc = QJsonDocument::fromJson(readAll(path)).object();
    for (const QJsonValue& pv : doc.value(QStringLiteral("profiles")).toArray()) {
        const QJsonObject p = pv.toObject();
        ExpectedProfile e;
        e.name = p.value(QStringLiteral("name")).toString().toStdString();
        for (const QJsonValue& fv : p.value(QStringLiteral("frames")).toArray()) {
            const QJsonObject f = fv.toObject();
            const double self = f.value(QStringLiteral("selfWeight")).toDouble();
            e.selfByName[f.value(QStringLiteral("name")).toString().toStdString()] += self;
            e.total += self;
        }
        for (const QJsonValue& sv : p.value(QStringLiteral("stacks")).toArray()) {
            const std::string s = sv.toString().toStdString();
            const std::size_t sp = s.rfind(' ');
            const std::string stack = s.substr(0, sp);
            if (stack.empty())
                continue; // time with nothing on the stack (idle before the first sample)
            e.stacks[stack] += parseSpeedscopeValue(s.substr(sp + 1));
        }
        out.push_back(std::move(e));
    }
    return out;
}

/// Self cost of `costType` per stack ("root;...;leaf") for the threads accepted by `threadFilter`.
template <typename Filter>
std::map<std::string, double> stacksOf(const Profile& p, std::size_t costType, Filter&& threadFilter) {
    std::map<std::string, double> out;
    for (std::size_t e = 0; e < p.threadCosts.node.size(); ++e) {
        if (!threadFilter(p.threadCosts.thread[e]))
            continue;
        std::string stack;
        for (NodeId n : p.tree.path(p.threadCosts.node[e])) {
            if (n == kRootNode)
                continue;
            if (!stack.empty())
                stack += ';';
            stack += p.nodeName(n);
        }
        out[stack] += double(p.threadCosts.cost[costType][e]);
    }
    return out;
}

/// Self cost per frame name for the threads accepted by `threadFilter`.
template <typename Filter>
std::map<std::string, double> selfByNameOf(const Profile& p, std::size_t costType, Filter&& threadFilter) {
    std::map<std::string, double> out;
    for (std::size_t e = 0; e < p.threadCosts.node.size(); ++e)
        if (threadFilter(p.threadCosts.thread[e]))
            out[std::string(p.nodeName(p.threadCosts.node[e]))] += double(p.threadCosts.cost[costType][e]);
    return out;
}

/// The `n` heaviest entries of a stack map, heaviest first (ties by name).
inline std::vector<std::pair<std::string, double>> heaviest(const std::map<std::string, double>& stacks,
                                                            std::size_t n) {
    std::vector<std::pair<std::string, double>> v(stacks.begin(), stacks.end());
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    if (v.size() > n)
        v.resize(n);
    return v;
}

} // namespace scorch::test
