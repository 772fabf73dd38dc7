// Atomic export: the writers' output through AtomicFile (util/atomicfile.h), never over the input file.
#include "scorch/export.h"

#include "util/atomicfile.h"

#include <sys/stat.h>

namespace scorch {

namespace {

bool sameFile(const std::string& a, const std::string& b) {
    if (a == b)
        return true;
    struct stat sa {
    }, sb{};
    if (stat(a.c_str(), &sa) != 0 || stat(b.c_str(), &sb) != 0)
        return false;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

} // namespace

void writeFileAtomically(const std::string& target, const std::string& input,
                         const std::function<void(std::ostream&)>& write) {
    if (target.empty())
        throw ExportError("no output file name given");
    if (target == "-")
        throw ExportError("internal error: standard output is not written atomically");
    if (!input.empty() && input != "-" && sameFile(target, input))
        throw ExportError(target + ": is the input file; choose another output file name");
    struct stat st {};
    if (stat(target.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        throw ExportError(target + ": is a directory");
    try {
        AtomicFile file(target); // unnamed temporary where possible, removed on a signal, fsynced
        try {
            write(file.stream());
        } catch (const ExportError& e) {
            // the writers say only that the stream failed; the file knows why
            throw ExportError(file.error() ? file.writeErrorMessage() : target + ": " + e.what());
        }
        file.commit();
    } catch (const AtomicFileError& e) {
        throw ExportError(e.what());
    } catch (const ExportError&) {
        throw;
    } catch (const std::exception& e) {
        throw ExportError(target + ": " + e.what());
    }
}

} // namespace scorch
