// Cost types: what a number in the call tree means.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace scorch {

enum class CostUnit : uint8_t {
    Samples,     ///< one per sample
    Count,       ///< a unitless count (folded stacks)
    Period,      ///< the perf event period (cycles, instructions, ns for cpu-clock, ...)
    Nanoseconds, ///< time
    Bytes,       ///< memory
};

std::string_view costUnitName(CostUnit unit);

/// The unit of a perf event's sample period: nanoseconds for the software clocks (`cpu-clock`, `task-clock`,
/// with or without modifiers such as `:pppH` or a `/.../` suffix), the plain event period otherwise.
CostUnit periodUnit(std::string_view eventName);

/// A cost of one sample: `value` of cost type `costType`.
struct CostValue {
    uint32_t costType;
    int64_t value;
};

/// One kind of cost carried by a profile. Values are signed 64-bit fixed-point numbers: the real value is
/// `value / 10^decimals` (folded files may carry decimal counts; diffs make values negative).
struct CostType {
    std::string name;
    CostUnit unit = CostUnit::Samples;
    int decimals = 0;
};

/// `value` in `type`'s fixed-point scale as text with exactly the decimals that are needed ("12", "0.5").
std::string formatCostValue(int64_t value, int decimals);

/// Human-readable cost with unit: "1,234 samples", "12.3 ms", "4.0 MiB".
std::string formatCost(int64_t value, const CostType& type);

int64_t pow10(int exponent);

/// Saturating arithmetic for costs: sums of absurd inputs clamp at the int64 limits instead of overflowing.
inline void addCost(int64_t& a, int64_t b) {
    if (__builtin_add_overflow(a, b, &a))
        a = b > 0 ? INT64_MAX : INT64_MIN;
}
/// a - b, saturating at the int64 limits (absurd inputs).
inline int64_t subCost(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
}
inline int64_t mulCost(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return (a > 0) == (b > 0) ? INT64_MAX : INT64_MIN;
    return r;
}

} // namespace scorch
