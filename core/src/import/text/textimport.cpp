// What the line-oriented text importers share: the walk over the head's lines for their sniffers, and the run
// of the chunk pipeline that turns the input into a profile.
#include "import/text/textimporters.h"
#include "util/phasetimer.h"
#include "util/textutil.h"

namespace scorch::detail {

void forEachHeadLine(std::string_view head, const std::function<void(std::string_view)>& f) {
    // Look at complete lines only (the head may end in the middle of one).
    std::string_view text = head;
    if (head.size() >= kDetectBytes) {
        const std::size_t nl = text.rfind('\n');
        if (nl != std::string_view::npos)
            text = text.substr(0, nl + 1);
    }
    int lines = 0;
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
        f(line);
    }
}

Profile importLines(ByteSource& source, std::string head, const std::string& name,
                    const ImportOptions& options, const ImportControl& control, Format format,
                    Boundary boundary, const std::function<std::unique_ptr<ChunkParser>()>& makeParser,
                    const std::function<void(TreeBuilder&, ProfileMeta&)>& finishBuilder) {
    PipelineResult result =
        runPipeline(source, std::move(head), boundary, makeParser, options, control, name);
    ProfileMeta meta;
    meta.source = name;
    meta.format = format;
    meta.compression = source.compression();
    meta.inputBytes = result.bytes;
    for (ImportWarning& w : result.diagnostics.resolve())
        meta.warn(std::move(w.message), w.line);
    meta.warningCount = result.diagnostics.count(); // the workers counted the ones they did not keep
    if (finishBuilder)
        finishBuilder(result.builder, meta);
    if (result.builder.samples() == 0) {
        std::string why = name + ": no samples found in " + std::string(formatName(format)) + " input";
        if (!meta.warnings.empty())
            why +=
                "; line " + std::to_string(meta.warnings.front().line) + ": " + meta.warnings.front().message;
        throw ImportError(why);
    }
    Profile profile = result.builder.finish(std::move(meta));
    trace("profile built");
    return profile;
}

} // namespace scorch::detail
