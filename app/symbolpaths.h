// The symbol paths set with File > Symbol Paths… (SymbolPathsDialog), kept in QSettings and applied to every
// profile opened afterwards (ProfileLoader).
#pragma once

#include "scorch/import.h"
#include "symbolpathsdialog.h"

namespace scorch {

SymbolPathsDialog::Paths loadSymbolPaths();
void saveSymbolPaths(const SymbolPathsDialog::Paths& paths);
/// `options` with the saved symbol paths added.
ImportOptions withSymbolPaths(ImportOptions options);

} // namespace scorch
