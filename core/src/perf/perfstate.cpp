#include "perf/perfstate.h"

#include "scorch/warningkind.h"
#include "symbols/symbolizer_internal.h"
#include "symbols/symbolizeroptions.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <filesystem>

namespace scorch::detail {

using namespace perf;

namespace {

/// Lower-case hex of raw build-id bytes.
std::string hexBytes(std::string_view bytes) {
    return toHex(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

/// The symbolizer's options for a recording named `name`: relative recorded paths are looked for in its
/// directory.
SymbolizerOptions recordingSymbolizerOptions(const std::string& name, const ImportOptions& options,
                                             const ImportControl& control) {
    SymbolizerOptions s = symbolizerOptions(options, control);
    if (options.symbolize && !name.empty() && name != "-") {
        std::error_code ec;
        const std::filesystem::path file = std::filesystem::absolute(name, ec);
        if (!ec)
            s.relativeBase = file.parent_path().string();
    }
    return s;
}

RawProfileOptions rawOptions(const ImportOptions& options) {
    RawProfileOptions r;
    r.unresolvedAddresses = options.perfAddresses; // `[module+0x...]` per address, as --addrs does for text
    // one thread asked for: no helper threads either, so that the work done (and a fuzzer's coverage) does
    // not depend on their timing
    r.symbolizeAhead = options.threads != 1;
    return r;
}

} // namespace

PerfState::PerfState(const std::string& name, const ImportOptions& options, const ImportControl& control)
    : m_name(name)
    , m_options(options)
    , m_symbolizer(std::make_unique<Symbolizer>(recordingSymbolizerOptions(name, options, control)))
    , m_builder(std::make_unique<RawProfileBuilder>(*m_symbolizer, rawOptions(options))) {
    m_meta.source = name;
    m_meta.format = Format::PerfData;
    // the reader calls the builder from its one thread: samples are merged on another while it reads on
    if (options.threads != 1)
        m_builder->pipelineSamples();
}

PerfState::~PerfState() = default;

void PerfState::setPipeMode() {
    m_pipeMode = true;
    m_builder->deferSymbolization();
}

void PerfState::setInput(const std::string& compression, uint64_t bytes) {
    m_meta.compression = compression;
    m_meta.inputBytes = bytes;
}

void PerfState::warn(uint64_t offset, std::string message) {
    if (message.find("byte offset") == std::string::npos && offset)
        message += " (byte offset " + std::to_string(offset) + ")";
    m_meta.warn(std::move(message));
}

void PerfState::warnFirst(uint64_t offset, std::string message) {
    if (message.find("byte offset") == std::string::npos && offset)
        message += " (byte offset " + std::to_string(offset) + ")";
    warnSerious(m_meta, std::move(message));
}

void PerfState::checkArchitecture(const Attr& a) const {
    if (a.dwarfStacks() && !m_arch.empty() && m_arch != "x86_64")
        throw PerfDataUnsupported(m_name + ": --call-graph dwarf recording of architecture " + m_arch +
                                  " (only x86_64 stacks are unwound natively)");
}

void PerfState::addAttr(Attr attr, const std::vector<uint64_t>& ids) {
    checkArchitecture(attr);
    if (!m_attrs.fits(attr))
        throw PerfDataUnsupported(m_name + ": events with different sample layouts");
    m_attrs.add(std::move(attr), ids);
}

// --- feature sections ---

void PerfState::feature(unsigned bit, Cursor c) {
    readFeature(bit, c, *this);
}

void PerfState::note(std::string key, std::string value) {
    m_meta.recording.emplace_back(std::move(key), std::move(value));
}

void PerfState::architecture(const std::string& arch) {
    m_arch = arch;
    m_meta.recording.emplace_back("architecture", m_arch);
    for (const Attr& a : m_attrs.all())
        if (a.dwarfStacks() && m_arch != "x86_64")
            throw PerfDataUnsupported(m_name + ": --call-graph dwarf recording of architecture " + m_arch +
                                      " (only x86_64 stacks are unwound natively)");
}

void PerfState::eventName(std::size_t event, std::string name) {
    if (event < m_attrs.size() && !name.empty())
        m_attrs.setName(event, std::move(name));
}

void PerfState::buildId(std::string_view path, std::string_view id) {
    const std::string_view file = intern(path), hex = intern(hexBytes(id));
    m_buildIds[file] = hex;
    // mappings (and modules) seen before their build-id: give it to them, so that the file is verified
    m_maps.forEach([&](Mapping& m) {
        if (m.path == file && m.buildId.empty()) {
            m.buildId = hex;
            if (m.module.valid())
                m_symbolizer->setBuildId(m.module, hex);
        }
    });
}

// --- records ---

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
    case RecordComm:
        comm(c, misc);
        break;
    case RecordFork:
        fork(c);
        break;
    case RecordHeaderBuildId: // pipe mode: after the samples of the modules they belong to
        if (c.left() >= 4 + 24)
            readBuildIdEntry(misc, c, *this);
        break;
    case RecordSwitch:
    case RecordSwitchCpuWide:
        switchRecord(type, misc, c);
        break;
    case RecordExit:
        if (m_offCpu && c.left() >= 12) {
            c.skip(8); // pid, ppid
            threadExit(static_cast<int32_t>(c.u32()));
        }
        break;
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

void PerfState::comm(Cursor& c, uint16_t misc) {
    const int64_t pid = static_cast<int32_t>(c.u32()), tid = static_cast<int32_t>(c.u32());
    std::string_view comm = c.bytes(c.left());
    comm = comm.substr(0, comm.find('\0'));
    if (misc & kMiscCommExec) {
        m_maps.exec(pid);
        if (m_unwinder)
            m_unwinder->invalidate(pid);
    }
    m_comms[tid] = std::string(comm);
    m_threads.erase(tid);
}

void PerfState::fork(Cursor& c) {
    const int64_t pid = static_cast<int32_t>(c.u32()), ppid = static_cast<int32_t>(c.u32());
    const int64_t tid = static_cast<int32_t>(c.u32()), ptid = static_cast<int32_t>(c.u32());
    if (pid != ppid) {
        m_maps.fork(pid, ppid);
        if (m_unwinder)
            m_unwinder->invalidate(pid);
    }
    const auto comm = m_comms.find(ptid);
    if (comm != m_comms.end())
        m_comms[tid] = comm->second;
    m_threads.erase(tid);
    m_switch.erase(tid);
}

void PerfState::mmap(Cursor& c, uint16_t misc, bool v2) {
    const int64_t pid = static_cast<int32_t>(c.u32());
    c.skip(4);
    Mapping m;
    m.start = c.u64();
    const uint64_t len = c.u64();
    m.pgoff = c.u64();
    m.end = m.start + len;
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
    m.path = intern(path);
    m.kind = mappingKind(path);
    if (buildId.empty()) {
        const auto it = m_buildIds.find(m.path);
        if (it != m_buildIds.end())
            buildId = it->second;
    }
    m.buildId = buildId;
    if (len == 0 || m.end < m.start)
        return;
    m_maps.map(pid, m);
    if (m_unwinder && m.kind == Mapping::Kind::File)
        m_unwinder->invalidate(pid); // its Dwfl may hold a module where the new file now is
}

RawFrame PerfState::resolve(int64_t pid, uint64_t ip, bool kernel, bool returnAddress) {
    RawFrame f = resolveAddress(pid, ip, kernel, returnAddress);
    if (m_sampleHook)
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
    const Mapping* m = m_maps.find(pid, ip);
    if (!m)
        return f;
    if (m->kind == Mapping::Kind::Jit) {
        if (!m->module.valid())
            m->module = m_symbolizer->jitMap(pid);
        f.module = m->module;
        return f; // perf maps list absolute addresses
    }
    if (!m->module.valid())
        m->module = m_symbolizer->module(m->path, m->buildId);
    return m->frame(ip, returnAddress);
}

std::string_view PerfState::moduleFile(const Mapping& m) {
    if (!m.module.valid())
        m.module = m_symbolizer->module(m.path, m.buildId);
    const auto [it, fresh] = m_moduleFiles.try_emplace(m.module.value);
    if (fresh) {
        // the file the symbolizer reads the module from (moved binaries found through --symbol-path, a
        // sysroot, build-id directories); without symbolization, the recorded path as it is
        std::string file = m_symbolizer->moduleFile(m.module);
        if (file.empty() && !m_options.symbolize)
            file = std::string(m.path);
        it->second = file.empty() ? std::string_view() : intern(file);
    }
    return it->second;
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

// --- samples ---

void PerfState::sample(Cursor& c, uint16_t misc) {
    Attr* a = m_attrs.of(std::string_view(c.bytes(0).data() - 8, c.left() + 8));
    if (!a) {
        warn(c.offset() - 8, "sample of an unknown event skipped");
        return;
    }
    ++m_samplesRead;
    const uint64_t st = a->sampleType;
    const SampleHead h = readSampleHead(c, *a);
    const bool dwarf = (st & SampleRegsUser) && (st & SampleStackUser) && a->regsUser;
    m_frames.clear();
    m_ips.clear();
    if (st & SampleCallchain)
        readCallchain(c, misc, h, dwarf);
    skipRawAndBranches(c, *a);
    if (dwarf)
        unwindUserStack(c, *a, h);
    if (m_frames.empty() && (st & SampleIp)) // no call chain: the sampled instruction alone
        m_frames.push_back(resolve(
            h.pid, h.ip, (misc & kMiscCpuModeMask) == kMiscKernel || h.ip >= (uint64_t(1) << 63), false));
    if (!m_switchReady)
        prepareSwitches();
    if (m_offCpu) {
        m_lastTime = std::max(m_lastTime, h.time);
        if (a->switchEvent)
            switchSample(*a, h);
    }
    if (m_sampleHook)
        m_sampleHook(h.pid, h.tid, m_ips);
    addSample(*a, h);
}

PerfState::SampleHead PerfState::readSampleHead(Cursor& c, const Attr& a) {
    const uint64_t st = a.sampleType;
    SampleHead h;
    if (st & SampleIdentifier)
        c.skip(8);
    if (st & SampleIp)
        h.ip = c.u64();
    if (st & SampleTid) {
        h.pid = static_cast<int32_t>(c.u32());
        h.tid = static_cast<int32_t>(c.u32());
    }
    if (st & SampleTime)
        h.time = c.u64();
    if (st & SampleAddr)
        c.skip(8);
    if (st & SampleId)
        c.skip(8);
    if (st & SampleStreamId)
        c.skip(8);
    if (st & SampleCpu) { // u32 cpu, u32 reserved
        h.cpu = static_cast<int32_t>(c.u32() & INT32_MAX);
        c.skip(4);
    }
    if (st & SamplePeriod)
        h.period = c.u64();
    else if (a.fixedPeriod)
        h.period = a.fixedPeriod; // perf record -c N
    m_readValues.clear();
    if (st & SampleRead) {
        // the counters read with the sample: {value, id?, lost?} per event of the group (or the one event),
        // kept when they name their events
        const uint64_t rf = a.readFormat;
        const uint64_t perValue = 8 * (1 + ((rf & ReadId) ? 1 : 0) + ((rf & ReadLost) ? 1 : 0));
        const uint64_t times =
            8 * (((rf & ReadTotalTimeEnabled) ? 1 : 0) + ((rf & ReadTotalTimeRunning) ? 1 : 0));
        if (rf & ReadGroup) {
            const uint64_t n = c.u64();
            if (n > c.left() / perValue)
                c.fail("corrupt read_format group in a sample");
            c.skip(times);
            for (uint64_t i = 0; i < n; ++i) {
                const uint64_t value = c.u64();
                if (rf & ReadId)
                    m_readValues.emplace_back(c.u64(), value);
                if (rf & ReadLost)
                    c.skip(8);
            }
        } else {
            const uint64_t value = c.u64();
            c.skip(times);
            if (rf & ReadId)
                m_readValues.emplace_back(c.u64(), value);
            if (rf & ReadLost)
                c.skip(8);
        }
    }
    return h;
}

void PerfState::readCallchain(Cursor& c, uint16_t misc, const SampleHead& h, bool dwarf) {
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
            m_frames.push_back(resolve(h.pid, entry, kernel, !first));
        first = false;
    }
}

void PerfState::skipRawAndBranches(Cursor& c, const Attr& a) {
    m_raw = {};
    if (a.sampleType & SampleRaw)
        m_raw = c.bytes(c.u32());
    if (a.sampleType & SampleBranchStack) {
        const uint64_t n = c.u64();
        if (a.branchSampleType & kBranchHwIndex)
            c.skip(8);
        if (n > c.left() / 24)
            c.fail("branch stack does not fit in its sample");
        c.skip(n * 24);
    }
}

void PerfState::unwindUserStack(Cursor& c, const Attr& a, const SampleHead& h) {
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
            m_unwinder = std::make_unique<DwarfUnwinder>(
                [this](int64_t p, uint64_t address) {
                    const Mapping* m = m_maps.find(p, address);
                    return m && m->kind == Mapping::Kind::File && !m->path.starts_with("[") ? m : nullptr;
                },
                [this](const Mapping& m) { return moduleFile(m); });
        constexpr int kSp = 7; // PERF_REG_X86_SP
        uint64_t sp = 0;
        if (a.regsUser >> kSp & 1)
            sp = m_regs[static_cast<std::size_t>(std::popcount(a.regsUser & ((uint64_t(1) << kSp) - 1)))];
        m_unwound.clear();
        // A damaged stack copy could lead the unwinder around in circles: at most 1024 frames (perf: 127).
        const std::size_t room = std::min<std::size_t>(
            1024, m_options.maxStackDepth > m_frames.size() ? m_options.maxStackDepth - m_frames.size() : 0);
        if (!m_unwinder->unwind(h.pid, h.tid, a.regsUser, m_regs, sp, stack, room, m_unwound))
            ++m_unwindFailures;
        for (const DwarfUnwinder::Frame& f : m_unwound)
            m_frames.push_back(resolve(h.pid, f.pc, false, !f.activation));
    } else if (abi != 0) {
        throw PerfDataUnsupported(m_name + ": 32-bit user registers in a --call-graph dwarf sample");
    }
}

void PerfState::costTypesOf(Attr& a, bool period) {
    if (a.samplesCost != UINT32_MAX)
        return;
    if (period)
        a.periodCost = m_builder->costType(a.name, periodUnit(a.name));
    a.samplesCost = m_builder->costType(a.name + " samples", CostUnit::Samples);
}

void PerfState::addSample(Attr& a, const SampleHead& h) {
    const uint64_t st = a.sampleType;
    const double time = (st & SampleTime) ? static_cast<double>(h.time) / 1e9 : -1.0;
    m_costs.clear();
    if (!m_readValues.empty()) {
        // PERF_SAMPLE_READ (`perf record -e '{cycles,instructions}:S'`): as perf report delivers them, each
        // event of the group gets the growth of its counter since its previous sample, and a sample when it
        // grew
        for (const auto& [id, value] : m_readValues) {
            Attr* member = m_attrs.byId(id);
            if (!member)
                continue;
            uint64_t& last = m_readLast[id];
            const uint64_t growth = value - last;
            last = value;
            if (!growth)
                continue;
            costTypesOf(*member, true);
            m_costs.push_back({member->periodCost, static_cast<int64_t>(growth & INT64_MAX)});
            m_costs.push_back({member->samplesCost, 1});
        }
        if (!m_costs.empty()) {
            m_builder->addSample(thread(h.pid, h.tid), m_frames, m_costs, time, h.cpu);
            return;
        }
    }
    costTypesOf(a, (st & SamplePeriod) || a.fixedPeriod);
    m_costs.push_back({a.samplesCost, 1});
    if (a.periodCost != UINT32_MAX)
        m_costs.push_back({a.periodCost, static_cast<int64_t>(h.period & INT64_MAX)});
    if (m_offCpu && a.wallEvent) {
        const int64_t onCpu = onCpuNs(a, h);
        if (onCpu >= 0) {
            offCpuCostTypes();
            m_costs.push_back({m_wallCost, onCpu});
        }
    }
    m_builder->addSample(thread(h.pid, h.tid), m_frames, m_costs, time, h.cpu);
}

// --- the profile ---

ProfileMeta PerfState::currentMeta() const {
    ProfileMeta m = m_meta;
    m.samples = m_builder->samples();
    return m;
}

Profile PerfState::snapshot(const std::atomic<bool>* cancel) {
    return m_builder->snapshot(currentMeta(), cancel);
}

Profile PerfState::finish(const std::atomic<bool>* cancel) {
    finishSwitches();
    if (m_lost)
        warnFirst(0, std::to_string(m_lost) + " events were lost while recording (perf could not keep up)");
    for (const auto& [type, count] : m_unknownTypes)
        warn(0, std::to_string(count) + " records of unknown type " + std::to_string(type) + " skipped");
    if (m_unwindFailures) {
        std::string message = std::to_string(m_unwindFailures) + " of " + std::to_string(m_dwarfSamples) +
                              " --call-graph dwarf samples could not be unwound";
        if (warningKind(message) == WarningKind::Unwind) // serious: ahead of the rest
            warnFirst(0, std::move(message));
        else
            warn(0, std::move(message));
    }
    if (m_builder->samples() == 0)
        throw ImportError(m_name + ": no samples found in perf.data" +
                          (m_meta.warnings.empty() ? std::string() : "; " + m_meta.warnings.front().message));
    return m_builder->finish(currentMeta(), cancel);
}

} // namespace scorch::detail
