// Short display names of functions: C++ template argument lists and parameter lists folded to "<…>" and
// "(…)", so that the part that tells functions apart (the class and the method) stays readable in narrow
// chart labels, breadcrumbs and table cells. The full name stays in tooltips and copies.
#pragma once

#include <string>
#include <string_view>

namespace scorch {

/// `std::__detail::_Executor<char const*, std::allocator<…>, true>::_M_dfs(_Match_mode, long)` ->
/// `std::__detail::_Executor<…>::_M_dfs(…)`. Empty lists stay ("f()", "A<>"); operator names
/// (`operator<<`, `operator()`, `operator->*`), `(anonymous namespace)` and lambda/clone suffixes are kept
/// as they are. Names that are not C++-like (unbalanced brackets, paths, addresses) come back unchanged.
std::string shortenName(std::string_view name);

} // namespace scorch
