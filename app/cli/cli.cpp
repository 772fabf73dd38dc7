#include "cli/cli.h"
#include "cli/command.h"
#include "cli/hugepagemalloc.h"

#include "scorch/fileoutput.h"
#include "scorch/safetext.h"

#include <array>
#include <cstdio>
#include <fcntl.h>
#include <iostream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#ifndef SCORCH_VERSION
#define SCORCH_VERSION "0.0.0"
#endif

namespace scorch::cli {

namespace {

/// The command table: every headless command, in the order `scorch --help` lists them.
const std::array<const Command*, 10>& commands() {
    static const std::array<const Command*, 10> table = {
        &collapseCommand(), &infoCommand(), &diffCommand(),    &convertCommand(), &svgCommand(),
        &recordCommand(),   &topCommand(),  &callersCommand(), &calleesCommand(), &annotateCommand()};
    return table;
}

const Command* findCommand(std::string_view name) {
    for (const Command* c : commands())
        if (c->name == name)
            return c;
    return nullptr;
}

std::string mainUsage() {
    std::string text = "Usage: scorch [FILE...]                 open profiles in the GUI\n"
                       "       scorch --diff [--normalize] [--strip-hex] BEFORE AFTER\n"
                       "                                        compare two profiles in the GUI\n"
                       "       scorch COMMAND [OPTIONS] FILE    run a headless command\n"
                       "\n"
                       "Commands:\n";
    std::size_t width = 0;
    for (const Command* c : commands())
        width = std::max(width, c->name.size());
    for (const Command* c : commands()) {
        std::string line = "  " + std::string(c->name);
        line.resize(2 + width + 3, ' ');
        text += line + std::string(c->summary) + "\n";
    }
    text += "\n"
            "FILE may be perf.data, perf script text, folded stacks, speedscope JSON, Chrome .cpuprofile or "
            "trace\n"
            "JSON, pprof, d3-flame-graph JSON or a Scorch recording, optionally gzip/zstd/xz-compressed; "
            "\"-\" reads\n"
            "standard input. Run `scorch COMMAND --help` for a command's options.\n";
    return text;
}

int runCommand(const Command& command, int argc, char** argv) {
    const std::vector<std::string_view> arguments(argv + 2, argv + argc);
    Args args;
    const std::string error = parseOptions(commandOptions(command), arguments, command.operands,
                                           std::string(command.name) + ": ", args);
    if (!error.empty())
        return usageError(command, error);
    if (args.help) {
        std::fputs(usage(command).c_str(), stdout);
        return 0;
    }
    return command.run(command, args);
}

/// Large outputs (folded stacks, exports) leave in 1 MiB writes. When standard output is a pipe, it is grown
/// to hold one (the default holds 64 KiB): the writer then blocks, and the reader wakes, once per write
/// instead of sixteen times. Where the system refuses (fs.pipe-max-size), the pipe stays as it is.
void growStandardOutputPipe() {
    struct stat st {};
    if (fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode))
        (void)fcntl(STDOUT_FILENO, F_SETPIPE_SZ, 1 << 20);
}

/// Runs `command` with standard output written through a FileOutputBuffer when it is a regular file (its
/// blocks reserved ahead on ext4, large writes without a copy); pipes and terminals keep the stream's own
/// buffer, which flushes as before. A failed write the command did not report fails the command.
int runWithStandardOutput(const Command& command, int argc, char** argv) {
    struct stat st {};
    if (fstat(STDOUT_FILENO, &st) != 0 || !S_ISREG(st.st_mode))
        return runCommand(command, argc, argv);
    std::cout.flush();
    FileOutputBuffer buffer(STDOUT_FILENO);
    std::streambuf* const previous = std::cout.rdbuf(&buffer);
    struct Restore {
        std::streambuf* previous;
        ~Restore() { std::cout.rdbuf(previous); } // also when the command throws, before the buffer goes
    } restore{previous};
    const int status = runCommand(command, argc, argv);
    std::cout.flush();
    const bool written = buffer.finish();
    if (status == 0 && !written)
        return standardOutputFailed(buffer.error());
    return status;
}

} // namespace

bool isHeadlessCommand(int argc, char** argv) {
    if (argc < 2)
        return false;
    const std::string_view a = argv[1];
    return findCommand(a) || a == "help" || a == "--help" || a == "-h" || a == "--version";
}

int run(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    growStandardOutputPipe();
    const std::string_view name = argv[1];
    if (name == "--version") {
        std::printf("scorch %s\n%s\n%s\n", SCORCH_VERSION, hugePageMallocStatus().c_str(),
                    mallocMapThresholdStatus().c_str());
        return 0;
    }
    if (name == "help" || name == "--help" || name == "-h") {
        std::fputs(mainUsage().c_str(), stdout);
        return 0;
    }
    if (const Command* command = findCommand(name))
        return runWithStandardOutput(*command, argc, argv);
    std::fprintf(stderr, "scorch: unknown command %s\n%s", escapeText(name).c_str(), mainUsage().c_str());
    return 2;
}

} // namespace scorch::cli
