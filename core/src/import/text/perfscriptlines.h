// Internal: the grammar of `perf script` lines, for the perf script importer (perfscript.cpp): the event
// header line (comm, PID/TID, CPU, time, period, event; sched_switch's trace fields; switch records), the
// frame line (address, symbol, module), and stackcollapse-perf.pl's clean-up of a function name. Defined in
// this header, not a .cpp of their own: they run on every line of inputs of gigabytes, and the compiler may
// inline them into the parser (moved here unchanged: `scorch collapse fp-medium.txt` 301.9 / 308.1 ms before
// / after, 308.5 / 304.8 ms in the other order, medians of 11 and 15 alternated runs).
#pragma once

#include "util/textutil.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace scorch::detail::perfscript {

struct Header {
    std::string_view comm;
    int64_t pid = -1, tid = -1;
    std::string_view event; ///< empty when the line names no event
    int64_t period = 0;     ///< 0 when absent
    double time = 0;
    int64_t timeNs = 0; ///< the same, exact
    int32_t cpu = -1;   ///< -1 when absent
    bool hasTime = false;
    // a sched:sched_switch line with its trace fields (off-CPU time)
    bool schedSwitch = false;
    std::string_view prevState; ///< "S", "R+", ...
    int64_t nextPid = -1;
    // a `PERF_RECORD_SWITCH IN` line (perf script --show-switch-events): the thread comes back on
    bool switchRecord = false, switchIn = false;
};

inline constexpr std::string_view kSchedSwitch = "sched:sched_switch";

/// `... TIME: [PERIOD] sched:sched_switch: prev_comm=... prev_state=S ==> next_comm=... next_pid=N ...`
/// (the trace fields of `perf script -F ...,event,trace`).
inline bool parseSchedSwitch(std::string_view line, Header& h) {
    const std::size_t at = line.find(" sched:sched_switch: ");
    if (at == std::string_view::npos)
        return false;
    h.event = line.substr(at + 1, kSchedSwitch.size());
    h.schedSwitch = true;
    std::string_view before = rtrim(line.substr(0, at));
    std::size_t d = before.size();
    while (d > 0 && isDigit(before[d - 1]))
        --d;
    int64_t period = 0;
    if (d < before.size() && d > 0 && isSpace(before[d - 1]) && parseInt(before.substr(d), period))
        h.period = period;
    const std::string_view trace = line.substr(at + 1 + kSchedSwitch.size() + 1);
    const std::size_t arrow = trace.find("==>");
    const std::size_t state = trace.rfind(" prev_state=", arrow);
    if (state != std::string_view::npos) {
        std::string_view v = trace.substr(state + 12);
        v = v.substr(0, std::min(v.find(' '), v.size()));
        h.prevState = v;
    }
    const std::size_t next = arrow == std::string_view::npos ? arrow : trace.find(" next_pid=", arrow);
    if (next != std::string_view::npos) {
        std::string_view v = trace.substr(next + 10);
        v = v.substr(0, std::min(v.find(' '), v.size()));
        int64_t pid = 0;
        if (parseInt(v, pid))
            h.nextPid = pid;
    }
    return true;
}

inline bool parseTimestamp(std::string_view tok, double& out, int64_t& ns) {
    // "12345.678901:"
    if (tok.size() < 4 || tok.back() != ':')
        return false;
    tok.remove_suffix(1);
    const std::size_t dot = tok.find('.');
    if (dot == std::string_view::npos || dot == 0 || !allDigits(tok.substr(0, dot)) ||
        !allDigits(tok.substr(dot + 1)))
        return false;
    double v = 0;
    for (char c : tok.substr(0, dot))
        v = v * 10 + (c - '0');
    double scale = 0.1;
    for (char c : tok.substr(dot + 1)) {
        v += (c - '0') * scale;
        scale *= 0.1;
    }
    out = v;
    // nanoseconds, exactly (the digits past the ninth are dropped); absurdly long integer parts saturate
    const std::string_view whole = tok.substr(0, dot), fraction = tok.substr(dot + 1);
    constexpr int64_t kMaxSeconds = INT64_MAX / 1000000000 - 1;
    int64_t n = 0;
    for (char c : whole)
        n = std::min<int64_t>(n * 10 + (c - '0'), kMaxSeconds);
    n *= 1000000000;
    int64_t f = 0;
    for (std::size_t k = 0; k < 9; ++k)
        f = f * 10 + (k < fraction.size() ? fraction[k] - '0' : 0);
    ns = n + f;
    return true;
}

/// "123" (tid) or "123/456" (pid/tid). Follows the Perl script: a missing or zero tid means "only a tid".
inline bool parsePidTid(std::string_view tok, int64_t& pid, int64_t& tid) {
    const std::size_t slash = tok.find('/');
    int64_t a = 0, b = 0;
    if (slash == std::string_view::npos) {
        if (!parseInt(tok, a))
            return false;
        pid = -1;
        tid = a;
        return true;
    }
    if (!parseInt(tok.substr(0, slash), a) || !parseInt(tok.substr(slash + 1), b))
        return false;
    if (b == 0) {
        pid = -1;
        tid = a;
    } else {
        pid = a;
        tid = b;
    }
    return true;
}

/// comm, pid and tid. Deliberate: when the line has a timestamp, the fields are found from the timestamp
/// backwards, so a comm containing digits ("FS Broker 5906 7598 ...") is read whole; the Perl regex
/// (`^(\S.+?)\s+(\d+)\/*(\d+)*\s+`) would cut it at the first number. Without a timestamp we use that regex.
inline bool parseCommAndIds(std::string_view line, Header& h) {
    struct Tok {
        std::size_t begin;
        std::string_view text;
    };
    Tok toks[12];
    std::size_t n = 0;
    for (std::size_t i = 0; i < line.size() && n < 12;) {
        while (i < line.size() && isSpace(line[i]))
            ++i;
        const std::size_t b = i;
        while (i < line.size() && !isSpace(line[i]))
            ++i;
        if (i > b)
            toks[n++] = {b, line.substr(b, i - b)};
    }
    for (std::size_t t = 2; t < n; ++t) {
        double time;
        int64_t timeNs;
        if (!parseTimestamp(toks[t].text, time, timeNs))
            continue;
        std::size_t idTok = t - 1;
        const std::string_view cpu = toks[idTok].text;
        if (cpu.size() >= 3 && cpu.front() == '[' && cpu.back() == ']' &&
            allDigits(cpu.substr(1, cpu.size() - 2))) {
            int64_t c = 0;
            if (parseInt(cpu.substr(1, cpu.size() - 2), c) && c <= INT32_MAX)
                h.cpu = static_cast<int32_t>(c);
            --idTok;
        }
        if (idTok < 1 || !parsePidTid(toks[idTok].text, h.pid, h.tid))
            break;
        h.comm = rtrim(line.substr(0, toks[idTok].begin));
        h.time = time;
        h.timeNs = timeNs;
        h.hasTime = true;
        return !h.comm.empty();
    }
    // The Perl regex: comm is at least two characters, the first not a space.
    for (std::size_t p = 2; p < line.size(); ++p) {
        if (!isSpace(line[p]) || isSpace(line[p - 1]))
            continue;
        std::size_t q = p;
        while (q < line.size() && isSpace(line[q]))
            ++q;
        const std::size_t d0 = q;
        while (q < line.size() && isDigit(line[q]))
            ++q;
        if (q == d0)
            continue;
        const std::size_t d1 = q;
        while (q < line.size() && line[q] == '/')
            ++q;
        const std::size_t t0 = q;
        while (q < line.size() && isDigit(line[q]))
            ++q;
        if (q >= line.size() || !isSpace(line[q]))
            continue;
        int64_t a = 0, b = 0;
        if (!parseInt(line.substr(d0, d1 - d0), a))
            continue;
        if (q > t0 && parseInt(line.substr(t0, q - t0), b) && b != 0) {
            h.pid = a;
            h.tid = b;
        } else {
            h.pid = -1;
            h.tid = a;
        }
        h.comm = line.substr(0, p);
        return true;
    }
    return false;
}

/// The Perl script's `/:\s*(\d+)*\s+(\S+):\s*$/`: the line ends with "EVENT:", preceded by an optional
/// period, preceded by a ':' (the timestamp's).
inline void parseEventAndPeriod(std::string_view line, Header& h) {
    line = rtrim(line);
    if (line.size() < 2 || line.back() != ':')
        return;
    std::size_t b = line.size() - 1;
    while (b > 0 && !isSpace(line[b - 1]))
        --b;
    if (b == 0 || b == line.size() - 1)
        return;
    const std::string_view event = line.substr(b, line.size() - 1 - b);
    std::string_view before = rtrim(line.substr(0, b));
    std::size_t d = before.size();
    while (d > 0 && isDigit(before[d - 1]))
        --d;
    const std::string_view digits = before.substr(d);
    if (!digits.empty() && d == before.size() - digits.size()) {
        const std::string_view rest = rtrim(before.substr(0, d));
        if (rest.empty() || rest.back() != ':')
            return;
        int64_t period = 0;
        if (!parseInt(digits, period))
            period = INT64_MAX / 4; // absurd period: clamp rather than overflow
        h.period = period;
    } else if (before.empty() || before.back() != ':') {
        return;
    }
    h.event = event;
}

inline bool parseHeader(std::string_view line, Header& h, bool switches) {
    if (!parseCommAndIds(line, h))
        return false;
    parseEventAndPeriod(line, h);
    if (switches && h.event.empty() && h.hasTime && !parseSchedSwitch(line, h)) {
        const std::size_t at = line.find(": PERF_RECORD_SWITCH");
        if (at != std::string_view::npos) {
            h.switchRecord = true;
            std::string_view rest = line.substr(at + 20);
            rest.remove_prefix(std::min(rest.find(' '), rest.size()));
            h.switchIn = ltrim(rest).starts_with("IN");
        }
    }
    return true;
}

/// isSpace / isWordChar by table for scanAddress, which runs on every frame line: one load per byte instead
/// of a chain of compares (the profile's largest single item after the line splitting).
enum : uint8_t { kBlank = 1, kWord = 2 };
inline constexpr std::array<uint8_t, 256> kAddressClass = [] {
    std::array<uint8_t, 256> t{}; // the classes of isSpace and isWordChar (util/textutil.h)
    for (const unsigned char c : {' ', '\t', '\r', '\n', '\f', '\v'})
        t[c] = kBlank;
    for (unsigned char c = '0'; c <= '9'; ++c)
        t[c] = kWord;
    for (unsigned char c = 'a'; c <= 'z'; ++c)
        t[c] = t[c - 'a' + 'A'] = kWord;
    t['_'] = kWord;
    return t;
}();

/// The start of a frame line: blanks, the address (`\w+`), blanks. False when there is no address.
inline bool scanAddress(std::string_view line, std::size_t& pc0, std::size_t& pc1, std::size_t& rest) {
    const auto is = [&](std::size_t i, uint8_t c) {
        return kAddressClass[static_cast<unsigned char>(line[i])] == c;
    };
    std::size_t i = 0;
    while (i < line.size() && is(i, kBlank))
        ++i;
    pc0 = i;
    while (i < line.size() && is(i, kWord))
        ++i;
    if (i == pc0)
        return false;
    pc1 = i;
    while (i < line.size() && is(i, kBlank))
        ++i;
    rest = i;
    return true;
}

/// `^\s*(\w+)\s*(.+) \((.*)\)`: address, symbol (greedy, up to the last " (" that has a ')' after it),
/// module (up to the last ')').
inline bool parseFrameLine(std::string_view line, std::string_view& pc, std::string_view& sym,
                           std::string_view& mod) {
    std::size_t pc0, pc1, i;
    if (!scanAddress(line, pc0, pc1, i))
        return false;
    const std::size_t close = line.rfind(')');
    if (close == std::string_view::npos || close < pc1)
        return false;
    const std::size_t open = line.rfind(" (", close);
    if (open == std::string_view::npos || open < pc0 + 1)
        return false;
    std::size_t symBegin = i;
    std::size_t pcEnd = pc1;
    if (symBegin >= open) { // the symbol must not be empty: the regex backtracks into the spaces/address
        symBegin = open - 1;
        pcEnd = std::min(pc1, symBegin);
        if (pcEnd <= pc0)
            return false;
    }
    pc = line.substr(pc0, pcEnd - pc0);
    sym = line.substr(symBegin, open - symBegin);
    mod = line.substr(open + 2, close - open - 2);
    return true;
}

inline bool isKernelModule(std::string_view mod) {
    return (mod.starts_with('[') || mod.ends_with("vmlinux")) &&
           mod.find("unknown") == std::string_view::npos;
}

inline bool isJitModule(std::string_view mod) {
    for (std::size_t p = mod.find("/tmp/perf-"); p != std::string_view::npos;
         p = mod.find("/tmp/perf-", p + 1)) {
        std::size_t q = p + 10;
        const std::size_t d = q;
        while (q < mod.size() && isDigit(mod[q]))
            ++q;
        if (q > d && mod.substr(q, 4) == ".map")
            return true;
    }
    return false;
}

/// stackcollapse-perf.pl's name clean-up of one (already split) function name.
inline std::string tidyName(std::string_view func, bool java) {
    std::string out(func);
    for (char& c : out)
        if (c == ';')
            c = ':';
    const std::size_t goDot = out.find(".(");
    const bool goMethod =
        goDot != std::string::npos && out.rfind(").") != std::string::npos && out.rfind(").") >= goDot + 2;
    if (!goMethod) {
        for (std::size_t p = out.find('('); p != std::string::npos; p = out.find('(', p + 1)) {
            if (out.compare(p + 1, 20, "anonymous namespace)") != 0) {
                out.resize(p);
                break;
            }
        }
    }
    std::erase(out, '"');
    std::erase(out, '\'');
    if (java && !out.empty() && out[0] == 'L' && out.find('/') != std::string::npos)
        out.erase(0, 1);
    return out;
}

} // namespace scorch::detail::perfscript
