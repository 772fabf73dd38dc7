#include "summarypage.h"

#include "common/qtprofile.h"
#include "scorch/analysis.h"
#include "scorch/import.h"
#include "scorch/symbolizer.h"
#include "scorch/warningkind.h"

#include <QLocale>
#include <QScrollBar>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace scorch {

namespace {

QString row(const QString& key, const QString& value) {
    return QStringLiteral("<tr><td style='padding-right:16px'><b>%1</b></td><td>%2</td></tr>")
        .arg(key.toHtmlEscaped(), value);
}

QString heading(const QString& text, const QString& anchor = {}) {
    return anchor.isEmpty()
               ? QStringLiteral("<h3>%1</h3>").arg(text.toHtmlEscaped())
               : QStringLiteral("<h3><a name='%1'></a>%2</h3>").arg(anchor, text.toHtmlEscaped());
}

/// perf.data's feature names as a reader knows them.
QString recordingKey(const std::string& key) {
    static const std::pair<const char*, const char*> kNames[] = {{"hostname", "Host"},
                                                                 {"os release", "OS release"},
                                                                 {"perf version", "perf version"},
                                                                 {"cpus", "CPUs"},
                                                                 {"cpu", "CPU"}};
    for (const auto& [from, to] : kNames)
        if (key == from)
            return SummaryPage::tr(to);
    QString text = displayText(key);
    if (!text.isEmpty())
        text[0] = text[0].toUpper();
    return text;
}

} // namespace

SummaryPage::SummaryPage(QWidget* parent)
    : QWidget(parent)
    , m_browser(new QTextBrowser(this)) {
    m_browser->setOpenLinks(false);
    m_browser->setFrameShape(QFrame::NoFrame);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_browser);
}

QString SummaryPage::durationText(double seconds) {
    const CostType time{"", CostUnit::Nanoseconds, 0};
    return toQString(formatCost(static_cast<int64_t>(std::llround(seconds * 1e9)), time));
}

void SummaryPage::setProfile(std::shared_ptr<const Profile> profile) {
    m_profile = std::move(profile);
    m_complete = false;
    render(tr("<p><i>Summing the functions…</i></p>"));
    if (!m_profile || m_profile->costTypes.empty()) {
        m_complete = true;
        render({});
        Q_EMIT completed();
        return;
    }
    // Summing every function walks the whole tree: off the GUI thread, a newer profile drops the older one.
    m_job.start(
        [profile = m_profile](const JobContext&) -> QString {
            constexpr std::size_t kTop = 15;
            const std::vector<FunctionCost> top = topFunctions(*profile, 0, kTop);
            const CostType& type = profile->costTypes.front();
            const int64_t whole = profile->tree.grandTotal(0);
            QString html = QStringLiteral("<table>");
            html += QStringLiteral("<tr><th align='right' style='padding-right:12px'>%1</th><th "
                                   "align='right' style='padding-right:12px'>%2</th><th align='left'>%3</th>"
                                   "</tr>")
                        .arg(tr("Self"), tr("Share"), tr("Function"));
            for (const FunctionCost& f : top) {
                if (f.self.empty() || f.self[0] <= 0)
                    continue;
                const double share =
                    whole ? 100.0 * static_cast<double>(f.self[0]) / static_cast<double>(whole) : 0;
                html +=
                    QStringLiteral("<tr><td align='right' style='padding-right:12px'>%1</td>"
                                   "<td align='right' style='padding-right:12px'>%2%</td><td>%3</td></tr>")
                        .arg(toQString(formatCost(f.self[0], type)).toHtmlEscaped(),
                             QString::number(share, 'f', 1),
                             frameShortName(*profile, f.frame).toHtmlEscaped());
            }
            return html + QStringLiteral("</table>");
        },
        [this](const QString& html) {
            m_complete = true;
            render(html);
            Q_EMIT completed();
        });
}

void SummaryPage::render(const QString& topFunctions) {
    if (!m_profile) {
        m_browser->clear();
        return;
    }
    const Profile& p = *m_profile;
    const ProfileMeta& m = p.meta;
    const QLocale locale;
    QString html;
    html += QStringLiteral("<h2>%1</h2>").arg(displayText(m.source).toHtmlEscaped());

    if (!m.recording.empty()) {
        html += heading(tr("Recording")) + QStringLiteral("<table>");
        for (const auto& [key, value] : m.recording)
            html += row(recordingKey(key), displayText(value).toHtmlEscaped());
        html += QStringLiteral("</table>");
    }

    html += heading(tr("Profile")) + QStringLiteral("<table>");
    QString format = toQString(formatName(m.format));
    if (!m.compression.empty())
        format += tr(" (%1)").arg(displayText(m.compression));
    html += row(tr("Format"), format.toHtmlEscaped());
    if (m.inputBytes)
        html += row(tr("Size"), locale.formattedDataSize(static_cast<qint64>(m.inputBytes)).toHtmlEscaped());
    const bool timed = m.timeStart && m.timeEnd && *m.timeEnd >= *m.timeStart;
    const double duration = timed ? *m.timeEnd - *m.timeStart : 0;
    if (timed)
        html += row(tr("Duration"), durationText(duration).toHtmlEscaped());
    html += row(tr("Samples"), locale.toString(static_cast<qulonglong>(m.samples)));
    if (timed && duration > 0 && m.samples > 1)
        html +=
            row(tr("Sample rate"),
                tr("%1 per second").arg(locale.toString(static_cast<double>(m.samples) / duration, 'f', 0)));
    QStringList lost;
    for (const ImportWarning& w : m.warnings)
        if (warningKind(w.message) == WarningKind::Lost)
            lost << displayText(w.message).toHtmlEscaped();
    html += row(tr("Lost"), lost.isEmpty() ? tr("none reported") : lost.join(QStringLiteral("<br>")));
    QStringList events;
    for (std::size_t t = 0; t < p.costTypes.size(); ++t) {
        const QString name = displayText(p.costTypes[t].name);
        const QString value = toQString(formatCost(p.tree.grandTotal(t), p.costTypes[t]));
        // "22,819 samples", not "samples: 22,819 samples": a value that names its type stands alone
        events << (value.endsWith(QLatin1Char(' ') + name) ? value : tr("%1: %2").arg(name, value))
                      .toHtmlEscaped();
    }
    html += row(p.costTypes.size() == 1 ? tr("Cost") : tr("Costs"), events.join(QStringLiteral("<br>")));
    html += row(tr("Threads"), locale.toString(static_cast<qulonglong>(p.threads.size())));
    html += QStringLiteral("</table>");

    if (p.threads.size() > 1) { // the busiest threads by samples
        std::vector<std::size_t> order(p.threads.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return p.threads[a].samples > p.threads[b].samples;
        });
        constexpr std::size_t kShown = 10;
        html += heading(tr("Busiest threads")) + QStringLiteral("<table>");
        for (std::size_t i = 0; i < order.size() && i < kShown; ++i) {
            const ThreadInfo& t = p.threads[order[i]];
            QString name = t.name.empty() ? tr("(unnamed)") : displayText(t.name);
            if (t.tid >= 0)
                name += tr(" [pid %1, tid %2]").arg(t.pid).arg(t.tid);
            html += QStringLiteral("<tr><td align='right' style='padding-right:12px'>%1</td><td>%2</td></tr>")
                        .arg(sampleCount(t.samples), name.toHtmlEscaped());
        }
        if (order.size() > kShown)
            html += QStringLiteral("<tr><td></td><td>%1</td></tr>")
                        .arg(tr("… and %1 more").arg(order.size() - kShown));
        html += QStringLiteral("</table>");
    }

    html += heading(tr("Warnings"), QStringLiteral("warnings"));
    if (m.warningCount == 0) {
        html += tr("<p>None.</p>");
    } else {
        if (m.warningCount > m.warnings.size())
            html +=
                tr("<p>%1 warnings; the first %2 are kept:</p>").arg(m.warningCount).arg(m.warnings.size());
        html += QStringLiteral("<ul>");
        for (const ImportWarning& w : m.warnings) {
            QString text = displayText(w.message).toHtmlEscaped();
            if (w.line > 0) // a line of a text format; binary formats name their byte offset in the message
                text = tr("line %1: %2").arg(w.line).arg(text);
            if (isSerious(w))
                text = QStringLiteral("<b>%1</b>").arg(text);
            html += QStringLiteral("<li>%1</li>").arg(text);
        }
        html += QStringLiteral("</ul>");
    }

    if (!m.modules.empty()) { // where each module's binary and debug info came from, or where it was sought
        html += heading(tr("Symbols"), QStringLiteral("symbols"));
        html += QStringLiteral("<table>");
        for (const ModuleReport& module : m.modules) {
            const double share =
                m.samples ? 100.0 * static_cast<double>(module.samples) / static_cast<double>(m.samples)
                          : 0.0;
            QString name = QStringLiteral("<b>%1</b>").arg(displayText(module.path).toHtmlEscaped());
            if (!module.buildId.empty())
                name += QStringLiteral(" <small>%1</small>")
                            .arg(tr("build-id %1").arg(displayText(module.buildId).toHtmlEscaped()));
            const QString color = module.resolvedPath.empty() || !module.problem.empty()
                                      ? QStringLiteral("#a04000")
                                      : QStringLiteral("#606060");
            html += QStringLiteral("<tr><td align='right' valign='top' style='padding-right:12px'>%1</td>"
                                   "<td>%2<br><span style='color:%3'>%4</span></td></tr>")
                        .arg(locale.toString(share, 'f', 1) + QLatin1Char('%'), name, color,
                             displayText(describeModule(module)).toHtmlEscaped());
        }
        html += QStringLiteral("</table>");
    }

    if (!p.costTypes.empty()) {
        html += heading(tr("Top functions by self %1").arg(displayText(p.costTypes.front().name)));
        html += topFunctions;
    }
    const int scroll = m_browser->verticalScrollBar()->value();
    m_browser->setHtml(html);
    m_browser->verticalScrollBar()->setValue(scroll);
}

QString SummaryPage::text() const {
    return m_browser->toPlainText();
}

void SummaryPage::showWarnings() {
    m_browser->scrollToAnchor(QStringLiteral("warnings"));
}

} // namespace scorch
