// Shared body of the importer fuzz targets: bytes through (forced or detected) format, decompression and an
// importer, then through every analysis, diff and the folded writer. Bad input may throw ImportError;
// nothing may crash, leak or hang.
#pragma once

#include "scorch/analysis.h"
#include "scorch/bytesource.h"
#include "scorch/diff.h"
#include "scorch/foldedwriter.h"
#include "scorch/import.h"
#include "scorch/search.h"
#include "scorch/transform.h"

#include <cstddef>
#include <cstdint>
#include <sstream>

inline int fuzzImport(const uint8_t* data, std::size_t size, scorch::Format format) {
    using namespace scorch;
    ImportOptions options;
    options.format = format;
    options.chunkBytes = 4096; // many chunks even for small inputs
    options.maxLineBytes = 1 << 16;
    options.threads = 1;       // one thread keeps coverage, and so CI's fixed-seed runs, deterministic
    options.symbolize = false; // nor may the result depend on the binaries installed here (and it is fast)
    try {
        const Profile p =
            importProfile(memoryByteSource(std::string(reinterpret_cast<const char*>(data), size), "fuzz"),
                          "fuzz", options);
        std::ostringstream out;
        FoldedOptions folded;
        folded.includeTid = size % 3 == 0;
        folded.annotateKernel = folded.annotateJit = true;
        writeFolded(p, folded, out);
        (void)bottomUpTree(p);
        (void)topFunctions(p, 0, 10);
        if (p.tree.size() > 1) {
            const FrameId f = p.tree.frame(1);
            const TreeTransform t[] = {{TreeTransform::Kind::Focus, f},
                                       {TreeTransform::Kind::CollapseRecursion, f},
                                       {TreeTransform::Kind::Hide, f}};
            (void)applyTransforms(p, p.tree, t);
        }
        (void)matchedCost(p.tree, matchFrames(p, SearchQuery{"a", false, false}), 0);
        const Profile d = diffProfiles(p, 0, p, 0, DiffOptions{true, true});
        (void)d;
    } catch (const ImportError&) {
    }
    return 0;
}
