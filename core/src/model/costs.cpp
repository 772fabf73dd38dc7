#include "scorch/costs.h"

#include <cstdio>
#include <cstdlib>

namespace scorch {

std::string_view costUnitName(CostUnit unit) {
    switch (unit) {
    case CostUnit::Samples:
        return "samples";
    case CostUnit::Count:
        return "count";
    case CostUnit::Period:
        return "period";
    case CostUnit::Nanoseconds:
        return "ns";
    case CostUnit::Bytes:
        return "bytes";
    }
    return "";
}

int64_t pow10(int exponent) {
    int64_t r = 1;
    for (int i = 0; i < exponent; ++i)
        r *= 10;
    return r;
}

CostUnit periodUnit(std::string_view eventName) {
    const std::size_t end = eventName.find_first_of(":/");
    const std::string_view base = eventName.substr(0, end);
    return base == "cpu-clock" || base == "task-clock" ? CostUnit::Nanoseconds : CostUnit::Period;
}

std::string formatCostValue(int64_t value, int decimals) {
    std::string s = std::to_string(value < 0 ? -(value + 1) + 1ull : static_cast<unsigned long long>(value));
    if (decimals > 0) {
        if (s.size() <= static_cast<std::size_t>(decimals))
            s.insert(0, decimals + 1 - s.size(), '0');
        s.insert(s.size() - decimals, 1, '.');
        while (s.back() == '0')
            s.pop_back();
        if (s.back() == '.')
            s.pop_back();
    }
    if (value < 0)
        s.insert(0, 1, '-');
    return s;
}

static std::string groupThousands(unsigned long long v) {
    std::string digits = std::to_string(v), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0)
            out.push_back(',');
        out.push_back(digits[i]);
    }
    return out;
}

std::string formatCost(int64_t value, const CostType& type) {
    const double real = static_cast<double>(value) / static_cast<double>(pow10(type.decimals));
    char buf[64];
    switch (type.unit) {
    case CostUnit::Nanoseconds: {
        const double a = std::abs(real);
        if (a >= 1e9)
            std::snprintf(buf, sizeof buf, "%.4g s", real / 1e9);
        else if (a >= 1e6)
            std::snprintf(buf, sizeof buf, "%.4g ms", real / 1e6);
        else if (a >= 1e3)
            std::snprintf(buf, sizeof buf, "%.4g µs", real / 1e3);
        else
            std::snprintf(buf, sizeof buf, "%.0f ns", real);
        return buf;
    }
    case CostUnit::Bytes: {
        const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
        double v = real;
        int u = 0;
        while (std::abs(v) >= 1024 && u < 4) {
            v /= 1024;
            ++u;
        }
        std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", v, units[u]);
        return buf;
    }
    default:
        break;
    }
    std::string text;
    if (type.decimals > 0) {
        text = formatCostValue(value, type.decimals);
    } else {
        text = groupThousands(value < 0 ? 0ull - static_cast<unsigned long long>(value)
                                        : static_cast<unsigned long long>(value));
        if (value < 0)
            text.insert(0, 1, '-');
    }
    if (type.unit == CostUnit::Samples)
        text += value == pow10(type.decimals) ? " sample" : " samples";
    return text;
}

} // namespace scorch
