// ByteSource: a stream of input bytes, transparently decompressed (gzip, zstd, xz by magic bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace scorch {

class ByteSource {
public:
    virtual ~ByteSource() = default;
    /// Reads up to n bytes; returns 0 at the end. Throws ImportError on read or decompression errors.
    virtual std::size_t read(char* buffer, std::size_t n) = 0;
    /// Bytes consumed from the underlying file (compressed bytes for a compressed file): for progress.
    virtual uint64_t consumed() const = 0;
    /// Size of the underlying file, or 0 when unknown (a pipe).
    virtual uint64_t totalSize() const = 0;
    /// "gzip", "zstd", "xz" or empty.
    virtual std::string compression() const { return {}; }

    /// The whole input in memory, when that needs no copy: an uncompressed regular file is memory-mapped, a
    /// memory source is itself. `releasable` says that pages may be dropped once read (a file mapping).
    struct Mapping {
        std::string_view bytes;
        bool releasable = false;
    };
    virtual Mapping mapping() { return {}; }
    /// After mapping(): the offset from which the mapped bytes were lost because the file shrank meanwhile
    /// (they read as zeros then, instead of ending the process with SIGBUS), or nothing.
    virtual std::optional<uint64_t> mappingLostFrom() const { return std::nullopt; }
};

/// Runs `read`, which reads `source`'s mapping(). Where the mapping lost bytes meanwhile (the file shrank),
/// throws ImportError "NAME: the file shrank while it was read (...)" instead of returning, or instead of
/// what `read` threw (the zeros it read may have failed it); a cancellation (ImportCancelled) passes
/// unchanged.
void readMapping(const ByteSource& source, const std::string& name, const std::function<void()>& read);

/// Opens a file ("-" = standard input) and wraps it in a decompressor when its magic bytes say so.
/// Throws ImportError naming the file when it cannot be opened.
std::unique_ptr<ByteSource> openByteSource(const std::string& path);

/// A source over bytes in memory (tests, fuzzers); decompressed like a file.
std::unique_ptr<ByteSource> memoryByteSource(std::string bytes, const std::string& name = "<memory>");

} // namespace scorch
