#include "cli/command.h"

#include "scorch/safetext.h"

#include <cstdio>

namespace scorch::cli {

namespace {

bool listedBy(const Command& command, const Option& o) {
    for (const Option& own : command.options)
        if (own.key() == o.key())
            return true;
    return false;
}

} // namespace

std::vector<const Option*> commandOptions(const Command& command) {
    std::vector<const Option*> options;
    for (const Option& o : command.options)
        options.push_back(&o);
    options.push_back(&kHelpOption);
    if (command.readsProfiles)
        for (const OptionGroup& group : profileOptionGroups())
            for (const Option& o : group.options)
                if (!listedBy(command, o))
                    options.push_back(&o);
    return options;
}

std::string usage(const Command& command) {
    std::vector<const Option*> own;
    for (const Option& o : command.options)
        own.push_back(&o);
    own.push_back(&kHelpOption);
    std::string text = std::string(command.synopsis) + formatOptions(own, 3) + std::string(command.footer);
    if (!command.readsProfiles)
        return text;
    for (const OptionGroup& group : profileOptionGroups()) {
        std::vector<const Option*> rest;
        for (const Option& o : group.options)
            if (!listedBy(command, o) && !o.help.empty())
                rest.push_back(&o);
        if (rest.empty())
            continue;
        if (!group.title.empty())
            text.append(group.title).append("\n");
        text += formatOptions(rest, 2);
    }
    return text;
}

Option outputOption(std::string_view help) {
    return {.shortName = "-o", .longName = "--output", .value = "OUT", .help = help};
}

int usageError(const Command& command, const std::string& message) {
    std::fprintf(stderr, "scorch: %s\n%s", escapeText(message).c_str(), usage(command).c_str());
    return 2;
}

int fail(const std::string& message) {
    std::fflush(stdout);
    std::fprintf(stderr, "scorch: %s\n", escapeText(message).c_str());
    return 1;
}

} // namespace scorch::cli
