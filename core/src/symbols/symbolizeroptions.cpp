#include "symbols/symbolizeroptions.h"

namespace scorch {

SymbolizerOptions detail::symbolizerOptions(const ImportOptions& options) {
    SymbolizerOptions s = options.symbolize ? SymbolizerOptions{} : SymbolizerOptions::offline();
    s.threads = options.threads;
    if (options.symbolize) {
        s.searchPaths = options.symbolSearchPaths;
        s.debugDirs.insert(s.debugDirs.end(), options.debugDirs.begin(), options.debugDirs.end());
        s.sysroot = options.sysroot;
    }
    return s;
}

} // namespace scorch
