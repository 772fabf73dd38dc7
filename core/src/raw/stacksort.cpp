// sortStackKeys(): see stacksort.h.
#include "raw/stacksort.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <vector>

namespace scorch::detail {

namespace {

/// A run of stacks still to sort, all with the same keys in [0, depth).
template <typename R>
struct Run {
    BasicStackKey<R>* a;
    std::size_t n, depth;
};

/// How far the frame references a[from, m) and b[from, m) agree, from `from` on: the same reference, or two
/// with the same key[reference]. Stacks that share a prefix mostly hold the same references there, whose keys
/// are then not looked up.
template <typename R>
std::size_t agreeFrom(const R* a, const R* b, std::size_t from, std::size_t m, const uint32_t* key) {
    std::size_t d = from;
    for (; d < m; ++d) {
        const uint32_t x = a[d], y = b[d];
        if (x != y && key[x] != key[y])
            break;
    }
    return d;
}

/// Runs of fewer stacks are sorted by comparisons.
constexpr std::size_t kSmallRun = 16;

/// Where a stack leaves the pivot's path in splitRun().
enum Side : uint8_t { kLess, kEqual, kMore };

/// What splitRun() writes per stack: one element per stack of the whole sort, so that the disjoint runs of
/// two threads use disjoint parts.
template <typename R>
struct Scratch {
    const BasicStackKey<R>* base;
    std::unique_ptr<BasicStackKey<R>[]> moved;
    std::unique_ptr<uint32_t[]> shared; ///< keys in common with the pivot past the run's depth
    std::unique_ptr<Side[]> side;
    /// Per position of the sorted order, if asked for: the keys in common with the stack before. A split
    /// writes it where its parts meet (the stacks of a part all leave the pivot's path at the same depth and
    /// to the same side, so the stacks next to each other there share as many keys whichever they become),
    /// the sort of a part inside the part: each position once.
    uint32_t* prefix;
};

/// Whether stack x sorts before y, both with the same keys in [0, depth) and their keys at `depth` kept in
/// `next`.
template <typename R>
bool lessFrom(const BasicStackKey<R>& x, const BasicStackKey<R>& y, std::size_t depth,
              const uint32_t* refKey) {
    if (x.next != y.next || x.next == 0)
        return x.next < y.next;
    const std::size_t m = std::min(x.size, y.size);
    const std::size_t i = agreeFrom(x.path, y.path, depth + 1, m, refKey);
    return i < m ? refKey[x.path[i]] < refKey[y.path[i]] : x.size < y.size;
}

/// Splits run `r` by how far each stack goes along the path of a pivot stack, and to which side it leaves
/// it, appending the parts still to sort to `parts`. A stack that leaves it at depth L below the pivot comes
/// before all that leave it deeper below (its key at L is smaller than theirs, the pivot's), and one that
/// leaves it above comes after all that leave it deeper above: the parts are the stacks leaving at each
/// depth below, ascending, those equal to the pivot throughout, and those leaving at each depth above,
/// descending; the stacks of a part have the same keys up to where they leave. So each stack's keys are
/// read once in a row (against the pivot's, mostly the same references: no key looked up), instead of one
/// pass over the run per depth for the long prefixes stacks share. Each stack's key at its part's depth is
/// kept in its `next`.
template <typename R>
void splitRun(const Run<R>& r, const uint32_t* refKey, Scratch<R>& s, std::vector<uint32_t>& counts,
              std::vector<Run<R>>& parts) {
    BasicStackKey<R>* const a = r.a;
    const std::size_t n = r.n, depth = r.depth, at = static_cast<std::size_t>(a - s.base);
    const BasicStackKey<R> pivot = a[n / 2];
    uint32_t* const shared = s.shared.get() + at;
    Side* const side = s.side.get() + at;
    std::size_t deepest = 0;
    for (std::size_t i = 0; i < n; ++i) {
        BasicStackKey<R>& x = a[i];
        // a stack whose key at `depth` differs from the pivot's leaves its path there: told by the key kept
        // from the split before, without reading the stack's frames (half of all on fp-large)
        if (x.next != pivot.next || pivot.next == 0) {
            side[i] = x.next < pivot.next ? kLess : x.next > pivot.next ? kMore : kEqual;
            shared[i] = 0;
            continue;
        }
        for (std::size_t k = i + 8; k < std::min(n, i + 16); ++k)
            if (a[k].next == pivot.next) {
                __builtin_prefetch(a[k].path + depth + 1);
                break;
            }
        const std::size_t m = std::min(x.size, pivot.size);
        const std::size_t d = agreeFrom(x.path, pivot.path, depth + 1, m, refKey);
        x.next = d < x.size ? refKey[x.path[d]] + 1 : 0;
        const uint32_t pivotNext = d < pivot.size ? refKey[pivot.path[d]] + 1 : 0;
        side[i] = x.next < pivotNext ? kLess : x.next > pivotNext ? kMore : kEqual;
        shared[i] = static_cast<uint32_t>(d - depth);
        deepest = std::max(deepest, d - depth);
    }
    // part of a stack: below at depth + L is part L, equal is deepest + 1, above at depth + L is 2 deepest +
    // 2 - L
    const std::size_t equalPart = deepest + 1, partCount = 2 * deepest + 3;
    const auto partOf = [&](std::size_t i) {
        return side[i] == kLess ? shared[i] : side[i] == kEqual ? equalPart : partCount - 1 - shared[i];
    };
    // how far past `depth` the stacks of part p go along the pivot's path (the equal part: all of it)
    const auto leaveOf = [&](std::size_t p) {
        return p < equalPart ? p : p == equalPart ? pivot.size - depth : partCount - 1 - p;
    };
    counts.assign(partCount + 1, 0);
    for (std::size_t i = 0; i < n; ++i)
        ++counts[partOf(i) + 1];
    for (std::size_t p = 0; p < partCount; ++p)
        counts[p + 1] += counts[p];
    for (std::size_t p = 0; p < partCount; ++p) {
        const std::size_t size = counts[p + 1] - counts[p];
        if (size < 2 || p == equalPart)
            continue;
        parts.push_back({a + counts[p], size, depth + leaveOf(p)});
    }
    if (s.prefix) {
        // where two parts meet, the stacks share the keys up to where the first of the two parts leaves the
        // pivot's path (the equal part: the whole pivot); inside the equal part, all keys
        uint32_t* const prefix = s.prefix + at;
        std::size_t before = SIZE_MAX; // the last non-empty part's depth of leaving, past `depth`
        for (std::size_t p = 0; p < partCount; ++p) {
            if (counts[p + 1] == counts[p])
                continue;
            const std::size_t leave = leaveOf(p);
            if (before != SIZE_MAX)
                prefix[counts[p]] = static_cast<uint32_t>(depth + std::min(before, leave));
            if (p == equalPart)
                for (std::size_t i = counts[p] + 1; i < counts[p + 1]; ++i)
                    prefix[i] = pivot.size;
            before = leave;
        }
    }
    BasicStackKey<R>* const moved = s.moved.get() + at;
    for (std::size_t i = 0; i < n; ++i)
        moved[counts[partOf(i)]++] = a[i];
    std::memcpy(a, moved, n * sizeof(BasicStackKey<R>));
}

/// Sorts a small run by comparisons (and, if asked, counts the keys each stack shares with the one before).
template <typename R>
void sortSmallRun(const Run<R>& r, const uint32_t* refKey, Scratch<R>& s) {
    std::sort(r.a, r.a + r.n, [&](const BasicStackKey<R>& x, const BasicStackKey<R>& y) {
        return lessFrom(x, y, r.depth, refKey);
    });
    if (!s.prefix)
        return;
    uint32_t* const prefix = s.prefix + (r.a - s.base);
    for (std::size_t i = 1; i < r.n; ++i) {
        const BasicStackKey<R>&x = r.a[i - 1], &y = r.a[i];
        prefix[i] =
            static_cast<uint32_t>(agreeFrom(x.path, y.path, r.depth, std::min(x.size, y.size), refKey));
    }
}

/// Sorts run `r` and the parts it splits into.
template <typename R>
void sortRun(const Run<R>& r, const uint32_t* refKey, Scratch<R>& s, std::vector<uint32_t>& counts,
             std::vector<Run<R>>& todo) {
    todo.assign(1, r);
    while (!todo.empty()) {
        const Run<R> next = todo.back();
        todo.pop_back();
        if (next.n < kSmallRun)
            sortSmallRun(next, refKey, s);
        else
            splitRun(next, refKey, s, counts, todo);
    }
}

/// sortRun() on two threads. The runs still to sort are in a pool both threads take the largest from: a
/// run of more than 1/64 of the stacks is split (its parts go back into the pool), a smaller one is sorted
/// whole. The runs are disjoint and in order: sorted each, all are. (Work grows with a run's stacks times
/// their shared depth, so dealing out the runs by count left one thread with three quarters of it on
/// fp-large.)
template <typename R>
void sortOnTwoThreads(const Run<R>& whole, const uint32_t* refKey, Scratch<R>& s) {
    const std::size_t grain = std::max<std::size_t>(whole.n / 64, 1024);
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<Run<R>> pool{whole};
    int busy = 0;               // threads splitting or sorting a run
    std::exception_ptr failure; // the first thread's exception (then both stop)
    const auto work = [&] {
        std::vector<uint32_t> counts;
        std::vector<Run<R>> parts;
        std::unique_lock lock(mutex);
        for (;;) {
            changed.wait(lock, [&] { return failure || !pool.empty() || busy == 0; });
            if (failure || pool.empty())
                return; // failed, or nothing left and nobody making more
            const auto largest = std::max_element(pool.begin(), pool.end(),
                                                  [](const Run<R>& x, const Run<R>& y) { return x.n < y.n; });
            const Run<R> r = *largest;
            pool.erase(largest);
            ++busy;
            lock.unlock();
            try {
                parts.clear();
                if (r.n > grain)
                    splitRun(r, refKey, s, counts, parts);
                else
                    sortRun(r, refKey, s, counts, parts);
                lock.lock();
                pool.insert(pool.end(), parts.begin(), parts.end());
            } catch (...) {
                if (!lock.owns_lock())
                    lock.lock();
                if (!failure)
                    failure = std::current_exception();
            }
            --busy;
            changed.notify_all();
        }
    };
    auto other = std::async(std::launch::async, work);
    work();
    other.get();
    if (failure)
        std::rethrow_exception(failure);
}

template <typename R>
void sortKeys(std::span<BasicStackKey<R>> keys, const uint32_t* refKey, bool twoThreads, uint32_t* shared) {
    if (shared && !keys.empty())
        shared[0] = 0;
    if (keys.size() < 2)
        return;
    Scratch<R> s{keys.data(), std::make_unique_for_overwrite<BasicStackKey<R>[]>(keys.size()),
                 std::make_unique_for_overwrite<uint32_t[]>(keys.size()),
                 std::make_unique_for_overwrite<Side[]>(keys.size()), shared};
    for (BasicStackKey<R>& k : keys)
        k.next = k.size ? refKey[k.path[0]] + 1 : 0;
    const Run<R> whole{keys.data(), keys.size(), 0};
    if (twoThreads) {
        sortOnTwoThreads(whole, refKey, s);
    } else {
        std::vector<uint32_t> counts;
        std::vector<Run<R>> todo;
        sortRun(whole, refKey, s, counts, todo);
    }
}

} // namespace

void sortStackKeys(std::span<StackKey> keys, const uint32_t* refKey, bool twoThreads, uint32_t* shared) {
    sortKeys(keys, refKey, twoThreads, shared);
}

void sortStackKeys(std::span<BasicStackKey<Ref24>> keys, const uint32_t* refKey, bool twoThreads,
                   uint32_t* shared) {
    sortKeys(keys, refKey, twoThreads, shared);
}

} // namespace scorch::detail
