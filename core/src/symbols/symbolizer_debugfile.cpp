// ElfSession's search for a module's separate debug file: by build-id in the debug directories (verified,
// through the inflated copies of compressed ones), on debuginfod servers, then libdwfl's own search by name
// (.gnu_debuglink), which is left out where it cannot find anything.
#include "symbols/debuginfod.h"
#include "symbols/elfinflate.h"
#include "symbols/symbolizer_internal.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace scorch::detail {

namespace {

bool fileExists(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

/// Calls f(entry) for each entry of a libdwfl debuginfo path (`:`-separated, as Dwfl_Callbacks'
/// debuginfo_path; empty ones too, as libdwfl splits it), each without its leading '+' or '-' (whether
/// libdwfl checks CRCs there).
template <typename F>
void forEachDebugPathEntry(std::string_view path, F&& f) {
    for (;;) {
        const std::size_t colon = path.find(':');
        std::string_view entry = path.substr(0, colon);
        if (!entry.empty() && (entry[0] == '+' || entry[0] == '-'))
            entry.remove_prefix(1);
        f(entry);
        if (colon == std::string_view::npos)
            return;
        path.remove_prefix(colon + 1);
    }
}

/// Whether a file exists that libdwfl's search by name (in dwfl_standard_find_debuginfo(), after its search
/// by build-id) could take for the debug file of `file`: the debuglink name (as given, and its last
/// component), else the file's name + ".debug", in the file's directory, in each relative entry of `path`
/// under that directory (there also the file's own name), and under each absolute entry followed by every
/// tail of the file's directory; each also in a ".dwz" directory beside; for the file's name and for its
/// canonical one. A superset of the names libdwfl tries (it also checks CRCs and build-ids and skips the file
/// itself): where none exists, its search by name finds nothing.
bool anyDebugFileByName(const std::string& file, const char* debuglink, std::string_view path) {
    const std::size_t slash = file.rfind('/');
    // ("" for the root directory: names below are joined with '/'; "." for a name without a directory)
    const std::string dir = slash == std::string::npos ? std::string(".") : file.substr(0, slash);
    const std::string base = slash == std::string::npos ? file : file.substr(slash + 1);
    std::vector<std::string> names; // what the module's own directory may hold
    if (debuglink && *debuglink) {
        names.emplace_back(debuglink);
        const char* last = std::strrchr(debuglink, '/');
        if (last && last[1])
            names.emplace_back(last + 1);
    } else {
        names.push_back(base + ".debug");
    }
    std::vector<std::string> elsewhere = names; // what other directories may hold
    elsewhere.push_back(base);
    const auto anyIn = [](const std::string& where, const std::vector<std::string>& files) {
        for (const std::string& f : files) {
            const std::size_t cut = f.rfind('/');
            const std::string name = cut == std::string::npos ? f : f.substr(cut + 1);
            if (fileExists(where + '/' + f) || fileExists(where + "/.dwz/" + name))
                return true;
        }
        return false;
    };
    for (const std::string& f : names) // as given (absolute, or from the working directory)
        if (fileExists(f))
            return true;
    if (!path.empty() && (path[0] == '+' || path[0] == '-')) // (the whole path's: CRCs checked or not)
        path.remove_prefix(1);
    bool found = false;
    forEachDebugPathEntry(path, [&](std::string_view entry) {
        if (found)
            return;
        if (entry.empty()) {
            found = anyIn(dir, names);
        } else if (entry[0] != '/') {
            found = anyIn(dir + '/' + std::string(entry), elsewhere);
        } else { // the entry alone and followed by each tail of the directory (/usr/bin, /bin)
            found = anyIn(std::string(entry), elsewhere) ||
                    (!dir.empty() && dir[0] != '/' && anyIn(std::string(entry) + '/' + dir, elsewhere));
            for (std::size_t at = dir.find('/'); !found && at != std::string::npos;
                 at = dir.find('/', at + 1))
                found = anyIn(std::string(entry) + dir.substr(at), elsewhere);
        }
    });
    return found;
}

} // namespace

/// The debug file of a module by its build-id (`<debug dir>/.build-id/xx/yyyy.debug`, build-id verified),
/// read from its inflated copy when its sections are compressed; then the debuginfod servers (through
/// m_remoteDebugInfo); otherwise libdwfl's own search (which also follows .gnu_debuglink). libdwfl's search
/// cannot be used for the first part: it keeps the file it opened for checking the build-id and reads that
/// one, not the descriptor it is given.
int ElfSession::findDebugInfo(Dwfl_Module* mod, void** userdata, const char* modname, Dwarf_Addr base,
                              const char* fileName, const char* debuglinkFile, GElf_Word debuglinkCrc,
                              char** debugInfoFileName) {
    auto* self = userdata ? static_cast<ElfSession*>(*userdata) : nullptr;
    // The dwz file that a debug file names in .gnu_debugaltlink (shared DWARF of several binaries) is asked
    // for with its name and no CRC: libdwfl's own search finds it by its build-id. The module's build-id,
    // which the search below uses, would give the debug file itself again (and its references into the dwz
    // file would then read the wrong file: inlined functions without names).
    const bool dwzSearch = debuglinkFile && debuglinkCrc == 0;
    const unsigned char* bits = nullptr;
    GElf_Addr vaddr = 0;
    const int n = self && self->m_inflated && !dwzSearch ? dwfl_module_build_id(mod, &bits, &vaddr) : 0;
    if (n > 2) {
        const std::string id = toHex(bits, static_cast<std::size_t>(n));
        int found = -1;
        forEachDebugPathEntry(self->m_debugPathText, [&](std::string_view dir) {
            if (found >= 0 || dir.empty() || dir[0] != '/')
                return; // relative entries name directories beside the module (.gnu_debuglink)
            const std::string path =
                std::string(dir) + "/.build-id/" + id.substr(0, 2) + '/' + id.substr(2) + ".debug";
            found = self->openVerifiedDebugFile(path, id, debugInfoFileName);
        });
        if (found >= 0)
            return found;
        // not in a debug directory: a debuginfod server (before libdwfl's .gnu_debuglink search, which
        // would ask the same servers itself, without progress or cancel)
        if (self->m_remoteDebugInfo) {
            const std::string path = self->m_remoteDebugInfo(id);
            if (const int fd = path.empty() ? -1 : self->openVerifiedDebugFile(path, id, debugInfoFileName);
                fd >= 0)
                return fd;
        }
        // libdwfl's search ends with a debuginfod query, for which it loads libdebuginfod and the 45 shared
        // objects that library needs (~10 ms of a core, elfutils 0.188) even when no server is set. With none
        // set, no debug file found by build-id above, and none of the files its search by name could take
        // there, the answer is known: none.
        const char* urls = std::getenv("DEBUGINFOD_URLS");
        if (!self->m_remoteDebugInfo && fileName && !anyDebuginfodServer(urls ? urls : "")) {
            const std::string file(fileName);
            char* canonical = ::realpath(fileName, nullptr);
            const std::string real = canonical ? canonical : "";
            std::free(canonical);
            if (!anyDebugFileByName(file, debuglinkFile, self->m_debugPathText) &&
                (real.empty() || real == file ||
                 !anyDebugFileByName(real, debuglinkFile, self->m_debugPathText)))
                return -1;
        }
    }
    return dwfl_standard_find_debuginfo(mod, userdata, modname, base, fileName, debuglinkFile, debuglinkCrc,
                                        debugInfoFileName);
}

int ElfSession::openVerifiedDebugFile(const std::string& path, const std::string& buildId,
                                      char** debugInfoFileName) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    const ElfFileInfo info = readElfFileInfo(path);
    if (!info.ok || info.buildId != buildId) {
        ::close(fd);
        return -1;
    }
    const int copy = m_inflated->open(path, fd, m_threads);
    if (copy >= 0)
        ::close(fd);
    if (debugInfoFileName) {
        std::free(*debugInfoFileName);
        *debugInfoFileName = ::strdup(path.c_str());
    }
    return copy >= 0 ? copy : fd;
}

} // namespace scorch::detail
