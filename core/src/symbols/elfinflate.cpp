// Uncompressed copies of ELF files with compressed sections: see elfinflate.h.
#include "symbols/elfinflate.h"

#include "util/atomicfile.h"
#include "util/textutil.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

namespace scorch::detail {

namespace {

#ifndef ELFCOMPRESS_ZSTD
constexpr uint32_t ELFCOMPRESS_ZSTD = 2; // glibc's elf.h has it from 2.37 on
#endif
constexpr uint64_t kMaxSection = uint64_t(1) << 32; // a debug section beyond 4 GiB is not plausible

/// A read-only mapping of a whole file.
struct Mapped {
    const unsigned char* data = nullptr;
    std::size_t size = 0;
    ~Mapped() {
        if (data)
            ::munmap(const_cast<unsigned char*>(data), size);
    }
};

/// Sections whose contents symbolization never reads (variable locations, macros).
bool unused(std::string_view name) {
    return name == ".debug_loclists" || name == ".debug_loc" || name == ".debug_macro" ||
           name == ".debug_macinfo" || name == ".zdebug_loc";
}

struct Piece {
    uint64_t from, size;      ///< in the input (for compressed sections: the data after the header)
    uint64_t to, outSize;     ///< in the output
    uint32_t compression = 0; ///< 0 = copy, ELFCOMPRESS_ZLIB, ELFCOMPRESS_ZSTD
};

bool inflate(const Piece& p, const unsigned char* in, unsigned char* out, libdeflate_decompressor* d) {
    if (p.compression == 0) {
        std::memcpy(out + p.to, in + p.from, p.size);
        return true;
    }
    if (p.compression == ELFCOMPRESS_ZLIB) {
        std::size_t got = 0;
        return libdeflate_zlib_decompress(d, in + p.from, p.size, out + p.to, p.outSize, &got) ==
                   LIBDEFLATE_SUCCESS &&
               got == p.outSize;
    }
    const std::size_t got = ZSTD_decompress(out + p.to, p.outSize, in + p.from, p.size);
    return !ZSTD_isError(got) && got == p.outSize;
}

} // namespace

int inflatedElfCopy(int fd, const std::string& name, unsigned threads) {
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < static_cast<off_t>(sizeof(Elf64_Ehdr)))
        return -1;
    Mapped file;
    file.size = static_cast<std::size_t>(st.st_size);
    void* m = ::mmap(nullptr, file.size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED)
        return -1;
    file.data = static_cast<const unsigned char*>(m);
    const unsigned char* in = file.data;

    Elf64_Ehdr eh;
    std::memcpy(&eh, in, sizeof eh);
    if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff == 0 ||
        eh.e_shoff > file.size || (eh.e_phnum && eh.e_phentsize != sizeof(Elf64_Phdr)))
        return -1;
    Elf64_Shdr first;
    if (file.size - eh.e_shoff < sizeof first)
        return -1;
    std::memcpy(&first, in + eh.e_shoff, sizeof first);
    const uint64_t shnum = eh.e_shnum ? eh.e_shnum : first.sh_size; // many sections: the count is in [0]
    const uint64_t shstrndx = eh.e_shstrndx == SHN_XINDEX ? first.sh_link : eh.e_shstrndx;
    if (shnum == 0 || shnum > (file.size - eh.e_shoff) / sizeof(Elf64_Shdr) || shstrndx >= shnum)
        return -1;
    const uint64_t phSize = uint64_t(eh.e_phnum) * sizeof(Elf64_Phdr);
    if (eh.e_phnum && (eh.e_phoff > file.size || phSize > file.size - eh.e_phoff))
        return -1;
    std::vector<Elf64_Shdr> sh(shnum);
    std::memcpy(sh.data(), in + eh.e_shoff, shnum * sizeof(Elf64_Shdr));
    const Elf64_Shdr& names = sh[shstrndx];
    if (names.sh_type == SHT_NOBITS || names.sh_offset > file.size ||
        names.sh_size > file.size - names.sh_offset)
        return -1;
    auto nameOf = [&](const Elf64_Shdr& s) {
        if (s.sh_name >= names.sh_size)
            return std::string_view();
        const char* p = reinterpret_cast<const char*>(in + names.sh_offset + s.sh_name);
        return std::string_view(p, strnlen(p, names.sh_size - s.sh_name));
    };

    // the new layout: header, program headers, sections in their order, section headers
    std::vector<Piece> pieces;
    bool compressed = false;
    uint64_t pos = sizeof(Elf64_Ehdr) + phSize;
    for (uint64_t i = 1; i < shnum; ++i) {
        Elf64_Shdr& s = sh[i];
        if (s.sh_type == SHT_NOBITS || s.sh_size == 0) {
            s.sh_offset = pos;
            continue;
        }
        if (s.sh_offset > file.size || s.sh_size > file.size - s.sh_offset)
            return -1;
        Piece p{s.sh_offset, s.sh_size, 0, s.sh_size, 0};
        if (s.sh_flags & SHF_COMPRESSED) {
            Elf64_Chdr ch;
            if (s.sh_size < sizeof ch)
                return -1;
            std::memcpy(&ch, in + s.sh_offset, sizeof ch);
            if ((ch.ch_type != ELFCOMPRESS_ZLIB && ch.ch_type != ELFCOMPRESS_ZSTD) ||
                ch.ch_size > kMaxSection)
                return -1;
            compressed = true;
            s.sh_flags &= ~static_cast<uint64_t>(SHF_COMPRESSED);
            if (unused(nameOf(s))) {
                s.sh_type = SHT_NOBITS;
                s.sh_size = 0;
                s.sh_offset = pos;
                continue;
            }
            p = {s.sh_offset + sizeof ch, s.sh_size - sizeof ch, 0, ch.ch_size, ch.ch_type};
            s.sh_size = ch.ch_size;
            s.sh_addralign = std::max<uint64_t>(1, ch.ch_addralign);
        }
        const uint64_t a = std::max<uint64_t>(1, s.sh_addralign);
        pos = (pos + a - 1) / a * a;
        s.sh_offset = pos;
        p.to = pos;
        pos += p.outSize;
        pieces.push_back(p);
    }
    if (!compressed)
        return -1;
    const uint64_t shoff = (pos + 7) & ~uint64_t(7);
    const uint64_t total = shoff + shnum * sizeof(Elf64_Shdr);

    const int out = ::memfd_create(name.c_str(), MFD_CLOEXEC);
    if (out < 0)
        return -1;
    void* w = MAP_FAILED;
    if (::ftruncate(out, static_cast<off_t>(total)) == 0)
        w = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, out, 0);
    if (w == MAP_FAILED) {
        ::close(out);
        return -1;
    }
    auto* dst = static_cast<unsigned char*>(w);
    Elf64_Ehdr header = eh;
    header.e_phoff = eh.e_phnum ? sizeof(Elf64_Ehdr) : 0;
    header.e_shoff = shoff;
    std::memcpy(dst, &header, sizeof header);
    if (eh.e_phnum)
        std::memcpy(dst + sizeof header, in + eh.e_phoff, phSize);
    std::memcpy(dst + shoff, sh.data(), shnum * sizeof(Elf64_Shdr));

    // biggest first, one worker per thread, each with its own decompressor
    std::sort(pieces.begin(), pieces.end(),
              [](const Piece& a, const Piece& b) { return a.outSize > b.outSize; });
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    auto work = [&] {
        libdeflate_decompressor* d = libdeflate_alloc_decompressor();
        if (!d) {
            failed = true;
            return;
        }
        for (std::size_t k; !failed && (k = next.fetch_add(1)) < pieces.size();)
            if (!inflate(pieces[k], in, dst, d))
                failed = true;
        libdeflate_free_decompressor(d);
    };
    const std::size_t big = static_cast<std::size_t>(
        std::count_if(pieces.begin(), pieces.end(), [](const Piece& p) { return p.outSize >= (1u << 20); }));
    const std::size_t workers = std::clamp<std::size_t>(std::min<std::size_t>(threads, big), 1, 8);
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < workers; ++t)
        pool.emplace_back(work);
    work();
    for (std::thread& t : pool)
        t.join();
    ::munmap(w, total);
    if (failed) {
        ::close(out);
        return -1;
    }
    return out;
}

InflatedElfCache::~InflatedElfCache() {
    for (const auto& [key, fd] : m_files)
        if (fd >= 0)
            ::close(fd);
}

void InflatedElfCache::keepIn(std::string dir, uint64_t bytes) {
    std::lock_guard lock(m_mutex);
    while (dir.size() > 1 && dir.back() == '/')
        dir.pop_back();
    m_keepDir = std::move(dir);
    m_keepBytes = bytes;
}

int InflatedElfCache::open(const std::string& path, int fd, unsigned threads) {
    struct stat st;
    if (::fstat(fd, &st) != 0)
        return -1;
    // the same path may be another file later (rebuilt): key by device, inode, size and modification time
    // too, which also name the kept copy
    const std::string identity = std::to_string(st.st_dev) + '-' + std::to_string(st.st_ino) + '-' +
                                 std::to_string(st.st_size) + '-' + std::to_string(st.st_mtim.tv_sec) + '.' +
                                 std::to_string(st.st_mtim.tv_nsec);
    const std::string key = path + '\0' + identity;
    std::unique_lock lock(m_mutex);
    auto it = m_files.find(key);
    if (it != m_files.end())
        return it->second >= 0 ? ::fcntl(it->second, F_DUPFD_CLOEXEC, 0) : -1;
    const std::string kept = keptName(path, identity);
    int copy = kept.empty() ? -1 : openKept(kept);
    const bool inflated = copy < 0;
    if (inflated)
        copy = inflatedElfCopy(fd, "scorch-inflated:" + std::string(baseName(path)), threads);
    m_files.emplace(key, copy);
    const int out = copy >= 0 ? ::fcntl(copy, F_DUPFD_CLOEXEC, 0) : -1;
    if (inflated && out >= 0 && !kept.empty()) {
        lock.unlock(); // (writing and syncing the copy: other files go on meanwhile)
        keep(kept, out);
    }
    return out;
}

namespace {

/// The prefix of kept copies: a new layout of the copies (other sections left out) gets a new version.
constexpr std::string_view kKeptPrefix = "v1-";

/// `dir` and its missing parents made (mode 0700: copies of debug info are nobody else's business).
bool makeDirectories(const std::string& dir) {
    if (dir.empty())
        return false;
    for (std::size_t at = 1;; ++at) {
        at = dir.find('/', at);
        const std::string part = dir.substr(0, at);
        if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST)
            return false;
        if (at == std::string::npos)
            break;
    }
    struct stat st;
    return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

} // namespace

std::string InflatedElfCache::keptName(const std::string& path, const std::string& identity) const {
    if (m_keepDir.empty())
        return {};
    std::string base(baseName(path).substr(0, 96));
    for (char& c : base)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '_' || c == '+' || c == '-'))
            c = '_';
    return m_keepDir + '/' + std::string(kKeptPrefix) + base + '-' + identity;
}

/// The kept copy `name`, or -1 when there is none; one that is not an ELF file with its section headers
/// inside is removed. Its modification time becomes now (the least recently used copies go first).
int InflatedElfCache::openKept(const std::string& name) const {
    const int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    struct stat st;
    Elf64_Ehdr eh;
    const bool ok =
        ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= static_cast<off_t>(sizeof eh) &&
        ::pread(fd, &eh, sizeof eh, 0) == static_cast<ssize_t>(sizeof eh) &&
        std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_shentsize == sizeof(Elf64_Shdr) &&
        eh.e_shoff <= static_cast<uint64_t>(st.st_size) &&
        uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr) <= static_cast<uint64_t>(st.st_size) - eh.e_shoff;
    if (!ok) {
        ::close(fd);
        ::unlink(name.c_str());
        return -1;
    }
    ::futimens(fd, nullptr);
    return fd;
}

/// Writes the copy open at `copy` to `name` (atomically and durably; nothing when that fails), then removes
/// the least recently used copies above the size limit.
void InflatedElfCache::keep(const std::string& name, int copy) const {
    struct stat st;
    if (!makeDirectories(m_keepDir) || ::fstat(copy, &st) != 0 || st.st_size <= 0)
        return;
    const auto size = static_cast<std::size_t>(st.st_size);
    void* m = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, copy, 0);
    if (m == MAP_FAILED)
        return;
    try {
        AtomicFile file(name);
        file.stream().write(static_cast<const char*>(m), static_cast<std::streamsize>(size));
        file.commit();
    } catch (const std::exception&) { // a full disk or a read-only cache: this run's copy is in memory
    }
    ::munmap(m, size);
    prune();
}

void InflatedElfCache::prune() const {
    DIR* dir = ::opendir(m_keepDir.c_str());
    if (!dir)
        return;
    std::vector<std::tuple<timespec, uint64_t, std::string>> copies; // modified, size, name
    uint64_t total = 0;
    while (const dirent* e = ::readdir(dir)) {
        const std::string_view entry = e->d_name;
        struct stat st;
        if (!entry.starts_with(kKeptPrefix.substr(0, 1)) ||
            ::fstatat(::dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        copies.emplace_back(st.st_mtim, static_cast<uint64_t>(st.st_size), std::string(entry));
        total += static_cast<uint64_t>(st.st_size);
    }
    ::closedir(dir);
    if (total <= m_keepBytes)
        return;
    std::sort(copies.begin(), copies.end(), [](const auto& a, const auto& b) {
        const timespec &x = std::get<0>(a), &y = std::get<0>(b);
        return std::tie(x.tv_sec, x.tv_nsec) < std::tie(y.tv_sec, y.tv_nsec);
    });
    for (const auto& [modified, size, entry] : copies) {
        if (total <= m_keepBytes)
            break;
        if (::unlink((m_keepDir + '/' + entry).c_str()) == 0)
            total -= size;
    }
}

} // namespace scorch::detail
