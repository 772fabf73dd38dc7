// Internal: a shared library opened on first use (dlopen), for dependencies that only some commands need
// (capstone, libdebuginfod): linked, they would be loaded and relocated by every start of `scorch`.
#pragma once

#include <dlfcn.h>

#include <string>
#include <type_traits>

namespace scorch::detail {

/// Opens `soname` for the life of the process (never closed: its functions stay callable).
class DynamicLibrary {
public:
    explicit DynamicLibrary(const char* soname)
        : m_soname(soname)
        , m_handle(::dlopen(soname, RTLD_NOW | RTLD_LOCAL)) {
        if (!m_handle) {
            const char* why = ::dlerror();
            m_error = why ? why : std::string(soname) + ": cannot be opened";
        }
    }
    explicit operator bool() const { return m_handle != nullptr; }
    /// Why it could not be opened, or which function it lacks.
    const std::string& error() const { return m_error; }

    /// Looks up `name` into the function pointer `f`; false (and error() says so) when it is missing.
    template <typename F>
    bool get(F& f, const char* name) {
        static_assert(std::is_pointer_v<F>);
        f = m_handle ? reinterpret_cast<F>(::dlsym(m_handle, name)) : nullptr;
        if (!f && m_handle && m_error.empty())
            m_error = m_soname + " lacks " + name;
        return f != nullptr;
    }

private:
    std::string m_soname;
    void* m_handle;
    std::string m_error;
};

} // namespace scorch::detail
