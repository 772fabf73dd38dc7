// DisassemblyView: the Disassembly tab beside Source. The selected function's machine instructions
// (scorch/disasm.h, computed off the GUI thread) with one self-cost column per cost type (so instructions
// and cycles give IPC per line), the address, the instruction and its source line; instructions inlined from
// another function in italics with that function named; the hottest instruction selected and scrolled to;
// a double-click on a direct jump or call inside the function moves to its target.
#pragma once

#include "common/backgroundjob.h"

#include "scorch/disasm.h"
#include "scorch/profile.h"

#include <QWidget>

#include <memory>
#include <optional>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace scorch {

class DisassemblyView final : public QWidget {
    Q_OBJECT
public:
    enum Column { AddressColumn, InstructionColumn, SourceColumn, FirstCostColumn };

    explicit DisassemblyView(QWidget* parent = nullptr);
    ~DisassemblyView() override;

    /// The profile whose instruction costs are shown; `costType` picks the hottest instruction.
    void setProfile(std::shared_ptr<const Profile> profile, std::size_t costType = 0);
    /// The same profile's frames with other costs (`range`: a time range's slice with its details): keeps
    /// the function and cost type; the instructions in view take the new costs (recost()), others are
    /// disassembled again with them when shown.
    void setCosts(std::shared_ptr<const Profile> profile, bool range);
    /// Disassembles the function of `frame` in the background (the newest request wins).
    void showFrame(FrameId frame);
    /// Where the source lines shown between the instructions are looked for (the source view's settings).
    void setSourceConfig(const SourceLocatorConfig& config) { m_sources = config; }
    /// Rows with an instruction, as opposed to the source lines between them.
    static bool isInstruction(const QTreeWidgetItem* item);

    FrameId frame() const { return m_frame; }
    /// The shown annotation; empty while computing or after an error.
    const std::optional<Annotation>& annotation() const { return m_annotation; }
    QTreeWidget* tree() const { return m_tree; }
    QLabel* infoLabel() const { return m_info; }
    /// How many times a function was disassembled (showFrame() that had to).
    int disassembled() const { return m_disassembled; }
    /// Selects the row of the instruction at `address`; false when the function has none there.
    bool goToAddress(uint64_t address);

Q_SIGNALS:
    /// The annotation of the last showFrame() is shown (or its error is).
    void ready();

private:
    void fill();

    std::shared_ptr<const Profile> m_profile;
    std::size_t m_costType = 0;
    bool m_range = false; // m_profile is a time range's slice
    FrameId m_frame{};
    std::optional<Annotation> m_annotation;
    SourceLocatorConfig m_sources;
    QLabel* m_info;
    QTreeWidget* m_tree;
    BackgroundJob m_job{this};
    int m_disassembled = 0;
};

} // namespace scorch
