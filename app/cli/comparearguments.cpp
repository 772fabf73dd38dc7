#include "cli/comparearguments.h"

namespace scorch::cli {

const char* const kCompareUsage =
    "Usage: scorch --diff [--normalize] [--strip-hex] BEFORE AFTER [FILE...]\n"
    "Opens a comparison of two profiles (any formats) in the window; further files open in tabs.\n"
    "For the differential folded stacks on standard output: scorch diff BEFORE AFTER\n";

const std::vector<Option>& comparisonOptions() {
    static const std::vector<Option> options = {
        {.shortName = "-n",
         .longName = "--normalize",
         .help = "scale BEFORE's counts so that its total equals AFTER's"},
        {.shortName = "-s",
         .longName = "--strip-hex",
         .help = "rewrite hexadecimal literals 0x1234 in names as 0x... before matching"},
    };
    return options;
}

DiffOptions comparisonOptionsFrom(const Args& args) {
    DiffOptions options;
    options.normalize = args.has("--normalize");
    options.stripHex = args.has("--strip-hex");
    return options;
}

bool parseCompareArguments(std::span<const std::string_view> args, CompareArguments& out) {
    std::vector<const Option*> options;
    for (const Option& o : comparisonOptions())
        options.push_back(&o);
    Args parsed;
    if (!parseOptions(options, args, {.operandsEndOptions = true}, {}, parsed).empty() ||
        parsed.operands.size() < 2)
        return false;
    out.options = comparisonOptionsFrom(parsed);
    out.before = parsed.operands[0];
    out.after = parsed.operands[1];
    out.files.assign(parsed.operands.begin() + 2, parsed.operands.end());
    return true;
}

} // namespace scorch::cli
