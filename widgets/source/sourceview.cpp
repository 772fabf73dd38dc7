#include "source/sourceview.h"

#include "common/qtprofile.h"
#include "source/sourceviewedit.h"

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QResizeEvent>
#include <QSettings>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cstring>

namespace scorch {

namespace {

constexpr qint64 kMaxFileBytes = 64ll << 20; // larger "sources" are not text worth showing
constexpr int kWholeFileLines = 20000;       // longer files are shown in a window around the function
constexpr int kWindowMargin = 4000;          // lines shown before and after the function's lines
constexpr int kMaxWindowLines = 20000;       // a function spread wider is shown around its hottest line
constexpr int kFileRole = Qt::UserRole + 1;
constexpr int kLineRole = Qt::UserRole + 2;
/// The splitter's first sizes (file | lines) side by side, and file above lines
QList<int> splitSizes(Qt::Orientation o) {
    return o == Qt::Horizontal ? QList<int>{600, 180} : QList<int>{300, 150};
}

const QString kSearchDirsKey = QStringLiteral("source/searchDirs");
const QString kMappingFromKey = QStringLiteral("source/mappingFrom");
const QString kMappingToKey = QStringLiteral("source/mappingTo");
const QString kEditorKey = QStringLiteral("source/editorCommand");

} // namespace

SourceView::SourceView(QWidget* parent)
    : QWidget(parent)
    , m_config(loadLocatorConfig())
    , m_title(new QLabel(this))
    , m_info(new QLabel(this))
    , m_openEditor(new QPushButton(tr("Open in Editor"), this))
    , m_editorSettings(new QPushButton(tr("Editor…"), this))
    , m_stack(new QStackedWidget(this))
    , m_empty(new QLabel(m_stack))
    , m_split(new QSplitter(Qt::Horizontal, m_stack))
    , m_fileStack(new QStackedWidget(m_split))
    , m_notFound(new QWidget(m_fileStack))
    , m_notFoundText(new QLabel(m_notFound))
    , m_choose(new QPushButton(tr("Choose Source Directory…"), m_notFound))
    , m_edit(new SourceViewEdit(m_fileStack))
    , m_lines(new QTreeWidget(m_split)) {
    m_editorCommand = QSettings().value(kEditorKey, defaultEditorCommand()).toString();

    m_title->setTextFormat(Qt::PlainText);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_info->setTextFormat(Qt::PlainText);
    m_info->setWordWrap(true);
    m_info->setVisible(false);
    m_openEditor->setObjectName(QStringLiteral("openInEditor"));
    m_openEditor->setToolTip(tr("Open the file at this line with the editor command"));
    m_editorSettings->setToolTip(tr("Set the editor command ({file} and {line} are replaced)"));
    connect(m_openEditor, &QPushButton::clicked, this, &SourceView::openInEditor);
    connect(m_editorSettings, &QPushButton::clicked, this, &SourceView::editEditorCommand);

    auto* top = new QHBoxLayout;
    top->setContentsMargins(6, 4, 6, 2);
    top->addWidget(m_title, 1);
    top->addWidget(m_openEditor);
    top->addWidget(m_editorSettings);

    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_empty->setText(tr("Select a frame to see its source."));

    m_notFoundText->setTextFormat(Qt::PlainText);
    m_notFoundText->setWordWrap(true);
    m_notFoundText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_choose->setObjectName(QStringLiteral("chooseSourceDirectory"));
    connect(m_choose, &QPushButton::clicked, this, &SourceView::chooseDirectory);
    auto* nf = new QVBoxLayout(m_notFound);
    nf->addStretch(1);
    nf->addWidget(m_notFoundText);
    nf->addWidget(m_choose, 0, Qt::AlignLeft);
    nf->addStretch(2);
    nf->setContentsMargins(24, 12, 24, 12);

    m_lines->setColumnCount(3);
    m_lines->setHeaderLabels({tr("Line"), tr("Self"), tr("Total")});
    m_lines->setRootIsDecorated(false);
    m_lines->setUniformRowHeights(true);
    m_lines->setAlternatingRowColors(true);
    m_lines->header()->setStretchLastSection(false);
    m_lines->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_lines->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_lines->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    // wide enough for "line 1234" and two percentages: a narrow source pane squeezes the file's side
    const QFontMetrics fm = m_lines->fontMetrics();
    m_lines->setMinimumWidth(fm.horizontalAdvance(tr("line %1").arg(8888)) +
                             2 * fm.horizontalAdvance(QStringLiteral("100.0%")) +
                             6 * fm.horizontalAdvance(u' ') + 2 * m_lines->frameWidth() +
                             m_lines->style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 24);
    connect(m_lines, &QTreeWidget::itemClicked, this, &SourceView::onLineClicked);
    connect(m_lines, &QTreeWidget::itemActivated, this, &SourceView::onLineClicked);
    m_edit->setToolTipProvider([this](int line) {
        const SourceViewEdit::LineCost c = m_edit->cost(line);
        if (!m_profile || m_profile->costTypes.empty())
            return QString();
        const int64_t whole = m_profile->tree.grandTotal(m_costType);
        return tr("Line %1\nSelf: %2\nTotal: %3")
            .arg(line)
            .arg(costWithPercent(*m_profile, m_costType, c.self, whole),
                 costWithPercent(*m_profile, m_costType, c.total, whole));
    });
    m_fileStack->addWidget(m_edit);
    m_fileStack->addWidget(m_notFound);
    m_split->addWidget(m_fileStack);
    m_split->addWidget(m_lines);
    m_split->setStretchFactor(0, 3);
    m_split->setStretchFactor(1, 1);
    m_split->setSizes(splitSizes(Qt::Horizontal));

    m_stack->addWidget(m_empty);
    m_stack->addWidget(m_split);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(top);
    layout->addWidget(m_info);
    layout->addWidget(m_stack, 1);
    setState(State::Empty);
}

SourceView::~SourceView() = default;

void SourceView::setProfile(std::shared_ptr<const Profile> profile, std::size_t costType) {
    const bool same = profile == m_profile;
    m_profile = std::move(profile);
    m_costType = costType;
    if (!same)
        m_located.clear();
    if (m_profile) {
        const std::string& source = m_profile->meta.source;
        m_config.baseDir = source.empty() || source == "-"
                               ? std::string()
                               : QFileInfo(toQString(source)).absolutePath().toStdString();
    }
    if (same && m_frame.value != 0)
        showFrame(m_frame); // re-sort by the new cost type
    else {
        m_frame = {};
        m_function = {};
        m_file = {};
        setState(State::Empty);
    }
}

void SourceView::setCosts(std::shared_ptr<const Profile> profile) {
    if (profile == m_profile)
        return;
    m_profile = std::move(profile);
    if (m_frame.value != 0)
        showFrame(m_frame);
}

void SourceView::showFrame(FrameId frame) {
    if (!m_profile || frame.value == 0 || frame.value >= m_profile->frames.size())
        return;
    // another tab's view may have added a mapping or search directory since
    const SourceLocatorConfig saved = loadLocatorConfig();
    if (saved.mappings != m_config.mappings || saved.searchDirs != m_config.searchDirs) {
        m_config.mappings = saved.mappings;
        m_config.searchDirs = saved.searchDirs;
        m_located.clear();
    }
    m_frame = frame;
    m_function = functionSource(*m_profile, frame, m_costType);
    fillLineList();
    m_title->setText(frameDisplayName(*m_profile, frame));
    if (!m_function.primaryFile()) {
        m_file = {};
        m_empty->setText(tr("No source information for %1.\nThe profile records no file and line for it: "
                            "perf.data, the sampler and `perf script -F +srcline` do.")
                             .arg(frameDisplayName(*m_profile, frame)));
        m_info->setVisible(false);
        setState(State::NoSource);
        return;
    }
    showFile(m_function.primaryFile(), m_function.primaryLine());
}

void SourceView::showLine(StringId file, uint32_t line) {
    if (m_profile)
        showFile(file, line);
}

QString SourceView::recordedPath() const {
    return m_profile && m_file ? toQString(m_profile->strings.view(m_file)) : QString();
}

QString SourceView::filePath() const {
    return m_location.found() ? QString::fromStdString(m_location.path) : QString();
}

int SourceView::hottestLine() const {
    for (const FunctionLine& l : m_function.lines)
        if (l.file == m_file)
            return static_cast<int>(l.line);
    return 0;
}

QString SourceView::costText(int64_t value) const {
    if (!m_profile || m_profile->costTypes.empty() || value == 0)
        return {};
    const int64_t whole = m_profile->tree.grandTotal(m_costType);
    if (whole == 0)
        return toQString(formatCost(value, m_profile->costTypes[m_costType]));
    return QString::number(100.0 * static_cast<double>(value) / static_cast<double>(whole), 'f', 1) + u'%';
}

void SourceView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    // side by side, the file's side needs room for the "not found" text and its button, the list for
    // "line 1234" and two percentages
    const int wide = m_lines->minimumWidth() + fontMetrics().horizontalAdvance(QLatin1Char('x')) * 40;
    const Qt::Orientation o = width() < wide ? Qt::Vertical : Qt::Horizontal;
    if (m_split->orientation() != o) {
        m_split->setOrientation(o);
        m_split->setSizes(splitSizes(o));
    }
}

void SourceView::fillLineList() {
    m_lines->clear();
    const bool severalFiles = m_function.files.size() > 1;
    QList<QTreeWidgetItem*> items;
    for (const FunctionLine& l : m_function.lines) {
        const QString file = toQString(m_profile->strings.view(l.file));
        const QString where = severalFiles ? QFileInfo(file).fileName() + u':' + QString::number(l.line)
                                           : tr("line %1").arg(l.line);
        auto* item =
            new QTreeWidgetItem({where, costText(l.self[m_costType]), costText(l.total[m_costType])});
        item->setToolTip(0, file + u':' + QString::number(l.line));
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
        item->setData(0, kFileRole, l.file.value);
        item->setData(0, kLineRole, l.line);
        items.append(item);
    }
    m_lines->addTopLevelItems(items);
    m_lines->setVisible(!items.isEmpty());
}

void SourceView::onLineClicked(QTreeWidgetItem* item) {
    if (item)
        showLine(StringId{item->data(0, kFileRole).toUInt()}, item->data(0, kLineRole).toUInt());
}

void SourceView::showFile(StringId file, uint32_t line) {
    m_file = file;
    m_line = line;
    relocate();
}

void SourceView::relocate() {
    if (!m_profile || !m_file)
        return;
    const std::string recorded(m_profile->strings.view(m_file));
    // Searching directories can take a while: every recorded path is looked up once per configuration.
    const QString key = toQString(recorded);
    auto cached = m_located.constFind(key);
    if (cached == m_located.cend())
        cached = m_located.insert(key, locateSource(recorded, m_config));
    m_location = *cached;
    const auto fetched = m_fetched.constFind(key);
    if (!m_location.found() && fetched != m_fetched.cend() && fetched->found())
        m_location = *fetched;
    if (!m_location.found()) {
        m_loadedPath.clear();
        m_info->setVisible(false);
        if (!m_debuginfodUrls.isEmpty() && fetched == m_fetched.cend()) {
            std::vector<std::string> ids = moduleBuildIds();
            if (!ids.empty()) {
                if (m_fetching != key)
                    fetchFromDebuginfod(key, recorded, std::move(ids));
                m_notFoundText->setText(
                    tr("Fetching %1 from debuginfod (%2)…").arg(toQString(recorded), m_debuginfodUrls));
                setState(State::NotFound);
                return;
            }
        }
        QString text =
            tr("Source file not found:\n%1\n\nLooked at the recorded path, then path mappings (%2) and "
               "search "
               "directories (%3). Choose the directory that holds this file (or a parent of it): Scorch maps "
               "the recorded prefix onto it and remembers it.")
                .arg(toQString(recorded))
                .arg(m_config.mappings.size())
                .arg(m_config.searchDirs.size());
        if (fetched != m_fetched.cend())
            text += tr("\n\ndebuginfod: %1").arg(displayText(fetched->detail));
        m_notFoundText->setText(text);
        setState(State::NotFound);
        return;
    }

    const QString path = QString::fromStdString(m_location.path);
    const int target = static_cast<int>(m_line);
    if (path != m_loadedPath || target < m_edit->firstLine() || target > m_edit->lastLine()) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly) || f.size() > kMaxFileBytes) {
            m_notFoundText->setText(
                f.size() > kMaxFileBytes
                    ? tr("%1 is too large to show (%2 MiB).").arg(path).arg(f.size() >> 20)
                    : tr("Cannot read %1: %2").arg(path, f.errorString()));
            m_loadedPath.clear();
            setState(State::NotFound);
            return;
        }
        loadText(f.readAll(), target);
        m_loadedPath = path;
    }

    QHash<int, SourceViewEdit::LineCost> costs;
    for (const FunctionLine* l : linesInFile(m_function, m_file))
        costs.insert(static_cast<int>(l->line), {l->self[m_costType], l->total[m_costType]});
    m_edit->setCosts(std::move(costs),
                     m_profile->costTypes.empty() ? 0 : m_profile->tree.grandTotal(m_costType));

    QStringList notes;
    if (m_edit->firstLine() > 1 || m_edit->lastLine() < m_loadedLines)
        notes << tr("Large file: showing lines %1–%2 of %3 around the function.")
                     .arg(m_edit->firstLine())
                     .arg(m_edit->lastLine())
                     .arg(m_loadedLines);
    if (!m_function.hasLineCosts())
        notes << tr("This profile has no per-line costs: showing where the function is defined (line %1).")
                     .arg(m_line);
    if (m_location.rule != SourceRule::Recorded)
        notes << tr("Found by %1: %2")
                     .arg(toQString(sourceRuleName(m_location.rule)),
                          QString::fromStdString(m_location.detail)
                              .replace(QStringLiteral(" -> "), QStringLiteral(" → ")));
    m_info->setText(notes.join(u'\n'));
    m_info->setVisible(!notes.isEmpty());
    m_title->setToolTip(path);
    m_title->setText(frameDisplayName(*m_profile, m_frame) + QStringLiteral(" — ") +
                     QFileInfo(path).fileName() + u':' + QString::number(m_line));
    setState(State::Shown);
    m_edit->goToLine(static_cast<int>(m_line));
    for (int i = 0; i < m_lines->topLevelItemCount(); ++i) { // mark the shown line in the list
        QTreeWidgetItem* item = m_lines->topLevelItem(i);
        if (item->data(0, kFileRole).toUInt() == m_file.value &&
            item->data(0, kLineRole).toUInt() == m_line) {
            const QSignalBlocker blocker(m_lines);
            m_lines->setCurrentItem(item);
            break;
        }
    }
}

void SourceView::loadText(const QByteArray& bytes, int target) {
    const char* d = bytes.constData();
    const auto n = static_cast<std::size_t>(bytes.size());
    int total = static_cast<int>(std::count(bytes.cbegin(), bytes.cend(), '\n'));
    if (n > 0 && d[n - 1] != '\n')
        ++total;
    int first = 1, last = total;
    if (total > kWholeFileLines) {
        // Laying out hundreds of thousands of lines takes seconds: show the function's part of the file.
        int lo = target, hi = target;
        for (const FunctionLine* l : linesInFile(m_function, m_file)) {
            lo = std::min(lo, static_cast<int>(l->line));
            hi = std::max(hi, static_cast<int>(l->line));
        }
        if (hi - lo > kMaxWindowLines)
            lo = hi = target;
        first = std::max(1, lo - kWindowMargin);
        last = std::min(total, hi + kWindowMargin);
    }
    auto lineStart = [&](std::size_t from, int lines) { // byte offset `lines` line ends after `from`
        for (; lines > 0 && from < n; --lines) {
            const void* nl = std::memchr(d + from, '\n', n - from);
            from = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - d) + 1 : n;
        }
        return from;
    };
    const std::size_t begin = lineStart(0, first - 1);
    std::size_t end = lineStart(begin, last - first + 1);
    if (end > begin && d[end - 1] == '\n')
        --end;
    m_edit->setSourceText(QString::fromUtf8(d + begin, static_cast<qsizetype>(end - begin)), first);
    m_loadedLines = total;
}

void SourceView::setState(State state) {
    m_state = state;
    const bool file = state == State::Shown || state == State::NotFound;
    m_stack->setCurrentWidget(file ? static_cast<QWidget*>(m_split) : static_cast<QWidget*>(m_empty));
    m_fileStack->setCurrentWidget(state == State::NotFound ? m_notFound : static_cast<QWidget*>(m_edit));
    if (state == State::Empty)
        m_title->setText(tr("Source"));
    if (state != State::Shown)
        m_title->setToolTip(recordedPath());
    m_openEditor->setEnabled(state == State::Shown);
    Q_EMIT stateChanged(state);
}

void SourceView::setLocatorConfig(const SourceLocatorConfig& config) {
    const std::string base = m_config.baseDir;
    m_config = config;
    m_config.baseDir = base;
    m_located.clear();
    saveLocatorConfig(m_config);
    m_loadedPath.clear();
    relocate();
}

void SourceView::setDebuginfodUrls(const QString& urls) {
    if (urls.simplified() == m_debuginfodUrls)
        return;
    m_debuginfodUrls = urls.simplified();
    m_fetched.clear();
    m_fetching.clear();
    relocate();
}

std::vector<std::string> SourceView::moduleBuildIds() const {
    std::vector<std::string> ids;
    if (!m_profile)
        return ids;
    for (const FrameId f : m_function.frames) {
        const std::string_view module = m_profile->strings.view(m_profile->frames[f].module);
        for (const ModuleReport& m : m_profile->meta.modules)
            if (m.path == module && !m.buildId.empty() &&
                std::find(ids.begin(), ids.end(), m.buildId) == ids.end())
                ids.push_back(m.buildId);
    }
    return ids;
}

void SourceView::fetchFromDebuginfod(const QString& key, const std::string& recorded,
                                     std::vector<std::string> ids) {
    m_fetching = key;
    m_fetch.start(
        [recorded, ids = std::move(ids), urls = m_debuginfodUrls.toStdString()](const JobContext& job) {
            SourceLocation location;
            for (const std::string& id : ids) { // the function's module first; inlined code may be elsewhere
                location = fetchSource(recorded, id, urls, job.cancelFlag());
                if (location.found() || job.cancelled())
                    break;
            }
            return location;
        },
        [this, key](SourceLocation location) {
            m_fetching.clear();
            m_fetched.insert(key, std::move(location));
            relocate();
        });
}

void SourceView::addSourceDirectory(const QString& dir) {
    if (dir.isEmpty())
        return;
    SourceLocatorConfig config = m_config;
    const PathMapping mapping = mappingForDirectory(recordedPath().toStdString(), dir.toStdString());
    if (!mapping.from.empty()) {
        std::erase(config.mappings, mapping);
        config.mappings.insert(config.mappings.begin(), mapping); // the latest choice wins
    } else if (std::find(config.searchDirs.begin(), config.searchDirs.end(), dir.toStdString()) ==
               config.searchDirs.end()) {
        config.searchDirs.push_back(dir.toStdString());
    }
    setLocatorConfig(config);
}

void SourceView::chooseDirectory() {
    const QString dir = QFileDialog::getExistingDirectory(
        this, tr("Directory with %1").arg(QFileInfo(recordedPath()).fileName()));
    addSourceDirectory(dir);
}

SourceLocatorConfig SourceView::loadLocatorConfig() {
    QSettings s;
    SourceLocatorConfig config;
    for (const QString& dir : s.value(kSearchDirsKey).toStringList())
        config.searchDirs.push_back(dir.toStdString());
    const QStringList from = s.value(kMappingFromKey).toStringList(),
                      to = s.value(kMappingToKey).toStringList();
    for (qsizetype i = 0; i < std::min(from.size(), to.size()); ++i)
        config.mappings.push_back({from[i].toStdString(), to[i].toStdString()});
    return config;
}

void SourceView::saveLocatorConfig(const SourceLocatorConfig& config) {
    QStringList dirs, from, to;
    for (const std::string& d : config.searchDirs)
        dirs << QString::fromStdString(d);
    for (const PathMapping& m : config.mappings) {
        from << QString::fromStdString(m.from);
        to << QString::fromStdString(m.to);
    }
    QSettings s;
    s.setValue(kSearchDirsKey, dirs);
    s.setValue(kMappingFromKey, from);
    s.setValue(kMappingToKey, to);
}

void SourceView::setEditorCommand(const QString& command) {
    m_editorCommand = command.trimmed().isEmpty() ? defaultEditorCommand() : command.trimmed();
    QSettings().setValue(kEditorKey, m_editorCommand);
}

QString SourceView::defaultEditorCommand() {
    QString editor = qEnvironmentVariable("VISUAL").trimmed();
    if (editor.isEmpty())
        editor = qEnvironmentVariable("EDITOR").trimmed();
    if (editor.isEmpty())
        return QStringLiteral("xdg-open {file}");
    const QStringList parts = QProcess::splitCommand(editor);
    const QString name = parts.isEmpty() ? QString() : QFileInfo(parts.front()).fileName();
    if (name == u"code" || name == u"codium" || name == u"code-oss")
        return editor + QStringLiteral(" -g {file}:{line}");
    if (name == u"kate" || name == u"kwrite")
        return editor + QStringLiteral(" -l {line} {file}");
    return editor + QStringLiteral(" +{line} {file}"); // vi, vim, nvim, emacs, nano, gedit, micro, ...
}

QStringList SourceView::expandEditorCommand(const QString& command, const QString& file, int line) {
    QStringList args = QProcess::splitCommand(command);
    if (args.isEmpty())
        return {};
    bool hasFile = false;
    const QString lineText = QString::number(std::max(1, line));
    for (QString& a : args) {
        // one pass, so that a file name containing "{line}" stays as it is
        QString out;
        for (qsizetype i = 0; i < a.size();) {
            if (a.mid(i, 6) == u"{file}") {
                out += file;
                hasFile = true;
                i += 6;
            } else if (a.mid(i, 6) == u"{line}") {
                out += lineText;
                i += 6;
            } else {
                out += a[i++];
            }
        }
        a = out;
    }
    if (!hasFile)
        args << file;
    return args;
}

bool SourceView::openInEditor() {
    if (m_state != State::Shown)
        return false;
    m_editorCommand = QSettings().value(kEditorKey, m_editorCommand).toString(); // set in another view?
    const QStringList args = expandEditorCommand(m_editorCommand, filePath(), m_edit->currentLine());
    if (args.isEmpty())
        return false;
    return QProcess::startDetached(args.front(), args.mid(1));
}

void SourceView::editEditorCommand() {
    bool ok = false;
    const QString command = QInputDialog::getText(
        this, tr("Editor Command"),
        tr("Command to open a source file; {file} and {line} are replaced, quotes group arguments:"),
        QLineEdit::Normal, m_editorCommand, &ok);
    if (ok)
        setEditorCommand(command);
}

} // namespace scorch
