// Scorch recording files: serialization, parsing and atomic writes. Layout: docs/recording-format.md.
#include "scorch/recording.h"

#include "scorch/import.h"

#include "util/atomicfile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace scorch {

namespace {

enum RecordType : uint8_t {
    kMeta = 1,
    kModule = 2,
    kThread = 3,
    kSample = 4,
    kNote = 5,
    kTimedSample = 6,
    kOffCpu = 7,
    kEnd = 0xff
};
constexpr uint32_t kMaxFrames = 1u << 16;

class Writer {
public:
    std::string out;
    void u8(uint8_t v) { out.push_back(static_cast<char>(v)); }
    void u32(uint32_t v) { raw(&v, 4); }
    void u64(uint64_t v) { raw(&v, 8); }
    void i64(int64_t v) { raw(&v, 8); }
    void f64(double v) { raw(&v, 8); }
    void str(std::string_view s) {
        u32(static_cast<uint32_t>(s.size()));
        out.append(s);
    }
    void raw(const void* p, std::size_t n) { out.append(static_cast<const char*>(p), n); }
    /// Starts a record; returns the position of its size field.
    std::size_t begin(RecordType type) {
        u8(type);
        const std::size_t at = out.size();
        u32(0);
        return at;
    }
    void end(std::size_t at) {
        const auto size = static_cast<uint32_t>(out.size() - at - 4);
        std::memcpy(out.data() + at, &size, 4);
    }
};

class Reader {
public:
    Reader(std::string_view bytes, const std::string& name, std::size_t base)
        : m_data(bytes)
        , m_name(name)
        , m_base(base) {}
    bool atEnd() const { return m_pos >= m_data.size(); }
    std::size_t offset() const { return m_base + m_pos; }
    [[noreturn]] void fail(const std::string& what) const {
        throw ImportError(m_name + ": byte offset " + std::to_string(offset()) + ": " + what);
    }
    void need(std::size_t n) const {
        if (m_data.size() - m_pos < n)
            fail("truncated recording");
    }
    template <typename T>
    T get() {
        need(sizeof(T));
        T v;
        std::memcpy(&v, m_data.data() + m_pos, sizeof(T));
        m_pos += sizeof(T);
        return v;
    }
    std::string str() {
        const auto n = get<uint32_t>();
        need(n);
        std::string s(m_data.substr(m_pos, n));
        m_pos += n;
        return s;
    }
    std::string_view take(std::size_t n) {
        need(n);
        const std::string_view s = m_data.substr(m_pos, n);
        m_pos += n;
        return s;
    }

private:
    std::string_view m_data;
    const std::string& m_name;
    std::size_t m_base;
    std::size_t m_pos = 0;
};

} // namespace

void Recording::addSample(int64_t tid, uint64_t timeNs, const uint64_t* leafFirst, std::size_t n) {
    if (n == 0)
        return;
    samples.push_back({tid, timeNs, static_cast<uint32_t>(ips.size()), static_cast<uint32_t>(n)});
    ips.insert(ips.end(), leafFirst, leafFirst + n);
}

void Recording::addTimed(int64_t tid, uint64_t timeNs, uint64_t durationNs, char st,
                         const uint64_t* leafFirst, std::size_t n) {
    if (durationNs == 0 || (n == 0 && st == 0))
        return;
    samples.push_back(
        {tid, timeNs, static_cast<uint32_t>(ips.size()), static_cast<uint32_t>(n), durationNs, st});
    if (n)
        ips.insert(ips.end(), leafFirst, leafFirst + n);
}

void Recording::copySample(std::size_t i, Recording& to) const {
    const RecordedSample& s = samples[i];
    if (s.durationNs)
        to.addTimed(s.tid, s.timeNs, s.durationNs, s.state, ips.data() + s.first, s.count);
    else
        to.addSample(s.tid, s.timeNs, ips.data() + s.first, s.count);
}

std::string Recording::threadName(int64_t tid) const {
    for (auto it = threads.rbegin(); it != threads.rend(); ++it)
        if (it->tid == tid)
            return it->name;
    return {};
}

std::string serializeRecording(const Recording& r) {
    Writer w;
    w.raw(kRecordingMagic.data(), kRecordingMagic.size());
    w.u32(Recording::kVersion);
    std::size_t at = w.begin(kMeta);
    w.str(r.mode);
    w.f64(r.frequency);
    w.i64(r.pid);
    w.u64(r.startNs);
    w.u64(r.endNs);
    w.u64(r.lost);
    w.u32(static_cast<uint32_t>(r.exitCode));
    w.u32(static_cast<uint32_t>(r.command.size()));
    for (const std::string& a : r.command)
        w.str(a);
    w.end(at);
    for (const RecordedModule& m : r.modules) {
        at = w.begin(kModule);
        w.u64(m.start);
        w.u64(m.end);
        w.u64(m.offset);
        w.u64(m.timeNs);
        w.str(m.path);
        w.str(m.buildId);
        w.end(at);
    }
    for (const RecordedThread& t : r.threads) {
        at = w.begin(kThread);
        w.i64(t.tid);
        w.u64(t.timeNs);
        w.str(t.name);
        w.end(at);
    }
    for (const std::string& n : r.notes) {
        at = w.begin(kNote);
        w.str(n);
        w.end(at);
    }
    if (r.offCpu) {
        at = w.begin(kOffCpu);
        w.u64(r.periodNs);
        w.end(at);
    }
    for (const RecordedSample& s : r.samples) {
        at = w.begin(s.durationNs ? kTimedSample : kSample);
        w.i64(s.tid);
        w.u64(s.timeNs);
        if (s.durationNs) {
            w.u64(s.durationNs);
            w.u8(static_cast<uint8_t>(s.state));
        }
        w.u32(s.count);
        w.raw(r.ips.data() + s.first, s.count * sizeof(uint64_t));
        w.end(at);
    }
    at = w.begin(kEnd);
    w.end(at);
    return std::move(w.out);
}

Recording parseRecording(std::string_view bytes, const std::string& name) {
    Reader top(bytes, name, 0);
    if (!bytes.starts_with(kRecordingMagic))
        top.fail("not a Scorch recording (no SCORCHRC magic bytes)");
    top.take(kRecordingMagic.size());
    const auto version = top.get<uint32_t>();
    if (version == 0 || version > Recording::kVersion)
        top.fail("recording format version " + std::to_string(version) +
                 " is newer than this Scorch reads (" + std::to_string(Recording::kVersion) + ")");
    Recording r;
    bool meta = false, complete = false;
    while (!top.atEnd()) {
        const auto type = top.get<uint8_t>();
        const auto size = top.get<uint32_t>();
        const std::size_t base = top.offset();
        Reader in(top.take(size), name, base);
        switch (type) {
        case kMeta: {
            r.mode = in.str();
            r.frequency = in.get<double>();
            r.pid = in.get<int64_t>();
            r.startNs = in.get<uint64_t>();
            r.endNs = in.get<uint64_t>();
            r.lost = in.get<uint64_t>();
            r.exitCode = static_cast<int32_t>(in.get<uint32_t>());
            const auto argc = in.get<uint32_t>();
            for (uint32_t i = 0; i < argc; ++i)
                r.command.push_back(in.str());
            meta = true;
            break;
        }
        case kModule: {
            RecordedModule m;
            m.start = in.get<uint64_t>();
            m.end = in.get<uint64_t>();
            m.offset = in.get<uint64_t>();
            m.timeNs = in.get<uint64_t>();
            m.path = in.str();
            m.buildId = in.str();
            if (m.end <= m.start)
                in.fail("module " + m.path + " has an empty address range");
            r.modules.push_back(std::move(m));
            break;
        }
        case kThread: {
            RecordedThread t;
            t.tid = in.get<int64_t>();
            t.timeNs = in.get<uint64_t>();
            t.name = in.str();
            r.threads.push_back(std::move(t));
            break;
        }
        case kNote:
            r.notes.push_back(in.str());
            break;
        case kOffCpu:
            r.offCpu = true;
            r.periodNs = in.get<uint64_t>();
            break;
        case kSample:
        case kTimedSample: {
            const auto tid = in.get<int64_t>();
            const auto time = in.get<uint64_t>();
            const bool timed = type == kTimedSample;
            const uint64_t duration = timed ? in.get<uint64_t>() : 0;
            const char state = timed ? static_cast<char>(in.get<uint8_t>()) : 0;
            if (timed && duration == 0)
                in.fail("sample of 0 ns");
            const auto n = in.get<uint32_t>();
            if ((n == 0 && state == 0) || n > kMaxFrames)
                in.fail("sample with " + std::to_string(n) + " frames");
            const std::string_view raw = in.take(std::size_t(n) * 8);
            if (r.ips.size() + n > UINT32_MAX)
                in.fail("too many frames in the recording");
            r.samples.push_back({tid, time, static_cast<uint32_t>(r.ips.size()), n, duration, state});
            const std::size_t at = r.ips.size();
            r.ips.resize(at + n);
            if (n)
                std::memcpy(r.ips.data() + at, raw.data(), raw.size());
            break;
        }
        case kEnd:
            complete = true;
            break;
        default:
            break; // a record type of a later minor revision: skipped
        }
        if (complete)
            break;
    }
    if (!meta)
        top.fail("the recording has no header record");
    if (!complete)
        r.notes.push_back("the recording is truncated (no end record); the samples up to byte offset " +
                          std::to_string(top.offset()) + " were read");
    return r;
}

void checkRecordingTarget(const std::string& path) {
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        throw std::runtime_error(path + ": is a directory");
    const AtomicFile probe(path); // creates (and, unused, removes) a temporary file beside it
}

void writeRecording(const Recording& recording, const std::string& path) {
    const std::string bytes = serializeRecording(recording);
    AtomicFile file(path); // throws AtomicFileError (a std::runtime_error) naming the path and the reason
    file.stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    file.commit();
}

} // namespace scorch
