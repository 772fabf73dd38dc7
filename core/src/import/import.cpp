// importProfile: reads the head of the input, detects its format and hands the input to the importer of that
// format, all through one table (kImporters below) of every format with its sniffer and importer.
#include "scorch/import.h"

#include "import/json/jsonimporters.h"
#include "import/pprof/pprofimport.h"
#include "import/text/textimporters.h"
#include "perf/perfreader.h"
#include "raw/recordingimport.h"
#include "scorch/bytesource.h"
#include "util/textutil.h"

#include <algorithm>

namespace scorch {

using namespace detail;

namespace {

/// Reads the whole input as one format. `head` holds the bytes already read from `source` (those
/// detectFormat looked at); `name` names the input in messages. Throws ImportError or ImportCancelled.
using ImportFunction = Profile (*)(ByteSource& source, std::string head, const std::string& name,
                                   const ImportOptions& options, const ImportControl& control);

/// One entry of the importer table.
struct Importer {
    Format format;
    std::string_view name;                ///< formatName(format), as messages and the window show it
    bool (*sniff)(std::string_view head); ///< whether the head is this format (given that no entry above
                                          ///< took it)
    ImportFunction import;                ///< reads it; the profile must have samples
};

[[noreturn]] Profile refuseEmpty(ByteSource&, std::string, const std::string& name, const ImportOptions&,
                                 const ImportControl&) {
    throw ImportError(name + ": the file is empty");
}

[[noreturn]] Profile refuseBinary(ByteSource&, std::string head, const std::string& name,
                                  const ImportOptions&, const ImportControl&) {
    std::size_t offset = 0;
    while (offset < head.size() && (static_cast<unsigned char>(head[offset]) >= 0x20 ||
                                    head[offset] == '\n' || head[offset] == '\t' || head[offset] == '\r'))
        ++offset;
    throw ImportError(
        name + ": binary data (byte offset " + std::to_string(offset) +
        "), not a profile format Scorch reads (perf script text, folded stacks, speedscope, Chrome "
        "profiles and traces, pprof or d3 JSON)");
}

bool sniffEmpty(std::string_view head) {
    return head.empty();
}

/// NUL bytes, or more than one control character in 20, in the first 4 KiB.
bool sniffBinary(std::string_view head) {
    const std::string_view probe = head.substr(0, 4096);
    std::size_t control = 0;
    for (char c : probe) {
        const auto u = static_cast<unsigned char>(c);
        if (u == 0)
            return true;
        if (u < 0x20 && c != '\n' && c != '\r' && c != '\t')
            ++control;
    }
    return control * 20 > probe.size();
}

// The importer table: every format Scorch reads, and the detection outcomes it refuses with an error.
// detectFormat tries the sniffers in this order and takes the first that accepts the head, so an entry may
// assume that none of the entries above it took the input (JSON sniffers: not binary; folded: not perf
// script). To add a format: a Format value (scorch/profile.h), a sniffer and an importer beside the parser
// in its folder (import/text, import/json, import/pprof, ...), and one line here.
constexpr Importer kImporters[] = {
    {Format::Empty, "empty", sniffEmpty, refuseEmpty},
    {Format::ScorchRecording, "Scorch recording", sniffRecording, importRecording},
    {Format::PerfData, "perf.data", sniffPerfData, importPerfData},
    {Format::Pprof, "pprof", sniffPprof, importPprof},
    {Format::Binary, "binary data", sniffBinary, refuseBinary},
    {Format::Speedscope, "speedscope", sniffSpeedscope, importSpeedscope},
    {Format::ChromeCpuProfile, "Chrome .cpuprofile", sniffChromeCpuProfile, importChromeCpuProfile},
    {Format::ChromeTrace, "Chrome trace", sniffChromeTrace, importChromeTrace},
    {Format::D3Json, "d3 JSON", sniffD3Json, importD3Json},
    {Format::Json, "JSON", sniffOtherJson, refuseOtherJson},
    {Format::PerfScript, "perf script", sniffPerfScript, importPerfScript},
    {Format::Folded, "folded stacks", sniffFolded, importFolded},
    {Format::FoldedDiff, "differential folded stacks", sniffFoldedDiff, importFoldedDiff},
};

const Importer* findImporter(Format format) {
    for (const Importer& entry : kImporters)
        if (entry.format == format)
            return &entry;
    return nullptr;
}

std::string printable(std::string_view s) {
    std::string out;
    for (char c : s.substr(0, 60))
        out.push_back(static_cast<unsigned char>(c) < 0x20 ? '?' : c);
    return out;
}

/// What detection looks at: `head`, or, when its first line is over the line limit (no newline in the whole
/// head), the lines after that line. The importer skips the long line with its usual warning, so detection
/// must not depend on it. A memory-mapped file is looked at in place; a stream (pipe, compressed input) is
/// read on into `head`, which the importer continues from, up to four times the line limit.
std::string_view detectionHead(ByteSource& source, std::string& head, const ImportOptions& options) {
    if (head.size() < options.maxLineBytes || head.find('\n') != std::string::npos)
        return head;
    if (const std::string_view all = source.mapping().bytes; !all.empty()) {
        const std::size_t nl = all.find('\n');
        return nl == std::string_view::npos ? std::string_view(head) : all.substr(nl + 1, kDetectBytes);
    }
    const std::size_t cap = std::max(options.maxLineBytes, kDetectBytes) * 4;
    std::size_t nl = std::string::npos;
    for (std::size_t searched = 0; head.size() < cap;) {
        const std::size_t have = head.size();
        head.resize(std::min(cap, have + std::max<std::size_t>(kDetectBytes, have / 2)));
        const std::size_t got = source.read(head.data() + have, head.size() - have);
        head.resize(have + got);
        if (nl == std::string::npos && (nl = head.find('\n', searched)) == std::string::npos)
            searched = head.size();
        if (!got || (nl != std::string::npos && head.size() - nl > kDetectBytes))
            break;
    }
    return nl == std::string::npos ? std::string_view(head)
                                   : std::string_view(head).substr(nl + 1, kDetectBytes);
}

} // namespace

std::string_view formatName(Format format) {
    if (const Importer* entry = findImporter(format))
        return entry->name;
    switch (format) { // what no importer reads
    case Format::PerfDataPerfScript:
        return "perf.data (through perf script)";
    case Format::Comparison:
        return "comparison";
    default:
        return "unknown";
    }
}

Format detectFormat(std::string_view head) {
    for (const Importer& entry : kImporters)
        if (entry.sniff(head))
            return entry.format;
    return Format::Unknown;
}

Profile importProfile(const std::string& path, const ImportOptions& options, const ImportControl& control) {
    if (std::optional<Profile> archived = detail::importPerfArchive(path, options, control))
        return std::move(*archived);
    return importProfile(openByteSource(path), path == "-" ? std::string("<stdin>") : path, options, control);
}

namespace {

Profile importFrom(std::unique_ptr<ByteSource> source, const std::string& name, const ImportOptions& options,
                   const ImportControl& control) {
    // Read the head for format detection: at least one whole line (up to the line limit), 64 KiB at most
    // otherwise. The pipeline continues from these bytes.
    std::string head;
    std::size_t want = kDetectBytes;
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
        want = std::min(want * 4, std::max(options.maxLineBytes, kDetectBytes));
    }
    const Format format = options.format != Format::Unknown
                              ? options.format
                              : detectFormat(detectionHead(*source, head, options));
    const Importer* importer = findImporter(format);
    if (!importer) {
        std::string_view first = ltrim(head);
        first = first.substr(0, first.find('\n'));
        throw ImportError(
            name +
            ": not a recognised profile format (expected perf script text, folded stacks, speedscope, "
            "Chrome profiles and traces, pprof or d3 JSON); "
            "it starts with \"" +
            printable(first) + "\"");
    }
    Profile p = importer->import(*source, std::move(head), name, options, control);
    if (p.meta.samples == 0)
        throw ImportError(name + ": no samples found in " + std::string(importer->name) + " input");
    return p;
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
