#include "scorch/procstatus.h"

#include <cstdlib>
#include <fstream>
#include <string>

namespace scorch {

std::vector<long long> procKilobytes(const char* path, std::initializer_list<std::string_view> keys) {
    std::vector<long long> out(keys.size(), -1);
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        std::size_t i = 0;
        for (std::string_view key : keys) {
            if (line.size() > key.size() && line.compare(0, key.size(), key) == 0 && line[key.size()] == ':')
                out[i] = std::strtoll(line.c_str() + key.size() + 1, nullptr, 10);
            ++i;
        }
    }
    return out;
}

long long procKilobytes(const char* path, std::string_view key) {
    return procKilobytes(path, {key}).front();
}

} // namespace scorch
