#include "comparetab.h"

#include "common/qtprofile.h"
#include "compare/compareview.h"
#include "loader.h"

#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace scorch {

CompareTab::CompareTab(const QString& beforePath, const QString& afterPath, QWidget* parent)
    : QWidget(parent)
    , m_paths{beforePath, afterPath} {
    init();
    for (int side = 0; side < 2; ++side) {
        auto* loader = new ProfileLoader(this);
        m_loaders[side] = loader;
        connect(loader, &ProfileLoader::progress, this, [this, side](qint64 done, qint64 total) {
            if (total > 0) {
                m_bars[side]->setRange(0, 100);
                m_bars[side]->setValue(static_cast<int>(std::min<qint64>(100, done * 100 / total)));
            } else {
                m_bars[side]->setRange(0, 0); // a pipe: size unknown
            }
        });
        connect(loader, &ProfileLoader::loaded, this,
                [this, side](std::shared_ptr<const Profile> p) { onLoaded(side, std::move(p)); });
        connect(loader, &ProfileLoader::failed, this, [this](const QString& message) {
            fail(tr("Could not compare\n\n%1").arg(message), State::Failed);
        });
        connect(loader, &ProfileLoader::cancelled, this,
                [this] { fail(tr("Comparison cancelled: %1").arg(title()), State::Cancelled); });
        loader->start(m_paths[side]);
    }
}

CompareTab::CompareTab(std::shared_ptr<const Profile> before, const QString& beforePath,
                       std::shared_ptr<const Profile> after, const QString& afterPath, QWidget* parent,
                       const DiffOptions& options)
    : QWidget(parent)
    , m_paths{beforePath, afterPath}
    , m_options(options) {
    init();
    onLoaded(0, std::move(before));
    onLoaded(1, std::move(after));
}

CompareTab::~CompareTab() = default; // the loaders cancel their imports

void CompareTab::init() {
    m_stack = new QStackedWidget(this);
    m_loadPage = new QWidget(m_stack);
    m_message = new QLabel(m_loadPage);
    m_message->setWordWrap(true);
    m_message->setTextFormat(Qt::PlainText);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setMaximumWidth(800);
    m_message->setText(
        tr("Loading %1 and %2…").arg(QFileInfo(m_paths[0]).fileName(), QFileInfo(m_paths[1]).fileName()));
    m_cancel = new QPushButton(tr("Cancel"), m_loadPage);
    m_progressBox = new QWidget(m_loadPage);
    auto* grid = new QGridLayout(m_progressBox);
    for (int side = 0; side < 2; ++side) {
        m_bars[side] = new QProgressBar(m_progressBox);
        m_bars[side]->setRange(0, 100);
        m_bars[side]->setMinimumWidth(320);
        grid->addWidget(new QLabel(side == 0 ? tr("Before: %1").arg(QFileInfo(m_paths[0]).fileName())
                                             : tr("After: %1").arg(QFileInfo(m_paths[1]).fileName()),
                                   m_progressBox),
                        side, 0);
        grid->addWidget(m_bars[side], side, 1);
    }
    auto* page = new QVBoxLayout(m_loadPage);
    page->addStretch(1);
    page->addWidget(m_message, 0, Qt::AlignHCenter);
    page->addWidget(m_progressBox, 0, Qt::AlignHCenter);
    page->addWidget(m_cancel, 0, Qt::AlignHCenter);
    page->addStretch(2);
    m_view = new CompareView(m_stack);
    m_stack->addWidget(m_loadPage);
    m_stack->addWidget(m_view);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack);
    connect(m_cancel, &QPushButton::clicked, this, &CompareTab::cancelLoad);
    connect(m_view, &CompareView::failed, this, [this](const QString& message) {
        fail(tr("Could not compare\n\n%1").arg(message), State::Failed);
    });
}

QString CompareTab::title() const {
    const QString a = QFileInfo(m_paths[0]).fileName(), b = QFileInfo(m_paths[1]).fileName();
    // two time ranges of one file ("fp.data [0.00 s – 1.00 s]", "fp.data [rest …]"): the name once
    const qsizetype open = a.indexOf(QStringLiteral(" ["));
    if (open > 0 && a.endsWith(u']') && b.endsWith(u']') && b.startsWith(a.left(open + 2)))
        return displayText(a.left(open)) + QStringLiteral(": ") + displayText(a.mid(open + 2).chopped(1)) +
               QStringLiteral(" ↔ ") + displayText(b.mid(open + 2).chopped(1));
    return displayText(a) + QStringLiteral(" ↔ ") + displayText(b);
}

QString CompareTab::messageText() const {
    return m_message->text();
}

void CompareTab::cancelLoad() {
    if (m_state != State::Loading)
        return;
    for (ProfileLoader* l : m_loaders)
        if (l)
            l->cancel();
}

void CompareTab::setDiffOptions(const DiffOptions& options) {
    m_options = options;
    if (m_state == State::Loaded)
        m_view->setDiffOptions(options);
}

void CompareTab::onLoaded(int side, std::shared_ptr<const Profile> profile) {
    m_profiles[side] = std::move(profile);
    m_bars[side]->setRange(0, 100);
    m_bars[side]->setValue(100);
    if (m_state != State::Loading || !m_profiles[0] || !m_profiles[1])
        return;
    if (m_profiles[0]->costTypes.empty() || m_profiles[1]->costTypes.empty()) {
        fail(tr("Could not compare: %1 has no costs")
                 .arg(m_profiles[0]->costTypes.empty() ? m_paths[0] : m_paths[1]),
             State::Failed);
        return;
    }
    m_view->setDiffOptions(m_options); // before setProfiles(): one diff build
    m_view->setProfiles(m_profiles[0], m_profiles[1], QFileInfo(m_paths[0]).fileName(),
                        QFileInfo(m_paths[1]).fileName());
    m_stack->setCurrentWidget(m_view);
    setState(State::Loaded);
}

void CompareTab::fail(const QString& text, State state) {
    if (m_state == State::Failed || m_state == State::Cancelled)
        return; // the first problem is the one to show
    for (ProfileLoader* l : m_loaders)
        if (l)
            l->cancel();
    m_message->setText(text);
    m_cancel->hide();
    m_progressBox->hide();
    m_stack->setCurrentWidget(m_loadPage);
    setState(state);
}

void CompareTab::setState(State state) {
    m_state = state;
    Q_EMIT stateChanged(state);
}

} // namespace scorch
