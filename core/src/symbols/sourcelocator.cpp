#include "scorch/sourcelocator.h"

#include "symbols/debuginfod.h"

#include <filesystem>
#include <system_error>

#include <unistd.h>

namespace scorch {

namespace fs = std::filesystem;

namespace {

bool readableFile(const std::string& path) {
    std::error_code ec;
    return !path.empty() && fs::is_regular_file(path, ec) && ::access(path.c_str(), R_OK) == 0;
}

/// Path components of `path`, without empty and "." ones.
std::vector<std::string_view> components(std::string_view path) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < path.size()) {
        const std::size_t slash = path.find('/', i);
        const std::size_t end = slash == std::string_view::npos ? path.size() : slash;
        const std::string_view c = path.substr(i, end - i);
        if (!c.empty() && c != ".")
            out.push_back(c);
        i = end + 1;
    }
    return out;
}

std::string join(std::string_view dir, const std::vector<std::string_view>& comps, std::size_t first) {
    std::string out(dir);
    while (out.size() > 1 && out.back() == '/')
        out.pop_back();
    for (std::size_t k = first; k < comps.size(); ++k) {
        if (out.empty() || out.back() != '/')
            out += '/';
        out += comps[k];
    }
    return out;
}

/// Index of the first component of the longest tail that contains no "..".
std::size_t firstTail(const std::vector<std::string_view>& comps) {
    std::size_t first = 0;
    for (std::size_t k = 0; k < comps.size(); ++k)
        if (comps[k] == "..")
            first = k + 1;
    return first;
}

std::string trimSlashes(std::string_view s) {
    std::string out(s);
    while (!out.empty() && out.back() == '/')
        out.pop_back();
    return out;
}

} // namespace

std::string_view sourceRuleName(SourceRule rule) {
    switch (rule) {
    case SourceRule::NotFound:
        return "not found";
    case SourceRule::Recorded:
        return "recorded path";
    case SourceRule::Mapping:
        return "path mapping";
    case SourceRule::SearchDirSuffix:
        return "search directory";
    case SourceRule::SearchDirName:
        return "search directory (by file name)";
    case SourceRule::Debuginfod:
        return "debuginfod";
    }
    return "?";
}

SourceLocation fetchSource(std::string_view recorded, std::string_view buildId, std::string_view urls,
                           const std::atomic<bool>* cancel) {
    SourceLocation location;
    const detail::DebuginfodResult fetched =
        detail::debuginfodFetch(urls, detail::DebuginfodKind::Source, buildId, buildId, recorded, cancel);
    if (fetched.path.empty()) {
        location.detail = fetched.error;
        return location;
    }
    location.rule = SourceRule::Debuginfod;
    location.path = fetched.path;
    location.detail = std::string(urls);
    return location;
}

std::string applyMapping(std::string_view recorded, const PathMapping& mapping) {
    const std::string from = trimSlashes(mapping.from);
    if (mapping.from.empty() || mapping.to.empty() || !recorded.starts_with(from))
        return {};
    const std::string_view rest = recorded.substr(from.size());
    if (!rest.empty() && rest.front() != '/')
        return {}; // "/src/foo" must not map "/src/foobar/x.c"
    return trimSlashes(mapping.to) + std::string(rest);
}

PathMapping mappingForDirectory(std::string_view recorded, std::string_view dir) {
    if (!recorded.starts_with('/') || dir.empty())
        return {};
    const auto comps = components(recorded);
    for (std::size_t k = firstTail(comps); k < comps.size(); ++k) {
        if (k == 0)
            continue; // the whole path is no tail: mapping "/" would be odd
        if (!readableFile(join(dir, comps, k)))
            continue;
        std::string from = "/";
        for (std::size_t j = 0; j < k; ++j)
            from += std::string(comps[j]) + (j + 1 < k ? "/" : "");
        return {from, trimSlashes(dir).empty() ? std::string("/") : trimSlashes(dir)};
    }
    return {};
}

SourceLocation locateSource(std::string_view recorded, const SourceLocatorConfig& config) {
    if (recorded.empty())
        return {};
    const std::string rec(recorded);
    if (rec.starts_with('/')) {
        if (readableFile(rec))
            return {SourceRule::Recorded, rec, {}};
    } else {
        if (!config.baseDir.empty() && readableFile(join(config.baseDir, components(rec), 0)))
            return {SourceRule::Recorded, join(config.baseDir, components(rec), 0), {}};
        if (readableFile(rec)) {
            std::error_code ec;
            const fs::path abs = fs::absolute(rec, ec);
            return {SourceRule::Recorded, ec ? rec : abs.lexically_normal().string(), {}};
        }
    }

    for (const PathMapping& m : config.mappings) {
        const std::string mapped = applyMapping(rec, m);
        if (readableFile(mapped))
            return {SourceRule::Mapping, mapped, m.from + " -> " + m.to};
    }

    const auto comps = components(rec);
    if (comps.empty())
        return {};
    for (const std::string& dir : config.searchDirs)
        for (std::size_t k = firstTail(comps); k < comps.size(); ++k)
            if (const std::string p = join(dir, comps, k); readableFile(p))
                return {SourceRule::SearchDirSuffix, p, dir};

    // Anywhere below a search directory: the candidate sharing the most trailing components wins.
    const std::string_view name = comps.back();
    SourceLocation best;
    std::size_t bestScore = 0;
    for (const std::string& dir : config.searchDirs) {
        std::error_code ec;
        fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
        std::size_t visited = 0;
        for (; !ec && it != end && visited < config.maxScannedEntries; it.increment(ec), ++visited) {
            const fs::path& p = it->path();
            if (p.filename() != name)
                continue;
            const std::string path = p.string();
            if (!readableFile(path))
                continue;
            const auto found = components(path);
            std::size_t score = 0;
            while (score < found.size() && score < comps.size() &&
                   found[found.size() - 1 - score] == comps[comps.size() - 1 - score])
                ++score;
            if (score > bestScore || (score == bestScore && best.found() && path.size() < best.path.size())) {
                bestScore = score;
                best = {SourceRule::SearchDirName, path, dir};
            }
        }
    }
    return best;
}

} // namespace scorch
