// Queries over the sample store: a time range and thread subset re-aggregated into a call tree, activity per
// time bucket, and when a function was on the stack.
#include "scorch/samples.h"

#include "samples/slicedetails.h"
#include "samples/slicetree.h"

#include "util/hugepages.h"
#include "util/phasetimer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <future>
#include <limits>
#include <stdexcept>
#include <thread>

namespace scorch {

namespace {

/// From this many samples on, a slice's line and instruction costs are summed on another thread (they cost
/// a pass over arrays as large as the profile's stacks even for a few samples: 2 ms for 1% of fp-large).
constexpr std::size_t kDetailsAside = 2000;

/// [first, last) sample indexes of a time range.
std::pair<std::size_t, std::size_t> sampleRange(const SampleStore& store, TimeRange range) {
    if (range.end <= range.begin)
        return {0, 0};
    return {store.lowerBound(range.begin), store.lowerBound(range.end)};
}

/// Bucket b of `buckets` over the range holds times t with floor((t - begin) * buckets / length) == b; its
/// first time is begin + ceil(b * length / buckets).
int64_t bucketStart(TimeRange range, std::size_t buckets, std::size_t b) {
    const __int128_t length = static_cast<__int128_t>(range.end) - range.begin;
    const __int128_t num = length * static_cast<__int128_t>(b);
    const auto n = static_cast<__int128_t>(buckets);
    return static_cast<int64_t>(range.begin + (num + n - 1) / n);
}
std::size_t bucketOf(TimeRange range, std::size_t buckets, int64_t t) {
    const __int128_t length = static_cast<__int128_t>(range.end) - range.begin;
    return static_cast<std::size_t>((static_cast<__int128_t>(t) - range.begin) *
                                    static_cast<__int128_t>(buckets) / length);
}

std::vector<uint32_t> threadList(const SampleStore& store, std::span<const uint32_t> threads) {
    if (!threads.empty())
        return {threads.begin(), threads.end()};
    std::vector<uint32_t> all(store.threadCount());
    for (uint32_t t = 0; t < all.size(); ++t)
        all[t] = t;
    return all;
}

/// The per-function costs a slice tree was made with, in the order of each function's first node (as
/// functionCosts() gives them).
std::vector<FunctionCost> functionsOf(const detail::FrameSums& sums, std::size_t types) {
    std::vector<uint32_t> frames;
    for (uint32_t f = 0; f < sums.callSites.size(); ++f)
        if (sums.callSites[f] > 0)
            frames.push_back(f);
    std::sort(frames.begin(), frames.end(),
              [&](uint32_t a, uint32_t b) { return sums.firstNode[a] < sums.firstNode[b]; });
    std::vector<FunctionCost> out;
    out.reserve(frames.size());
    for (const uint32_t f : frames) {
        FunctionCost& fc = out.emplace_back();
        fc.frame = FrameId{f};
        fc.callSites = sums.callSites[f];
        for (std::size_t t = 0; t < types; ++t) {
            fc.self.push_back(sums.self[t][f]);
            fc.total.push_back(sums.total[t][f]);
        }
    }
    return out;
}

} // namespace

bool hasSliceDetails(const Profile& profile) {
    return profile.samples && profile.samples->hasStacks() && !profile.stacks.empty() &&
           profile.stacks.linesFirst.size() == profile.stacks.size() + 1;
}

std::optional<TimeSlice> sliceSamples(const Profile& profile, const SliceRequest& request) {
    if (!profile.samples)
        throw std::invalid_argument("the profile has no per-sample times");
    const SampleStore& store = *profile.samples;
    const CallTree& tree = profile.tree;
    const std::size_t threadCount = std::max(profile.threads.size(), store.threadCount());
    const std::size_t types = tree.costTypeCount();
    const auto [first, last] = sampleRange(store, request.range);
    // the stretches of samples taken: the range, or what lies before and after it
    std::pair<std::size_t, std::size_t> parts[2] = {{first, last}, {0, 0}};
    if (request.outside)
        parts[0] = {0, first}, parts[1] = {last, store.size()};

    std::vector<char> wanted;
    if (!request.threads.empty()) {
        wanted.assign(threadCount, 0);
        for (uint32_t t : request.threads)
            if (t < threadCount)
                wanted[t] = 1;
    }
    const int threadBits = std::max(1, static_cast<int>(std::bit_width(threadCount)));
    const int nodeBits = std::max(1, static_cast<int>(std::bit_width(tree.size())));

    // calls f(sample index) for the samples of the range and threads, in time order; false when cancelled
    const auto forEachSample = [&](auto&& f) {
        for (const auto& [from, to] : parts) {
            for (std::size_t i = from; i < to; ++i) {
                if ((i & 0xffff) == 0 && cancelRequested(request.cancel))
                    return false;
                if (const uint32_t t = store.thread(i); wanted.empty() || (t < wanted.size() && wanted[t]))
                    f(i);
            }
        }
        return true;
    };
    const std::size_t count = parts[0].second - parts[0].first + parts[1].second - parts[1].first;
    // other threads for a large slice (or when asked for): their start costs more than a small one takes
    const unsigned cores = request.cores ? request.cores : std::max(1u, std::thread::hardware_concurrency());
    const auto aside = [&](std::size_t size, std::size_t from) {
        return cores > 1 && (request.cores || size >= from);
    };

    TimeSlice out;
    // the line and instruction costs, beside the tree on another core when there are many samples
    TimeSlice details;
    detail::trace("slice: start");
    const bool withDetails = request.details && hasSliceDetails(profile);
    const auto detailsJob = [&] {
        return detail::sliceDetails(profile, forEachSample, count, details, request.cancel);
    };
    std::future<bool> detailsAhead;
    if (withDetails && aside(count, kDetailsAside))
        detailsAhead = std::async(std::launch::async, detailsJob);
    // waits for the details; false when they were cancelled
    const auto finishDetails = [&] {
        const bool done = detailsAhead.valid() ? detailsAhead.get() : withDetails ? detailsJob() : true;
        if (done && withDetails) {
            out.hasDetails = true;
            out.lineCosts = std::move(details.lineCosts);
            out.addressCosts = std::move(details.addressCosts);
        }
        return done;
    };

    out.threadSamples.assign(threadCount, 0);
    // the samples of the range and threads, keyed by (leaf node, thread), each with its index: in one word
    // where both fit
    const int keyBits = nodeBits + threadBits;
    const int sampleBits = static_cast<int>(std::bit_width(store.size()));
    const bool packed = !request.wideItems && keyBits + sampleBits <= 64;
    // the samples collected, then the tree, its shape and each node's self and total costs worked out
    // together, in arrays of the memory's where there are; false when cancelled
    std::unique_ptr<detail::SliceBuffers> buffers = request.memory ? request.memory->take() : nullptr;
    if (!buffers)
        buffers = std::make_unique<detail::SliceBuffers>();
    const auto build = [&]<typename Item>(auto item) {
        std::vector<Item>& items = buffers->items<Item>();
        items.clear();
        if (count > items.capacity()) // (one of a series: room for all the samples, see roomForAll)
            detail::reserveHuge(items, request.memory ? std::max(count, store.size()) : count);
        detail::populate(items.data(), count * sizeof(Item));
        if (!forEachSample([&](std::size_t i) {
                const uint32_t t = store.thread(i);
                const NodeId n = store.node(i) < tree.size() ? store.node(i) : kRootNode;
                items.push_back(item(static_cast<uint64_t>(n) << threadBits | t, i));
                ++out.threadSamples[t];
            }))
            return false;
        out.samples = items.size();
        detail::trace("slice: samples collected");
        return detail::buildSliceTree<Item>({tree, store, types, *buffers, threadBits, keyBits,
                                             packed ? sampleBits : 0, cores, request.cores != 0,
                                             request.cancel, request.functions, profile.frames.size(),
                                             detailsAhead.valid(), request.memory != nullptr});
    };
    const bool made = packed ? build.operator()<detail::PackedSliceItem>(
                                   [&](uint64_t key, std::size_t i) { return key << sampleBits | i; })
                             : build.operator()<detail::SliceItem>([](uint64_t key, std::size_t i) {
                                   return detail::SliceItem{key, static_cast<uint32_t>(i)};
                               });
    if (made) { // (the tree's arrays go with the slice, its working arrays back to the memory)
        detail::SliceTree& built = buffers->tree;
        out.threadCosts = std::move(built.entries);
        out.sourceNode = std::move(built.source);
        out.tree = CallTree::fromShape(std::move(built.shape), std::move(built.self));
        if (request.functions)
            out.functions = functionsOf(built.functions, types);
        // (the totals, which the tree works out from the self costs, stay with the working arrays)
        std::vector<std::vector<int64_t>> totals = std::move(built.total);
        built = {};
        built.total = std::move(totals);
    }
    if (request.memory)
        request.memory->keep(std::move(buffers));
    buffers.reset();
    if (!made)
        return std::nullopt; // (a future of std::async waits for its job when destroyed)
    detail::trace("slice: tree walked");
    if (cancelRequested(request.cancel))
        return std::nullopt;
    if (!finishDetails())
        return std::nullopt;
    detail::trace("slice: done");
    return out;
}

TimeSlice sliceThreads(const Profile& profile, std::span<const uint32_t> threads) {
    const CallTree& tree = profile.tree;
    const ThreadCosts& costs = profile.threadCosts;
    const std::size_t threadCount = profile.threads.size();
    const std::size_t types = tree.costTypeCount();
    std::vector<char> wanted(threadCount, threads.empty() ? 1 : 0);
    for (const uint32_t t : threads)
        if (t < threadCount)
            wanted[t] = 1;
    auto chosen = [&](std::size_t entry) {
        const uint32_t t = costs.thread[entry];
        return t < threadCount && wanted[t] && costs.node[entry] < tree.size();
    };
    // the nodes a chosen thread has cost in, and their ancestors
    std::vector<char> keep(tree.size(), 0);
    keep[kRootNode] = 1;
    for (std::size_t e = 0; e < costs.node.size(); ++e)
        if (chosen(e))
            for (NodeId n = costs.node[e]; !keep[n]; n = tree.parent(n))
                keep[n] = 1;
    // renumbered in preorder (dropping whole subtrees keeps it)
    TimeSlice out;
    std::vector<NodeId> newId(tree.size(), kRootNode), parent;
    std::vector<FrameId> frame;
    for (NodeId n = 0; n < tree.size(); ++n) {
        if (!keep[n])
            continue;
        newId[n] = static_cast<NodeId>(out.sourceNode.size());
        parent.push_back(n == kRootNode ? kRootNode : newId[tree.parent(n)]);
        frame.push_back(tree.frame(n));
        out.sourceNode.push_back(n);
    }
    std::vector<std::vector<int64_t>> self(types, std::vector<int64_t>(out.sourceNode.size(), 0));
    out.threadCosts.cost.assign(types, {});
    for (std::size_t e = 0; e < costs.node.size(); ++e) {
        if (!chosen(e))
            continue;
        const NodeId n = newId[costs.node[e]];
        out.threadCosts.thread.push_back(costs.thread[e]);
        out.threadCosts.node.push_back(n);
        for (std::size_t t = 0; t < types; ++t) {
            const int64_t v = t < costs.cost.size() ? costs.cost[t][e] : 0;
            out.threadCosts.cost[t].push_back(v);
            addCost(self[t][n], v);
        }
    }
    out.threadSamples.assign(threadCount, 0);
    for (std::size_t t = 0; t < threadCount; ++t)
        if (wanted[t]) {
            out.threadSamples[t] = profile.threads[t].samples;
            out.samples += profile.threads[t].samples;
        }
    if (!CallTree::fromPreorder(std::move(parent), std::move(frame), self, out.tree))
        throw std::logic_error("thread slice: nodes out of preorder");
    return out;
}

Profile sliceProfile(const Profile& profile, TimeSlice slice) {
    Profile p;
    p.meta = profile.meta;
    p.meta.samples = slice.samples;
    p.strings = profile.strings.copy();
    p.frames = profile.frames;
    p.costTypes = profile.costTypes;
    p.threads = profile.threads;
    for (std::size_t t = 0; t < p.threads.size(); ++t)
        p.threads[t].samples = t < slice.threadSamples.size() ? slice.threadSamples[t] : 0;
    p.tree = std::move(slice.tree);
    p.functions = std::move(slice.functions);
    p.threadCosts = std::move(slice.threadCosts);
    if (slice.hasDetails) {
        p.lineCosts = std::move(slice.lineCosts);
        p.addressCosts = std::move(slice.addressCosts);
    }
    return p;
}

std::shared_ptr<const Profile> sliceProfile(const Profile& profile, TimeSlice slice,
                                            std::shared_ptr<SliceMemory> memory) {
    std::vector<NodeId> source = std::move(slice.sourceNode);
    auto sliced =
        std::shared_ptr<Profile>(new Profile(sliceProfile(profile, std::move(slice))), [memory](Profile* p) {
            if (memory)
                memory->recycle(std::move(*p));
            delete p;
        });
    if (memory) {
        TimeSlice rest;
        rest.sourceNode = std::move(source);
        memory->recycle(std::move(rest));
    }
    return sliced;
}

SliceMemory::SliceMemory() = default;
SliceMemory::~SliceMemory() = default;

namespace {
/// Keeps the larger of `kept` and `given` in `kept` (the other in `given`, to be freed).
template <typename T>
void keepLarger(std::vector<T>& kept, std::vector<T>& given) {
    if (given.capacity() > kept.capacity())
        kept.swap(given);
}
void keepLarger(std::vector<std::vector<int64_t>>& kept, std::vector<std::vector<int64_t>>& given) {
    if (kept.size() < given.size())
        kept.resize(given.size());
    for (std::size_t t = 0; t < given.size(); ++t)
        keepLarger(kept[t], given[t]);
}
/// Calls f(x, y) for each array x of `a` and the same array y of `b`.
template <typename Buffers, typename F>
void forEachArray(Buffers& a, Buffers& b, F&& f) {
    f(a.tree.shape.parent, b.tree.shape.parent);
    f(a.tree.shape.end, b.tree.shape.end);
    f(a.tree.shape.depth, b.tree.shape.depth);
    f(a.tree.shape.frame, b.tree.shape.frame);
    f(a.tree.source, b.tree.source);
    f(a.tree.self, b.tree.self);
    f(a.tree.total, b.tree.total);
    f(a.tree.entries.thread, b.tree.entries.thread);
    f(a.tree.entries.node, b.tree.entries.node);
    f(a.tree.entries.cost, b.tree.entries.cost);
    f(a.packed, b.packed);
    f(a.packedSorting, b.packedSorting);
    f(a.wide, b.wide);
    f(a.wideSorting, b.wideSorting);
    f(a.outer, b.outer);
    f(a.bits, b.bits);
    f(a.before, b.before);
}
template <typename T>
void releaseArray(std::vector<T>& v) {
    detail::freeLazily(v.data(), v.capacity() * sizeof(T));
}
void releaseArray(std::vector<std::vector<int64_t>>& v) {
    for (auto& c : v)
        releaseArray(c);
}
template <typename T>
std::size_t capacityBytes(const std::vector<T>& v) {
    return v.capacity() * sizeof(T);
}
std::size_t capacityBytes(const std::vector<std::vector<int64_t>>& v) {
    std::size_t n = 0;
    for (const auto& c : v)
        n += capacityBytes(c);
    return n;
}
} // namespace

void SliceMemory::keep(std::unique_ptr<detail::SliceBuffers> buffers) {
    if (!buffers)
        return;
    std::lock_guard lock(m_mutex);
    if (!m_buffers)
        m_buffers = std::move(buffers);
    else
        forEachArray(*m_buffers, *buffers, [](auto& kept, auto& given) { keepLarger(kept, given); });
    // (what was not kept is freed by `buffers` after the lock is released)
}

std::unique_ptr<detail::SliceBuffers> SliceMemory::take() {
    std::lock_guard lock(m_mutex);
    return std::move(m_buffers);
}

void SliceMemory::recycle(TimeSlice&& slice) {
    auto buffers = std::make_unique<detail::SliceBuffers>();
    detail::SliceTree& t = buffers->tree;
    CallTree::release(std::move(slice.tree), t.shape, t.self);
    t.source = std::move(slice.sourceNode);
    t.entries = std::move(slice.threadCosts);
    keep(std::move(buffers));
}

void SliceMemory::recycle(Profile&& slice) {
    TimeSlice s;
    s.tree = std::move(slice.tree);
    s.threadCosts = std::move(slice.threadCosts);
    recycle(std::move(s));
}

void SliceMemory::clear() {
    std::unique_ptr<detail::SliceBuffers> freed = take();
}

void SliceMemory::release() {
    std::lock_guard lock(m_mutex);
    if (!m_buffers)
        return;
    forEachArray(*m_buffers, *m_buffers, [](auto& x, const auto&) { releaseArray(x); });
}

bool SliceMemory::prepare(const Profile& profile, const std::atomic<bool>* cancel) {
    if (!profile.samples || profile.samples->size() == 0)
        return false;
    SliceRequest request;
    request.range = {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
    request.cancel = cancel;
    request.functions = true; // (as the window's slices: their arrays too)
    request.cores = 1;
    request.memory = this;
    std::optional<TimeSlice> slice = sliceSamples(profile, request);
    if (slice)
        recycle(std::move(*slice));
    release();
    return slice.has_value();
}

std::size_t SliceMemory::preparedBytes(const Profile& profile) {
    const std::size_t samples = profile.samples ? profile.samples->size() : 0;
    return profile.tree.size() * (20 + 16 * profile.costTypes.size()) + samples * 16;
}

std::size_t SliceMemory::bytes() const {
    std::lock_guard lock(m_mutex);
    if (!m_buffers)
        return 0;
    std::size_t n = 0;
    forEachArray(*m_buffers, *m_buffers, [&n](const auto& x, const auto&) { n += capacityBytes(x); });
    return n;
}

std::vector<std::vector<uint32_t>> activitySeries(const SampleStore& store, TimeRange range,
                                                  std::size_t buckets, std::span<const uint32_t> threads) {
    const std::vector<uint32_t> list = threadList(store, threads);
    std::vector<std::vector<uint32_t>> out(list.size(), std::vector<uint32_t>(buckets, 0));
    if (buckets == 0 || range.end <= range.begin)
        return out;
    std::vector<int64_t> bounds(buckets + 1);
    for (std::size_t b = 0; b <= buckets; ++b)
        bounds[b] = b == buckets ? range.end : bucketStart(range, buckets, b);
    const std::span<const int64_t> times = store.times();
    for (std::size_t k = 0; k < list.size(); ++k) {
        const std::span<const uint32_t> mine = store.threadSamples(list[k]);
        auto before = [&](int64_t t) { // samples of the thread before time t
            return static_cast<std::size_t>(
                std::partition_point(mine.begin(), mine.end(), [&](uint32_t i) { return times[i] < t; }) -
                mine.begin());
        };
        const std::size_t lo = before(range.begin), hi = before(range.end);
        const std::size_t n = hi - lo;
        // walking n samples or searching buckets + 1 boundaries, whichever is cheaper
        if (n <= (buckets + 1) * static_cast<std::size_t>(std::bit_width(n) + 1)) {
            for (std::size_t j = lo; j < hi; ++j)
                ++out[k][bucketOf(range, buckets, times[mine[j]])];
            continue;
        }
        std::size_t prev = lo;
        for (std::size_t b = 1; b <= buckets; ++b) {
            const std::size_t next = b == buckets ? hi : before(bounds[b]);
            out[k][b - 1] = static_cast<uint32_t>(next - prev);
            prev = next;
        }
    }
    return out;
}

std::vector<std::vector<uint32_t>> onStackSeries(const Profile& profile, FrameId frame, TimeRange range,
                                                 std::size_t buckets, std::span<const uint32_t> threads) {
    if (!profile.samples)
        throw std::invalid_argument("the profile has no per-sample times");
    const SampleStore& store = *profile.samples;
    const CallTree& tree = profile.tree;
    const std::vector<uint32_t> list = threadList(store, threads);
    std::vector<std::vector<uint32_t>> out(list.size(), std::vector<uint32_t>(buckets, 0));
    if (buckets == 0 || range.end <= range.begin)
        return out;
    // the nodes under a node with that frame (outermost subtrees; nested ones are inside them)
    std::vector<uint64_t> under((tree.size() + 63) / 64, 0);
    for (NodeId n = 1; n < tree.size();) {
        if (tree.frame(n) != frame) {
            ++n;
            continue;
        }
        const NodeId end = tree.subtreeEnd(n);
        for (NodeId m = n; m < end; ++m)
            under[m >> 6] |= uint64_t{1} << (m & 63);
        n = end;
    }
    std::vector<int> slot(std::max(store.threadCount(), std::size_t{1}), -1);
    for (std::size_t k = 0; k < list.size(); ++k)
        if (list[k] < slot.size())
            slot[list[k]] = static_cast<int>(k);
    const auto [first, last] = sampleRange(store, range);
    for (std::size_t i = first; i < last; ++i) {
        const NodeId n = store.node(i);
        if (n >= tree.size() || !(under[n >> 6] >> (n & 63) & 1))
            continue;
        const uint32_t t = store.thread(i);
        if (t < slot.size() && slot[t] >= 0)
            ++out[static_cast<std::size_t>(slot[t])][bucketOf(range, buckets, store.time(i))];
    }
    return out;
}

std::vector<std::vector<uint32_t>> offCpuSeries(const Profile& profile, TimeRange range, std::size_t buckets,
                                                std::span<const uint32_t> threads) {
    const int offType = profile.costTypeIndex("off-cpu");
    if (!profile.samples || offType < 0 ||
        static_cast<std::size_t>(offType) >= profile.samples->costTypeCount())
        return {};
    const SampleStore& store = *profile.samples;
    const SampleCostColumn& off = store.cost(static_cast<std::size_t>(offType));
    const std::vector<uint32_t> list = threadList(store, threads);
    std::vector<std::vector<uint32_t>> out(list.size(), std::vector<uint32_t>(buckets, 0));
    if (buckets == 0 || range.end <= range.begin)
        return out;
    const double span = static_cast<double>(range.end - range.begin);
    const double bucketNs = span / static_cast<double>(buckets);
    std::vector<double> covered(buckets);
    for (std::size_t k = 0; k < list.size(); ++k) {
        std::fill(covered.begin(), covered.end(), 0.0);
        for (const uint32_t i : store.threadSamples(list[k])) {
            const int64_t ns = off[i];
            if (ns <= 0)
                continue;
            // the stretch [t, t + ns) clipped to the range, spread over the buckets it overlaps
            const double from =
                std::max<double>(static_cast<double>(store.time(i)), static_cast<double>(range.begin));
            const double to = std::min<double>(static_cast<double>(store.time(i)) + static_cast<double>(ns),
                                               static_cast<double>(range.end));
            if (to <= from)
                continue;
            const double a = (from - static_cast<double>(range.begin)) / bucketNs;
            const double z = (to - static_cast<double>(range.begin)) / bucketNs;
            const auto first = static_cast<std::size_t>(a);
            const std::size_t last = std::min(buckets - 1, static_cast<std::size_t>(z));
            for (std::size_t b = first; b <= last && b < buckets; ++b) {
                const double lo = std::max(a, static_cast<double>(b)),
                             hi = std::min(z, static_cast<double>(b + 1));
                if (hi > lo)
                    covered[b] += hi - lo;
            }
        }
        for (std::size_t b = 0; b < buckets; ++b)
            out[k][b] = static_cast<uint32_t>(std::lround(std::min(1.0, covered[b]) * 1000));
    }
    return out;
}

} // namespace scorch
