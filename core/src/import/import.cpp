#include "scorch/import.h"
#include "scorch/recording.h"

#include "import/json/jsonimporters.h"
#include "import/pprof/pprofimport.h"
#include "import/text/textimporters.h"
#include "io/chunkpipeline.h"
#include "perf/perfreader.h"
#include "scorch/bytesource.h"
#include "symbols/symbolizeroptions.h"
#include "util/textutil.h"

#include <algorithm>

namespace scorch {

using namespace detail;

std::string_view formatName(Format format) {
    switch (format) {
    case Format::PerfScript:
        return "perf script";
    case Format::Folded:
        return "folded stacks";
    case Format::Speedscope:
        return "speedscope";
    case Format::FoldedDiff:
        return "differential folded stacks";
    case Format::PerfData:
        return "perf.data";
    case Format::Json:
        return "JSON";
    case Format::Binary:
        return "binary data";
    case Format::ScorchRecording:
        return "Scorch recording";
    case Format::Empty:
        return "empty";
    case Format::ChromeCpuProfile:
        return "Chrome .cpuprofile";
    case Format::ChromeTrace:
        return "Chrome trace";
    case Format::Pprof:
        return "pprof";
    case Format::D3Json:
        return "d3 JSON";
    case Format::Unknown:
        break;
    }
    return "unknown";
}

namespace {

constexpr std::size_t kHeadBytes = 64 * 1024;

bool looksLikeFoldedCount(std::string_view tok) {
    if (!tok.empty() && tok[0] == '-')
        tok.remove_prefix(1);
    const std::size_t dot = tok.find('.');
    if (dot == std::string_view::npos)
        return allDigits(tok);
    return allDigits(tok.substr(0, dot)) && allDigits(tok.substr(dot + 1));
}

std::string_view lastToken(std::string_view& line) {
    const std::size_t sp = line.find_last_of(" \t");
    if (sp == std::string_view::npos)
        return {};
    const std::string_view tok = line.substr(sp + 1);
    line = rtrim(line.substr(0, sp));
    return tok;
}

/// An indented (or not) `ADDRESS SYMBOL (MODULE)` line.
bool looksLikePerfFrame(std::string_view line) {
    line = ltrim(line);
    std::size_t i = 0;
    while (i < line.size() && isWordChar(line[i]))
        ++i;
    return i > 0 && i < line.size() && isSpace(line[i]) && line.find(" (") != std::string_view::npos &&
           line.back() == ')';
}

/// An unindented line that ends with "EVENT:" and has a numeric pid/tid field after the comm.
bool looksLikePerfHeader(std::string_view line) {
    if (line.empty() || isSpace(line[0]))
        return false;
    line = rtrim(line);
    if (line.size() < 4 || line.back() != ':')
        return false;
    for (std::size_t i = 1; i + 1 < line.size(); ++i) {
        if (!isSpace(line[i - 1]) || !isDigit(line[i]))
            continue;
        std::size_t j = i;
        while (j < line.size() && (isDigit(line[j]) || line[j] == '/'))
            ++j;
        if (j < line.size() && isSpace(line[j]))
            return true;
    }
    return false;
}

std::string printable(std::string_view s) {
    std::string out;
    for (char c : s.substr(0, 60))
        out.push_back(static_cast<unsigned char>(c) < 0x20 ? '?' : c);
    return out;
}

} // namespace

Format detectFormat(std::string_view head) {
    if (head.empty())
        return Format::Empty;
    if (head.starts_with(kRecordingMagic))
        return Format::ScorchRecording;
    if (head.starts_with("PERFILE2") || head.starts_with("PERFFILE"))
        return Format::PerfData;
    if (looksLikePprof(head))
        return Format::Pprof;
    const std::string_view probe = head.substr(0, 4096);
    std::size_t control = 0;
    for (char c : probe) {
        const auto u = static_cast<unsigned char>(c);
        if (u == 0)
            return Format::Binary;
        if (u < 0x20 && c != '\n' && c != '\r' && c != '\t')
            ++control;
    }
    if (control * 20 > probe.size())
        return Format::Binary;
    std::string_view body = ltrim(head);
    if (body.starts_with("\xef\xbb\xbf"))
        body = ltrim(body.substr(3));
    if (body.starts_with('{')) {
        if (head.find("speedscope.app/file-format-schema") != std::string_view::npos)
            return Format::Speedscope;
        return sniffJson(body);
    }
    if (body.starts_with('[')) { // a JSON array, unless it is a folded frame like "[unknown];..."
        const std::string_view next = ltrim(body.substr(1));
        if (next.empty() || std::string_view("{[\"]-0123456789").find(next[0]) != std::string_view::npos)
            return sniffJson(body);
    }

    // Look at complete lines only (the head may end in the middle of one).
    std::string_view text = head;
    if (head.size() >= kHeadBytes) {
        const std::size_t nl = text.rfind('\n');
        if (nl != std::string_view::npos)
            text = text.substr(0, nl + 1);
    }
    int perfHeaders = 0, perfFrames = 0, folded = 0, foldedDiff = 0, other = 0, lines = 0;
    std::size_t pos = 0;
    while (pos < text.size() && lines < 400) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos)
            nl = text.size();
        const std::string_view line = rtrim(text.substr(pos, nl - pos));
        pos = nl + 1;
        if (line.empty() || line[0] == '#')
            continue;
        ++lines;
        if (looksLikePerfFrame(line)) {
            ++perfFrames;
            continue;
        }
        if (looksLikePerfHeader(line)) {
            ++perfHeaders;
            continue;
        }
        std::string_view rest = line;
        const std::string_view last = lastToken(rest);
        if (!last.empty() && looksLikeFoldedCount(last) && !rest.empty()) {
            ++folded;
            std::string_view rest2 = rest;
            const std::string_view prev = lastToken(rest2);
            if (!prev.empty() && looksLikeFoldedCount(prev) && !rest2.empty())
                ++foldedDiff;
            continue;
        }
        ++other;
    }
    if (perfHeaders + perfFrames > 0 && perfHeaders + perfFrames >= folded)
        return Format::PerfScript;
    if (folded > 0 && folded >= 4 * other) {
        if (foldedDiff == folded)
            return Format::FoldedDiff;
        return Format::Folded;
    }
    return Format::Unknown;
}

Profile importProfile(const std::string& path, const ImportOptions& options, const ImportControl& control) {
    return importProfile(openByteSource(path), path == "-" ? std::string("<stdin>") : path, options, control);
}

namespace {

Profile importFrom(std::unique_ptr<ByteSource> source, const std::string& name, const ImportOptions& options,
                   const ImportControl& control) {
    // Read the head for format detection: at least one whole line (up to the line limit), 64 KiB at most
    // otherwise. The pipeline continues from these bytes.
    std::string head;
    std::size_t want = kHeadBytes;
    for (bool eof = false; !eof;) {
        std::size_t have = head.size();
        head.resize(want);
        while (have < head.size()) {
            const std::size_t got = source->read(head.data() + have, head.size() - have);
            if (!got) {
                eof = true;
                break;
            }
            have += got;
        }
        head.resize(have);
        if (head.find('\n') != std::string::npos || want >= options.maxLineBytes)
            break;
        want = std::min(want * 4, std::max(options.maxLineBytes, kHeadBytes));
    }
    const Format format = options.format != Format::Unknown ? options.format : detectFormat(head);
    switch (format) {
    case Format::Empty:
        throw ImportError(name + ": the file is empty");
    case Format::PerfData:
        return importPerfData(*source, std::move(head), name, options, control);
    case Format::Json:
        throw ImportError(name +
                          ": this JSON is none of the JSON formats Scorch reads: speedscope (a \"$schema\" "
                          "naming speedscope), Chrome .cpuprofile (\"nodes\" or \"head\" with "
                          "\"callFrame\"s), Chrome trace events (an array of events with \"ph\", or "
                          "{\"traceEvents\": [...]}) or d3-flame-graph JSON ({\"name\", \"value\", "
                          "\"children\"})");
    case Format::Binary: {
        std::size_t offset = 0;
        while (offset < head.size() && (static_cast<unsigned char>(head[offset]) >= 0x20 ||
                                        head[offset] == '\n' || head[offset] == '\t' || head[offset] == '\r'))
            ++offset;
        throw ImportError(
            name + ": binary data (byte offset " + std::to_string(offset) +
            "), not a profile format Scorch reads (perf script text, folded stacks, speedscope, Chrome "
            "profiles and traces, pprof or d3 JSON)");
    }
    case Format::Unknown: {
        std::string_view first = ltrim(head);
        first = first.substr(0, first.find('\n'));
        throw ImportError(
            name +
            ": not a recognised profile format (expected perf script text, folded stacks, speedscope, "
            "Chrome profiles and traces, pprof or d3 JSON); "
            "it starts with \"" +
            printable(first) + "\"");
    }
    case Format::ScorchRecording: {
        std::string bytes = std::move(head);
        readRest(*source, control, [&](std::string_view block) { bytes.append(block); });
        Profile p = profileFromRecording(parseRecording(bytes, name), name, control.cancel,
                                         symbolizerOptions(options));
        p.meta.inputBytes = bytes.size();
        p.meta.compression = source->compression();
        if (p.meta.samples == 0)
            throw ImportError(name + ": the recording has no samples");
        return p;
    }
    default:
        break;
    }

    if (format == Format::Pprof || format == Format::ChromeCpuProfile || format == Format::ChromeTrace ||
        format == Format::D3Json) {
        using Importer = Profile (*)(ByteSource&, std::string, const std::string&, const ImportOptions&,
                                     const ImportControl&);
        const Importer importer = format == Format::Pprof              ? importPprof
                                  : format == Format::ChromeCpuProfile ? importChromeCpuProfile
                                  : format == Format::ChromeTrace      ? importChromeTrace
                                                                       : importD3Json;
        Profile p = importer(*source, std::move(head), name, options, control);
        if (p.meta.samples == 0)
            throw ImportError(name + ": no samples found in " + std::string(formatName(format)) + " input");
        return p;
    }
    if (format == Format::Speedscope) {
        Profile p = importSpeedscope(*source, std::move(head), name, options, control);
        if (p.meta.samples == 0)
            throw ImportError(name + ": no samples found in speedscope input");
        return p;
    }
    const Boundary boundary = format == Format::PerfScript ? Boundary::BlankLine : Boundary::Line;
    auto makeParser = [&]() -> std::unique_ptr<ChunkParser> {
        if (format == Format::PerfScript)
            return makePerfScriptParser(options);
        return makeFoldedParser(format == Format::FoldedDiff, options);
    };
    PipelineResult result =
        runPipeline(*source, std::move(head), boundary, makeParser, options, control, name);

    ProfileMeta meta;
    meta.source = name;
    meta.format = std::string(formatName(format));
    meta.compression = source->compression();
    meta.inputBytes = result.bytes;
    meta.warningCount = result.diagnostics.count();
    meta.warnings = result.diagnostics.resolve();
    if (result.builder.samples() == 0) {
        std::string why = name + ": no samples found in " + std::string(formatName(format)) + " input";
        if (!meta.warnings.empty())
            why +=
                "; line " + std::to_string(meta.warnings.front().line) + ": " + meta.warnings.front().message;
        throw ImportError(why);
    }
    return result.builder.finish(std::move(meta));
}

} // namespace

Profile importProfile(std::unique_ptr<ByteSource> source, const std::string& name,
                      const ImportOptions& options, const ImportControl& control) {
    try {
        return importFrom(std::move(source), name, options, control);
    } catch (const LimitExceeded& e) {
        throw ImportError(name + ": " + e.what());
    } catch (const std::bad_alloc&) {
        throw ImportError(name + ": out of memory while importing");
    }
}

} // namespace scorch
