#include "perf/perfstate.h"

#include "symbols/symbolizer_internal.h"
#include "symbols/symbolizeroptions.h"

#include <algorithm>
#include <bit>
#include <cstdio>

namespace scorch::detail {

using namespace perf;

namespace {

bool startsWith(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

MapEntry::Kind mapKind(std::string_view path) {
    if (startsWith(path, "//anon") || startsWith(path, "/anon_hugepage") || startsWith(path, "/dev/zero") ||
        startsWith(path, "[anon") || startsWith(path, "/memfd:") || startsWith(path, "/tmp/perf-"))
        return MapEntry::Kind::Jit;
    if (path == "[vdso]")
        return MapEntry::Kind::File; // symbolized from perf's build-id cache, where perf record copies it
    if (startsWith(path, "[") || path.empty())
        return MapEntry::Kind::Other; // [stack], [heap], [vsyscall]: no file to read
    return MapEntry::Kind::File;
}

/// Lower-case hex of raw build-id bytes.
std::string hexBytes(std::string_view bytes) {
    return toHex(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

/// perf record's id position in a sample (for finding the event of a sample when there are several).
std::size_t idSlot(uint64_t sampleType) {
    if (sampleType & SampleIdentifier)
        return 0;
    return static_cast<std::size_t>(
        std::popcount(sampleType & (SampleIp | SampleTid | SampleTime | SampleAddr)));
}

RawProfileOptions rawOptions(const ImportOptions& options) {
    RawProfileOptions r;
    r.unresolvedAddresses = options.perfAddresses; // `[module+0x...]` per address, as --addrs does for text
    return r;
}

} // namespace

PerfState::PerfState(const std::string& name, const ImportOptions& options)
    : m_name(name)
    , m_options(options)
    , m_symbolizer(std::make_unique<Symbolizer>(symbolizerOptions(options)))
    , m_builder(std::make_unique<RawProfileBuilder>(*m_symbolizer, rawOptions(options))) {
    meta.source = name;
    meta.format = Format::PerfData;
    // the reader calls the builder from its one thread: samples are merged on another while it reads on
    m_builder->pipelineSamples();
}

PerfState::~PerfState() = default;

void PerfState::warn(uint64_t offset, std::string message) {
    if (message.find("byte offset") == std::string::npos && offset)
        message += " (byte offset " + std::to_string(offset) + ")";
    meta.warn(std::move(message));
}

void PerfState::addAttr(Attr attr, const std::vector<uint64_t>& ids) {
    if ((attr.sampleType & SampleRegsUser) && attr.regsUser && attr.stackUser && !m_arch.empty() &&
        m_arch != "x86_64")
        throw PerfDataUnsupported(m_name + ": --call-graph dwarf recording of architecture " + m_arch +
                                  " (only x86_64 stacks are unwound natively)");
    if (!attrs.empty() && idSlot(attr.sampleType) != idSlot(attrs.front().sampleType))
        throw PerfDataUnsupported(m_name + ": events with different sample layouts");
    for (uint64_t id : ids)
        m_idToAttr.emplace(id, attrs.size());
    attrs.push_back(std::move(attr));
}

void PerfState::feature(unsigned bit, Cursor c) {
    switch (bit) {
    case FeatHostname:
        meta.recording.emplace_back("hostname", c.string());
        break;
    case FeatOsRelease:
        meta.recording.emplace_back("os release", c.string());
        break;
    case FeatVersion:
        meta.recording.emplace_back("perf version", c.string());
        break;
    case FeatArch:
        m_arch = c.string();
        meta.recording.emplace_back("architecture", m_arch);
        for (const Attr& a : attrs)
            if ((a.sampleType & SampleRegsUser) && a.regsUser && a.stackUser && m_arch != "x86_64")
                throw PerfDataUnsupported(m_name + ": --call-graph dwarf recording of architecture " +
                                          m_arch + " (only x86_64 stacks are unwound natively)");
        break;
    case FeatNrCpus: {
        const uint32_t online = c.u32(), available = c.u32();
        meta.recording.emplace_back("cpus", std::to_string(available) + " online " + std::to_string(online));
        break;
    }
    case FeatCpuDesc:
        meta.recording.emplace_back("cpu", c.string());
        break;
    case FeatCmdline: {
        const uint32_t n = c.u32();
        std::string line;
        for (uint32_t i = 0; i < n && i < 4096; ++i)
            line += (i ? " " : "") + c.string();
        meta.recording.emplace_back("command line", line);
        break;
    }
    case FeatEventDesc: {
        const uint32_t n = c.u32(), attrSize = c.u32();
        for (uint32_t i = 0; i < n; ++i) {
            c.skip(attrSize);
            const uint32_t ids = c.u32();
            std::string name = c.string();
            c.skip(uint64_t(ids) * 8);
            if (i < attrs.size() && !name.empty())
                attrs[i].name = std::move(name);
        }
        break;
    }
    case FeatBuildId:
        while (c.left() >= 8) {
            const uint64_t at = c.offset();
            c.skip(4);
            const uint16_t misc = c.get<uint16_t>();
            const uint16_t size = c.get<uint16_t>();
            if (size < 8 + 4 + 24 || size - 8u > c.left()) {
                warn(at, "corrupt build-id entry");
                break;
            }
            Cursor e(c.bytes(size - 8u), at + 8, &m_name);
            buildIdEntry(misc, e);
        }
        break;
    default:
        break;
    }
}

bool PerfState::hasTime() const {
    return !attrs.empty() && (attrs.front().sampleType & SampleTime) &&
           (attrs.front().flags & kAttrSampleIdAll);
}

const Attr* PerfState::attrOf(std::string_view sample) const {
    if (attrs.size() == 1)
        return &attrs.front();
    if (attrs.empty())
        return nullptr;
    const uint64_t type = attrs.front().sampleType;
    if (!(type & (SampleId | SampleIdentifier)))
        return &attrs.front();
    const std::size_t at = 8 + 8 * idSlot(type);
    if (sample.size() < at + 8)
        return nullptr;
    uint64_t id;
    std::memcpy(&id, sample.data() + at, 8);
    const auto it = m_idToAttr.find(id);
    return it == m_idToAttr.end() ? nullptr : &attrs[it->second];
}

uint64_t PerfState::recordTime(uint32_t type, std::string_view record) const {
    uint64_t t = 0;
    if (type == RecordSample) {
        const Attr* a = attrOf(record);
        if (!a || !(a->sampleType & SampleTime))
            return 0;
        const std::size_t at = 8 + 8 * static_cast<std::size_t>(std::popcount(
                                           a->sampleType & (SampleIdentifier | SampleIp | SampleTid)));
        if (record.size() >= at + 8)
            std::memcpy(&t, record.data() + at, 8);
        return t;
    }
    const uint64_t st = attrs.front().sampleType;
    const std::size_t after = static_cast<std::size_t>(
        std::popcount(st & (SampleId | SampleStreamId | SampleCpu | SampleIdentifier)));
    if (record.size() >= 8 + 8 * (after + 1))
        std::memcpy(&t, record.data() + record.size() - 8 * (after + 1), 8);
    return t;
}

void PerfState::buildIdEntry(uint16_t misc, Cursor& e) {
    e.skip(4); // pid
    const std::string_view id = e.bytes(24);
    std::string_view path = e.bytes(e.left());
    path = path.substr(0, path.find('\0'));
    // With PERF_RECORD_MISC_BUILD_ID_SIZE byte 20 holds the length; otherwise 20 bytes (SHA-1).
    std::size_t len = 20;
    if ((misc & kMiscBuildIdSize) && static_cast<unsigned char>(id[20]) <= 20)
        len = static_cast<unsigned char>(id[20]);
    const std::string_view file = intern(path), hex = intern(hexBytes(id.substr(0, len)));
    m_buildIds[file] = hex;
    // mappings (and modules) seen before their build-id: give it to them, so that the file is verified
    for (auto& [pid, space] : m_spaces)
        for (auto& [start, entry] : space)
            if (entry.map.path == file && entry.buildId.empty()) {
                entry.buildId = hex;
                if (entry.handle.valid())
                    m_symbolizer->setBuildId(entry.handle, hex);
            }
}

void PerfState::deferSymbolization() {
    m_builder->deferSymbolization();
}

void PerfState::record(uint32_t type, Cursor& c) {
    c.skip(4);
    const uint16_t misc = c.get<uint16_t>();
    c.skip(2);
    switch (type) {
    case RecordSample:
        sample(c, misc);
        break;
    case RecordMmap:
    case RecordMmap2:
        mmap(c, misc, type == RecordMmap2);
        break;
    case RecordComm: {
        const int64_t pid = static_cast<int32_t>(c.u32()), tid = static_cast<int32_t>(c.u32());
        std::string_view comm = c.bytes(c.left());
        comm = comm.substr(0, comm.find('\0'));
        if (misc & kMiscCommExec) {
            ++m_mapGeneration;
            m_spaces.erase(pid);
            if (m_unwinder)
                m_unwinder->invalidate(pid);
        }
        m_comms[tid] = std::string(comm);
        m_threads.erase(tid);
        break;
    }
    case RecordFork: {
        const int64_t pid = static_cast<int32_t>(c.u32()), ppid = static_cast<int32_t>(c.u32());
        const int64_t tid = static_cast<int32_t>(c.u32()), ptid = static_cast<int32_t>(c.u32());
        if (pid != ppid) {
            ++m_mapGeneration;
            const auto parent = m_spaces.find(ppid);
            if (parent != m_spaces.end())
                m_spaces[pid] = parent->second;
            else
                m_spaces.erase(pid);
            if (m_unwinder)
                m_unwinder->invalidate(pid);
        }
        const auto comm = m_comms.find(ptid);
        if (comm != m_comms.end())
            m_comms[tid] = comm->second;
        m_threads.erase(tid);
        break;
    }
    case RecordHeaderBuildId: // pipe mode: after the samples of the modules they belong to
        if (c.left() >= 4 + 24)
            buildIdEntry(misc, c);
        break;
    case RecordExit:
    case RecordHeaderEventType:
    case RecordHeaderTracingData:
    case RecordAuxtrace:
        break;
    case RecordLost:
        c.skip(8);
        m_lost += c.u64();
        break;
    case RecordLostSamples:
        m_lost += c.u64();
        break;
    default:
        if (type < 64 || type > 83)
            ++m_unknownTypes[type];
        break;
    }
}

void PerfState::mmap(Cursor& c, uint16_t misc, bool v2) {
    const int64_t pid = static_cast<int32_t>(c.u32());
    c.skip(4);
    MapEntry e;
    e.map.start = c.u64();
    const uint64_t len = c.u64();
    e.map.pgoff = c.u64();
    e.map.end = e.map.start + len;
    std::string_view buildId;
    if (v2) {
        const std::string_view ident = c.bytes(24);
        c.skip(8); // prot, flags
        if (misc & kMiscMmapBuildId) {
            const auto n = static_cast<unsigned char>(ident[0]);
            if (n > 0 && n <= 20)
                buildId = intern(hexBytes(ident.substr(4, n)));
        }
    }
    std::string_view path = c.bytes(c.left());
    path = path.substr(0, path.find('\0'));
    const uint16_t mode = misc & kMiscCpuModeMask;
    if (mode == kMiscKernel || mode == kMiscGuestKernel || pid == -1)
        return; // kernel and its modules: kernel addresses are symbolized by address (kallsyms)
    e.map.path = intern(path);
    e.kind = mapKind(path);
    if (buildId.empty()) {
        const auto it = m_buildIds.find(e.map.path);
        if (it != m_buildIds.end())
            buildId = it->second;
    }
    e.buildId = buildId;
    if (len == 0 || e.map.end < e.map.start)
        return;
    addMap(pid, e);
    if (m_unwinder && e.kind == MapEntry::Kind::File)
        m_unwinder->invalidate(pid); // its Dwfl may hold a module where the new file now is
}

void PerfState::addMap(int64_t pid, MapEntry entry) {
    ++m_mapGeneration;
    AddressSpace& space = m_spaces[pid];
    // Cut away what the new mapping overlaps (perf splits maps the same way).
    auto it = space.lower_bound(entry.map.start);
    if (it != space.begin()) {
        auto prev = std::prev(it);
        if (prev->second.map.end > entry.map.start) {
            if (prev->second.map.end > entry.map.end) {
                MapEntry tail = prev->second;
                tail.map.pgoff += entry.map.end - tail.map.start;
                tail.map.start = entry.map.end;
                tail.handle = {};
                space.emplace(tail.map.start, tail);
            }
            prev->second.map.end = entry.map.start;
        }
    }
    it = space.lower_bound(entry.map.start);
    while (it != space.end() && it->first < entry.map.end) {
        if (it->second.map.end > entry.map.end) {
            MapEntry tail = it->second;
            tail.map.pgoff += entry.map.end - tail.map.start;
            tail.map.start = entry.map.end;
            tail.handle = {};
            space.erase(it);
            space.emplace(tail.map.start, tail);
            break;
        }
        it = space.erase(it);
    }
    space.emplace(entry.map.start, entry);
}

const MapEntry* PerfState::findMap(int64_t pid, uint64_t address) const {
    if (m_lastGeneration == m_mapGeneration && m_lastPid == pid && address >= m_lastMap->map.start &&
        address < m_lastMap->map.end)
        return m_lastMap;
    const auto s = m_spaces.find(pid);
    if (s == m_spaces.end())
        return nullptr;
    auto it = s->second.upper_bound(address);
    if (it == s->second.begin())
        return nullptr;
    --it;
    if (address >= it->second.map.end)
        return nullptr;
    m_lastGeneration = m_mapGeneration;
    m_lastPid = pid;
    m_lastMap = &it->second;
    return m_lastMap;
}

RawFrame PerfState::resolve(int64_t pid, uint64_t ip, bool kernel, bool returnAddress) {
    RawFrame f = resolveAddress(pid, ip, kernel, returnAddress);
    if (sampleHook)
        m_ips.push_back(f.address);
    return f;
}

RawFrame PerfState::resolveAddress(int64_t pid, uint64_t ip, bool kernel, bool returnAddress) {
    RawFrame f;
    f.returnAddress = returnAddress;
    f.address = ip;
    if (kernel) {
        if (!m_kernel.valid()) {
            const auto id = m_buildIds.find("[kernel.kallsyms]");
            m_kernel = m_symbolizer->kernel(id != m_buildIds.end() ? id->second : std::string_view());
        }
        f.module = m_kernel;
        return f;
    }
    const MapEntry* m = findMap(pid, ip);
    if (!m)
        return f;
    if (m->kind == MapEntry::Kind::Jit) {
        if (!m->handle.valid())
            m->handle = m_symbolizer->jitMap(pid);
        f.module = m->handle;
        return f;
    }
    if (!m->handle.valid())
        m->handle = m_symbolizer->module(m->map.path, m->buildId);
    f.module = m->handle;
    f.address = ip - m->map.start + m->map.pgoff;
    return f;
}

uint32_t PerfState::thread(int64_t pid, int64_t tid) {
    const auto it = m_threads.find(tid);
    if (it != m_threads.end())
        return it->second;
    const auto comm = m_comms.find(tid);
    const std::string name = comm != m_comms.end() ? comm->second : ":" + std::to_string(tid);
    const uint32_t t = m_builder->thread(name, pid, tid);
    m_threads.emplace(tid, t);
    return t;
}

void PerfState::sample(Cursor& c, uint16_t misc) {
    const Attr* found = attrOf(std::string_view(c.bytes(0).data() - 8, c.left() + 8));
    if (!found) {
        warn(c.offset() - 8, "sample of an unknown event skipped");
        return;
    }
    Attr& a = const_cast<Attr&>(*found);
    const uint64_t st = a.sampleType;
    uint64_t ip = 0, time = 0, period = 1;
    int64_t pid = -1, tid = -1;
    if (st & SampleIdentifier)
        c.skip(8);
    if (st & SampleIp)
        ip = c.u64();
    if (st & SampleTid) {
        pid = static_cast<int32_t>(c.u32());
        tid = static_cast<int32_t>(c.u32());
    }
    if (st & SampleTime)
        time = c.u64();
    if (st & SampleAddr)
        c.skip(8);
    if (st & SampleId)
        c.skip(8);
    if (st & SampleStreamId)
        c.skip(8);
    if (st & SampleCpu)
        c.skip(8);
    if (st & SamplePeriod)
        period = c.u64();
    if (st & SampleRead) {
        const uint64_t rf = a.readFormat;
        const uint64_t perValue = 8 * (1 + ((rf & ReadId) ? 1 : 0) + ((rf & ReadLost) ? 1 : 0));
        const uint64_t times =
            8 * (((rf & ReadTotalTimeEnabled) ? 1 : 0) + ((rf & ReadTotalTimeRunning) ? 1 : 0));
        if (rf & ReadGroup) {
            const uint64_t n = c.u64();
            if (n > c.left())
                c.fail("corrupt read_format group in a sample");
            c.skip(times + n * perValue);
        } else {
            c.skip(times + perValue);
        }
    }
    const bool dwarf = (st & SampleRegsUser) && (st & SampleStackUser) && a.regsUser;
    m_frames.clear();
    m_ips.clear();
    bool haveUser = false;
    if (st & SampleCallchain) {
        const uint64_t n = c.u64();
        if (n > c.left() / 8)
            c.fail("callchain of " + std::to_string(n) + " entries does not fit in its sample");
        bool kernel = (misc & kMiscCpuModeMask) == kMiscKernel;
        bool first = true;
        for (uint64_t i = 0; i < n; ++i) {
            const uint64_t entry = c.u64();
            if (entry >= kContextMax) {
                kernel = entry == kContextKernel || entry == kContextGuestKernel || entry == kContextHv;
                first = true;
                continue;
            }
            if (dwarf && !kernel)
                continue; // user frames come from unwinding the stack copy
            if (m_frames.size() < m_options.maxStackDepth)
                m_frames.push_back(resolve(pid, entry, kernel, !first));
            haveUser = haveUser || !kernel;
            first = false;
        }
    }
    if (st & SampleRaw)
        c.skip(c.u32());
    if (st & SampleBranchStack) {
        const uint64_t n = c.u64();
        if (a.branchSampleType & kBranchHwIndex)
            c.skip(8);
        if (n > c.left() / 24)
            c.fail("branch stack does not fit in its sample");
        c.skip(n * 24);
    }
    if (dwarf) {
        const uint64_t abi = c.u64();
        m_regs.clear();
        if (abi) {
            const int nregs = std::popcount(a.regsUser);
            for (int i = 0; i < nregs; ++i)
                m_regs.push_back(c.u64());
        }
        const uint64_t size = c.u64();
        std::string_view stack = c.bytes(size);
        if (size) {
            const uint64_t dynSize = c.u64();
            stack = stack.substr(0, std::min<uint64_t>(dynSize, size));
        }
        ++m_dwarfSamples;
        if (abi == 2 && !m_regs.empty()) { // PERF_SAMPLE_REGS_ABI_64
            if (!m_unwinder)
                m_unwinder = std::make_unique<DwarfUnwinder>([this](int64_t p, uint64_t address) {
                    const MapEntry* m = findMap(p, address);
                    return m && m->kind == MapEntry::Kind::File && !startsWith(m->map.path, "[") ? &m->map
                                                                                                 : nullptr;
                });
            constexpr int kSp = 7; // PERF_REG_X86_SP
            uint64_t sp = 0;
            if (a.regsUser >> kSp & 1)
                sp = m_regs[static_cast<std::size_t>(std::popcount(a.regsUser & ((uint64_t(1) << kSp) - 1)))];
            m_unwound.clear();
            // A damaged stack copy could lead the unwinder around in circles: at most 1024 frames (perf:
            // 127).
            const std::size_t room = std::min<std::size_t>(
                1024,
                m_options.maxStackDepth > m_frames.size() ? m_options.maxStackDepth - m_frames.size() : 0);
            if (!m_unwinder->unwind(pid, tid, a.regsUser, m_regs, sp, stack, room, m_unwound))
                ++m_unwindFailures;
            for (const DwarfUnwinder::Frame& f : m_unwound)
                m_frames.push_back(resolve(pid, f.pc, false, !f.activation));
            haveUser = haveUser || !m_unwound.empty();
        } else if (abi != 0) {
            throw PerfDataUnsupported(m_name + ": 32-bit user registers in a --call-graph dwarf sample");
        }
    }
    if (m_frames.empty() && (st & SampleIp))
        m_frames.push_back(
            resolve(pid, ip, (misc & kMiscCpuModeMask) == kMiscKernel || ip >= (uint64_t(1) << 63), false));
    (void)haveUser;
    if (sampleHook)
        sampleHook(pid, tid, m_ips);

    if (a.samplesCost == UINT32_MAX) {
        if (st & SamplePeriod)
            a.periodCost = m_builder->costType(a.name, CostUnit::Period);
        a.samplesCost = m_builder->costType(a.name + " samples", CostUnit::Samples);
    }
    CostValue costs[2] = {{a.samplesCost, 1}, {a.periodCost, static_cast<int64_t>(period & INT64_MAX)}};
    const std::size_t ncosts = a.periodCost == UINT32_MAX ? 1 : 2;
    m_builder->addSample(thread(pid, tid), m_frames, std::span<const CostValue>(costs, ncosts),
                         (st & SampleTime) ? static_cast<double>(time) / 1e9 : -1.0);
}

ProfileMeta PerfState::currentMeta() const {
    ProfileMeta m = meta;
    m.samples = m_builder->samples();
    return m;
}

Profile PerfState::snapshot(const std::atomic<bool>* cancel) {
    return m_builder->snapshot(currentMeta(), cancel);
}

Profile PerfState::finish(const std::atomic<bool>* cancel) {
    if (m_lost)
        warn(0, std::to_string(m_lost) + " events were lost while recording (perf could not keep up)");
    for (const auto& [type, count] : m_unknownTypes)
        warn(0, std::to_string(count) + " records of unknown type " + std::to_string(type) + " skipped");
    if (m_unwindFailures)
        warn(0, std::to_string(m_unwindFailures) + " of " + std::to_string(m_dwarfSamples) +
                    " --call-graph dwarf samples could not be unwound");
    if (m_builder->samples() == 0)
        throw ImportError(m_name + ": no samples found in perf.data" +
                          (meta.warnings.empty() ? std::string() : "; " + meta.warnings.front().message));
    return m_builder->finish(currentMeta(), cancel);
}

} // namespace scorch::detail
