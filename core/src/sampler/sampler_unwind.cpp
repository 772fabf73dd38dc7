#include "sampler/sampler_unwind.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <libunwind-ptrace.h>
#include <libunwind.h>
#include <string>
#include <sys/uio.h>
#include <unordered_map>

namespace scorch::detail {

namespace {

constexpr uint64_t kPage = 4096;

// libunwind-ptrace's find_proc_info calls back into the accessors with its own handle as the argument, so
// the accessors find the unwinder through this instead (set for the duration of one unwind).
thread_local RemoteUnwinder::Impl* tCurrent = nullptr;

} // namespace

struct RemoteUnwinder::Impl {
    pid_t pid;
    unsigned maxDepth;
    unw_addr_space_t as = nullptr;
    void* processUpt = nullptr;                                // for find_proc_info in copy mode
    std::unordered_map<pid_t, void*> threadUpts;               // ptrace mode
    std::vector<std::pair<uint64_t, uint64_t>> constantRanges; // file-backed mappings, [vdso]: cached
    std::unordered_map<uint64_t, std::array<uint8_t, kPage>> constantPages;
    std::unordered_map<uint64_t, std::array<uint8_t, kPage>> volatilePages; // cleared per unwind
    bool mapsDirty = true;

    // The sample being unwound.
    void* upt = nullptr; // UPT handle for the accessors that libunwind-ptrace provides
    const uint64_t* regs = nullptr;
    const uint8_t* stack = nullptr;
    uint64_t stackStart = 0, stackEnd = 0;

    void readMaps() {
        constantRanges.clear();
        std::ifstream in("/proc/" + std::to_string(pid) + "/maps");
        std::string line;
        while (std::getline(in, line)) {
            unsigned long long start = 0, end = 0;
            char perms[8] = {};
            int pathPos = -1;
            if (std::sscanf(line.c_str(), "%llx-%llx %7s %*s %*s %*s %n", &start, &end, perms, &pathPos) < 3)
                continue;
            // File-backed mappings, writable ones included: unwinding reads personality pointers from the
            // GOT.
            if (perms[0] != 'r' || pathPos < 0 || static_cast<std::size_t>(pathPos) >= line.size())
                continue;
            const char c = line[static_cast<std::size_t>(pathPos)];
            if (c == '/' || line.compare(static_cast<std::size_t>(pathPos), 6, "[vdso]") == 0)
                constantRanges.emplace_back(start, end);
        }
        std::sort(constantRanges.begin(), constantRanges.end());
        mapsDirty = false;
    }

    bool isConstant(uint64_t addr) const {
        auto it =
            std::upper_bound(constantRanges.begin(), constantRanges.end(), std::make_pair(addr, UINT64_MAX));
        return it != constantRanges.begin() && addr < std::prev(it)->second;
    }

    const uint8_t* page(uint64_t pageAddr, bool constant) {
        auto& cache = constant ? constantPages : volatilePages;
        auto it = cache.find(pageAddr);
        if (it != cache.end())
            return it->second.data();
        std::array<uint8_t, kPage> buf;
        iovec local{buf.data(), kPage};
        iovec remote{reinterpret_cast<void*>(pageAddr), kPage};
        if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != static_cast<ssize_t>(kPage))
            return nullptr;
        if (constant && cache.size() > 4096)
            cache.clear();
        return cache.emplace(pageAddr, buf).first->second.data();
    }

    bool readByte(uint64_t addr, uint8_t& out) {
        if (stack && addr >= stackStart && addr < stackEnd) {
            out = stack[addr - stackStart];
            return true;
        }
        const bool constant = isConstant(addr);
        if (stack && !constant)
            return false; // perf sample: the live stack has moved on since the sample
        const uint8_t* p = page(addr & ~(kPage - 1), constant);
        if (!p)
            return false;
        out = p[addr & (kPage - 1)];
        return true;
    }

    bool readWord(uint64_t addr, uint64_t& out) {
        if (stack && addr >= stackStart && addr + 8 <= stackEnd) {
            std::memcpy(&out, stack + (addr - stackStart), 8);
            return true;
        }
        if ((addr & (kPage - 1)) <= kPage - 8 && !(stack && addr >= stackStart && addr < stackEnd)) {
            const bool constant = isConstant(addr);
            if (stack && !constant)
                return false;
            const uint8_t* p = page(addr & ~(kPage - 1), constant);
            if (!p)
                return false;
            std::memcpy(&out, p + (addr & (kPage - 1)), 8);
            return true;
        }
        uint8_t bytes[8];
        for (int i = 0; i < 8; ++i)
            if (!readByte(addr + static_cast<uint64_t>(i), bytes[i]))
                return false;
        std::memcpy(&out, bytes, 8);
        return true;
    }

    std::size_t unwind(void* handle, uint64_t* out) {
        if (mapsDirty)
            readMaps();
        volatilePages.clear();
        upt = handle;
        tCurrent = this;
        unw_cursor_t cursor;
        if (unw_init_remote(&cursor, as, upt) < 0) {
            tCurrent = nullptr;
            return 0;
        }
        std::size_t n = 0;
        unw_word_t prevIp = 0, prevSp = 0;
        do {
            unw_word_t ip = 0, sp = 0;
            if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0)
                break;
            unw_get_reg(&cursor, UNW_REG_SP, &sp);
            if (n > 0 && ip == prevIp && sp == prevSp)
                break;
            out[n++] = ip;
            prevIp = ip;
            prevSp = sp;
        } while (n < maxDepth && unw_step(&cursor) > 0);
        upt = nullptr;
        tCurrent = nullptr;
        return n;
    }
};

namespace {

using Impl = RemoteUnwinder::Impl;

int findProcInfo(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t* pi, int needInfo, void* arg) {
    return _UPT_find_proc_info(as, ip, pi, needInfo, arg);
}

void putUnwindInfo(unw_addr_space_t as, unw_proc_info_t* pi, void* arg) {
    _UPT_put_unwind_info(as, pi, arg);
}

int getDynInfoListAddr(unw_addr_space_t, unw_word_t*, void*) {
    return -UNW_ENOINFO;
}

int accessMem(unw_addr_space_t, unw_word_t addr, unw_word_t* val, int write, void*) {
    if (write || !tCurrent)
        return -UNW_EINVAL;
    uint64_t v = 0;
    if (!tCurrent->readWord(addr, v))
        return -UNW_EINVAL;
    *val = v;
    return 0;
}

int perfRegIndex(unw_regnum_t reg) {
    switch (reg) {
    case UNW_X86_64_RAX:
        return 0;
    case UNW_X86_64_RBX:
        return 1;
    case UNW_X86_64_RCX:
        return 2;
    case UNW_X86_64_RDX:
        return 3;
    case UNW_X86_64_RSI:
        return 4;
    case UNW_X86_64_RDI:
        return 5;
    case UNW_X86_64_RBP:
        return 6;
    case UNW_X86_64_RSP:
        return 7;
    case UNW_X86_64_RIP:
        return 8;
    default:
        if (reg >= UNW_X86_64_R8 && reg <= UNW_X86_64_R15)
            return 9 + (reg - UNW_X86_64_R8);
        return -1;
    }
}

int accessReg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t* val, int write, void* arg) {
    Impl* d = tCurrent;
    if (!d)
        return -UNW_EINVAL;
    if (!d->regs)
        return _UPT_access_reg(as, reg, val, write, arg);
    if (write)
        return -UNW_EREADONLYREG;
    const int i = perfRegIndex(reg);
    if (i < 0)
        return -UNW_EBADREG;
    *val = d->regs[i];
    return 0;
}

int accessFpreg(unw_addr_space_t, unw_regnum_t, unw_fpreg_t*, int, void*) {
    return -UNW_EBADREG;
}
int resume(unw_addr_space_t, unw_cursor_t*, void*) {
    return -UNW_EINVAL;
}
int getProcName(unw_addr_space_t, unw_word_t, char*, size_t, unw_word_t*, void*) {
    return -UNW_ENOINFO;
}

} // namespace

RemoteUnwinder::RemoteUnwinder(pid_t pid, unsigned maxDepth)
    : d(std::make_unique<Impl>()) {
    d->pid = pid;
    d->maxDepth = std::max(1u, maxDepth);
    unw_accessors_t acc{};
    acc.find_proc_info = findProcInfo;
    acc.put_unwind_info = putUnwindInfo;
    acc.get_dyn_info_list_addr = getDynInfoListAddr;
    acc.access_mem = accessMem;
    acc.access_reg = accessReg;
    acc.access_fpreg = accessFpreg;
    acc.resume = resume;
    acc.get_proc_name = getProcName;
    d->as = unw_create_addr_space(&acc, 0);
    unw_set_caching_policy(d->as, UNW_CACHE_GLOBAL);
}

RemoteUnwinder::~RemoteUnwinder() {
    for (auto& [tid, upt] : d->threadUpts)
        _UPT_destroy(upt);
    if (d->processUpt)
        _UPT_destroy(d->processUpt);
    if (d->as)
        unw_destroy_addr_space(d->as);
}

std::size_t RemoteUnwinder::unwindTraced(pid_t tid, uint64_t* out) {
    void*& upt = d->threadUpts[tid];
    if (!upt)
        upt = _UPT_create(tid);
    if (!upt)
        return 0;
    d->regs = nullptr;
    d->stack = nullptr;
    return d->unwind(upt, out);
}

std::size_t RemoteUnwinder::unwindCopy(const uint64_t* regs, const uint8_t* stack, std::size_t stackBytes,
                                       uint64_t* out) {
    if (!d->processUpt)
        d->processUpt = _UPT_create(d->pid);
    if (!d->processUpt)
        return 0;
    d->regs = regs;
    d->stack = stack;
    d->stackStart = regs[7];
    d->stackEnd = d->stackStart + stackBytes;
    const std::size_t n = d->unwind(d->processUpt, out);
    d->regs = nullptr;
    d->stack = nullptr;
    return n;
}

void RemoteUnwinder::invalidate() {
    d->mapsDirty = true;
    d->constantPages.clear();
    unw_flush_cache(d->as, 0, 0);
}

void RemoteUnwinder::forget(pid_t tid) {
    auto it = d->threadUpts.find(tid);
    if (it == d->threadUpts.end())
        return;
    if (it->second)
        _UPT_destroy(it->second);
    d->threadUpts.erase(it);
}

} // namespace scorch::detail
