// The scorch executable: headless subcommands run without Qt; anything else opens the GUI, which lives in a
// module loaded on demand (see guimain.cpp), so `scorch collapse` starts without loading Qt (8 ms, 14 ms with
// the re-execution of hugepagemalloc.h, on a 2 vCPU VM).
#include "cli/cli.h"
#include "cli/comparearguments.h"
#include "cli/hugepagemalloc.h"
#include "cli/ownexecutable.h"

#include <cstdio>
#include <dlfcn.h>
#include <optional>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

#ifndef SCORCH_GUI_MODULE_DIR_FROM_BIN
#define SCORCH_GUI_MODULE_DIR_FROM_BIN "../lib/scorch"
#endif

namespace {

std::string executableDir() {
    const std::optional<std::string> self = scorch::cli::ownExecutable();
    return self ? self->substr(0, self->rfind('/')) : std::string(".");
}

int runGui(int argc, char** argv) {
    const std::string dir = executableDir();
    // next to the executable in a build tree, under lib/scorch when installed
    const std::string candidates[] = {dir + "/libscorch_gui.so",
                                      dir + "/" SCORCH_GUI_MODULE_DIR_FROM_BIN "/libscorch_gui.so"};
    std::string errors;
    for (const std::string& path : candidates) {
        if (access(path.c_str(), R_OK) != 0)
            continue;
        void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!module) {
            errors += std::string("; ") + dlerror();
            continue;
        }
        using GuiMain = int (*)(int, char**);
        if (auto guiMain = reinterpret_cast<GuiMain>(dlsym(module, "scorch_gui_main")))
            return guiMain(argc, argv);
        errors += "; " + path + ": no scorch_gui_main";
    }
    std::fprintf(stderr,
                 "scorch: cannot load the GUI module libscorch_gui.so (looked next to %s and in %s)%s\n",
                 dir.c_str(), SCORCH_GUI_MODULE_DIR_FROM_BIN, errors.c_str());
    return 1;
}

} // namespace

int main(int argc, char** argv) {
    scorch::cli::enableHugePageMalloc(argv); // may re-execute the program once, before anything is done
    scorch::cli::fixMallocMapThreshold();
    if (scorch::cli::isHeadlessCommand(argc, argv))
        return scorch::cli::run(argc, argv);
    if (argc >= 2 && std::string_view(argv[1]) == "--diff") {
        const std::vector<std::string_view> args(argv + 2, argv + argc);
        scorch::cli::CompareArguments compare;
        if (!scorch::cli::parseCompareArguments(args, compare)) {
            std::fputs(scorch::cli::kCompareUsage, stderr);
            return 2;
        }
    }
    return runGui(argc, argv);
}
