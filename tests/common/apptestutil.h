// Helpers for the tests of the application's profile tabs (main window, exporter, source view).
#pragma once

#include "flame/flamegraphpanel.h"
#include "patience.h"
#include "profiletab.h"
#include "tables/calltreetables.h"

#include <QTest>

namespace scorch::test {

/// Processes events until `tab` has loaded and its tables show the chart's current data (true), or until
/// the load failed or was cancelled, or the patience ran out (false).
inline bool waitLoaded(ProfileTab* tab) {
    const auto done = [tab] {
        return tab->state() == ProfileTab::State::Failed || tab->state() == ProfileTab::State::Cancelled ||
               (tab->state() == ProfileTab::State::Loaded && tab->panel()->data() &&
                tab->tables()->tableData() && tab->tables()->tableData()->chart == tab->panel()->data());
    };
    return QTest::qWaitFor(done, kPatienceMs) && tab->state() == ProfileTab::State::Loaded;
}

} // namespace scorch::test
