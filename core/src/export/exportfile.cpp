// Atomic export: write into a temporary file beside the target, then rename it into place.
#include "scorch/export.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace scorch {

namespace {

std::string directoryOf(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    if (slash == std::string::npos)
        return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

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

    std::string temp = directoryOf(target) + "/." + target.substr(target.rfind('/') + 1) + ".XXXXXX";
    const int fd = mkstemp(temp.data());
    if (fd < 0)
        throw ExportError(target + ": cannot create a temporary file in " + directoryOf(target) + ": " +
                          std::strerror(errno));
    const mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    close(fd);
    try {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        if (!out)
            throw ExportError(target + ": cannot write " + temp);
        write(out);
        out.flush();
        if (!out)
            throw ExportError(target + ": write error (disk full?)");
        out.close();
        if (!out)
            throw ExportError(target + ": write error (disk full?)");
        if (std::rename(temp.c_str(), target.c_str()) != 0)
            throw ExportError(target +
                              ": cannot rename the temporary file into place: " + std::strerror(errno));
    } catch (const ExportError&) {
        std::remove(temp.c_str());
        throw;
    } catch (const std::exception& e) {
        std::remove(temp.c_str());
        throw ExportError(target + ": " + e.what());
    }
}

} // namespace scorch
