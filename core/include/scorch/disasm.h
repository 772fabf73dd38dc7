// Annotated disassembly: a function's machine instructions with the self cost of the samples that ended at
// each one (Profile::addressCosts), for every cost type, and the source line and inlined function of each
// instruction. The bytes come from the module file the symbolizer read when the profile was built (its
// build-id verified), are decoded with capstone (x86-64 and AArch64) and the lines come from libdw. No Qt.
#pragma once

#include "scorch/profile.h"
#include "scorch/sourcelocator.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace scorch {

struct AnnotatedInstruction {
    uint64_t address = 0; ///< ELF virtual address (as objdump and perf annotate show it)
    uint64_t offset = 0;  ///< file offset in the module
    std::string mnemonic;
    std::string operands;
    std::vector<int64_t> self; ///< [costType]: samples that ended at this instruction
    std::string file;          ///< source file of the line; empty when unknown
    uint32_t line = 0;         ///< source line; 0 when unknown
    std::string inlined;       ///< the innermost inlined function here; empty in the function's own code
    std::string sourceText;    ///< the text of `line` (addSourceText()); untrusted: escape it to show it
    std::optional<uint64_t> jumpTarget; ///< a direct jump's or call's target address
};

struct Annotation {
    std::string function;        ///< the symbol's (demangled) name
    std::string module;          ///< the ELF file read
    uint64_t start = 0, end = 0; ///< the symbol's address range [start, end)
    std::vector<AnnotatedInstruction> instructions;
    std::vector<int64_t> total;   ///< [costType]: sum of the instructions' self costs
    std::vector<int64_t> outside; ///< [costType]: the function's address costs outside [start, end)
    std::size_t
    hottest(std::size_t costType) const; ///< index of the costliest instruction (the first of equals)
};

/// The annotation cannot be made: no instruction costs for the function, its module unreadable, no symbol,
/// an unsupported architecture. what() names the function or the file and the reason.
class DisasmError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// True when annotate() has instruction costs for `function` (perf.data and Scorch recordings keep them).
bool hasAddressCosts(const Profile& profile, FrameId function);

/// Disassembles `function` (the module holding most of its sampled instructions) with its costs. Throws
/// DisasmError.
Annotation annotate(const Profile& profile, FrameId function);

/// Gives an annotation of `function` the costs of another profile of the same recording (a time range or
/// thread subset: the same frames and modules), without disassembling again. False, the annotation unchanged,
/// when the profile has no instruction costs for the function or they are mostly in another module (then
/// annotate() it anew).
bool recost(Annotation& annotation, const Profile& profile, FrameId function);

/// Fills the instructions' sourceText from their source files, found as the source view finds them
/// (locateSource with `config`); files that are not found, not readable or over 64 MiB leave it empty.
void addSourceText(Annotation& annotation, const SourceLocatorConfig& config);

} // namespace scorch
