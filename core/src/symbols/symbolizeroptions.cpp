#include "symbols/symbolizeroptions.h"

namespace scorch {

SymbolizerOptions detail::symbolizerOptions(const ImportOptions& options, const ImportControl& control) {
    SymbolizerOptions s = options.symbolize ? SymbolizerOptions{} : SymbolizerOptions::offline();
    s.threads = options.threads;
    if (options.symbolize) {
        s.searchPaths = options.symbolSearchPaths;
        s.debugDirs.insert(s.debugDirs.end(), options.debugDirs.begin(), options.debugDirs.end());
        s.sysroot = options.sysroot;
        s.debuginfodUrls = options.debuginfodUrls;
        s.inflatedCopies = options.inflatedCopies;
        s.cancel = control.cancel;
        s.status = control.status;
    }
    return s;
}

} // namespace scorch
