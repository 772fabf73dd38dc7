#include "comparedialog.h"

#include "profilefilters.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace scorch {

CompareDialog::CompareDialog(QList<Source> openTabs, QWidget* parent)
    : QDialog(parent)
    , m_tabs(std::move(openTabs))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this)) {
    setWindowTitle(tr("Compare Profiles"));
    auto* form = new QFormLayout;
    for (int side = 0; side < 2; ++side) {
        auto* box = new QComboBox(this);
        m_boxes[side] = box;
        box->setEditable(true);
        box->setMinimumContentsLength(50);
        box->setInsertPolicy(QComboBox::NoInsert);
        box->lineEdit()->setPlaceholderText(tr("An open tab, or a file"));
        for (const Source& s : m_tabs)
            box->addItem(s.path);
        const int preset = static_cast<int>(m_tabs.size()) - 2 + side;
        box->setCurrentIndex(preset >= 0 ? preset : -1);
        if (preset < 0)
            box->setEditText(QString());
        auto* browse = new QPushButton(tr("Browse…"), this);
        connect(browse, &QPushButton::clicked, this, [this, box] {
            const QString file = QFileDialog::getOpenFileName(
                this, tr("Choose a Profile"), QFileInfo(box->currentText()).path(), profileFileFilter());
            if (!file.isEmpty())
                box->setEditText(file);
        });
        connect(box, &QComboBox::editTextChanged, this, &CompareDialog::updateOk);
        auto* row = new QHBoxLayout;
        row->addWidget(box, 1);
        row->addWidget(browse);
        // A label with the combo box as buddy, so that "&Before:" shows as an Alt+B mnemonic, not literally.
        auto* label = new QLabel(side == 0 ? tr("&Before:") : tr("&After:"), this);
        label->setBuddy(box);
        form->addRow(label, row);
    }
    auto* hint =
        new QLabel(tr("Open tabs are listed; any two files may be compared, whatever their formats."), this);
    hint->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(hint);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    updateOk();
}

CompareDialog::Source CompareDialog::source(int side) const {
    const QString text = m_boxes[side]->currentText().trimmed();
    const int index = m_boxes[side]->currentIndex();
    if (index >= 0 && index < m_tabs.size() && m_boxes[side]->itemText(index) == text)
        return m_tabs[index];
    return {text, nullptr};
}

void CompareDialog::updateOk() {
    m_buttons->button(QDialogButtonBox::Ok)
        ->setEnabled(!m_boxes[0]->currentText().trimmed().isEmpty() &&
                     !m_boxes[1]->currentText().trimmed().isEmpty());
}

} // namespace scorch
