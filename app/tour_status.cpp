#include "app/tour_status.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDialog>
#include <QDockWidget>
#include <QHeaderView>
#include <QListWidget>
#include <QMap>
#include <QSaveFile>
#include <QTableView>
#include <QWidget>

#include "app/engine_controller.h"
#include "app/inference_worker.h"
#include "ui/main_window.h"

namespace hearth {
namespace {

// Often enough that a driver polling the file waits a tenth of a second at most.
constexpr int kPollMilliseconds = 100;

QString point_text(const QPoint& point) {
    return QStringLiteral("%1 %2").arg(point.x()).arg(point.y());
}

// Whether a user could click `widget`: shown, some of it not scrolled or clipped away.
bool clickable(const QWidget& widget) {
    return widget.isVisible() && !widget.visibleRegion().isEmpty();
}

QString name_of(const QWidget& widget) {
    return widget.objectName().isEmpty() ? QString::fromLatin1(widget.metaObject()->className())
                                         : widget.objectName();
}

// The top-level window a user is looking at: a modal dialog, else the active window.
QString front_window(const ui::MainWindow& window) {
    if (const QWidget* modal = QApplication::activeModalWidget()) return name_of(*modal);
    if (const QWidget* popup = QApplication::activePopupWidget()) return name_of(*popup);
    for (const QWidget* top : QApplication::topLevelWidgets()) {
        if (top != &window && top->isVisible() && qobject_cast<const QDialog*>(top))
            return name_of(*top);
    }
    return QStringLiteral("main");
}

// The rows of `table` in view, counted from the top as a user sees them (hidden rows, such as
// those a filter leaves out, do not count): where each is, and its cells' text.
void add_rows(const QTableView& table, QMap<QString, QString>& lines) {
    const auto* model = table.model();
    int shown = 0;
    for (int row = 0; row < model->rowCount(); ++row) {
        const QRect rect = table.visualRect(model->index(row, 0));
        if (table.isRowHidden(row) || !table.viewport()->rect().intersects(rect)) continue;
        const QString key = QStringLiteral("%1.row.%2").arg(table.objectName()).arg(shown++);
        lines["at." + key] = point_text(table.viewport()->mapToGlobal(rect.center()));
        QStringList cells;
        for (int column = 0; column < model->columnCount(); ++column)
            cells << model->index(row, column).data().toString();
        lines["text." + key] = cells.join(QStringLiteral(" | "));
    }
}

// Screen positions of the named controls a user can click or type into, of the rows of named
// lists and tables and of the column headers of named tables. Where several controls share a name
// (each answer's Regenerate), the lowest on screen wins: the latest message's.
void add_positions(QMap<QString, QString>& lines) {
    QMap<QString, QPoint> at;
    for (QWidget* top : QApplication::topLevelWidgets()) {
        if (!top->isVisible()) continue;
        for (QWidget* widget : top->findChildren<QWidget*>()) {
            if (widget->objectName().isEmpty() || !clickable(*widget)) continue;
            const bool control =
                qobject_cast<QAbstractButton*>(widget) || widget->focusPolicy() != Qt::NoFocus;
            if (!control) continue;
            const QPoint centre =
                widget->mapToGlobal(widget->visibleRegion().boundingRect().center());
            auto found = at.find(widget->objectName());
            if (found == at.end() || centre.y() >= found->y()) at[widget->objectName()] = centre;
            if (auto* table = qobject_cast<QTableView*>(widget)) {
                add_rows(*table, lines);
                const QHeaderView* header = table->horizontalHeader();
                for (int column = 0; column < header->count(); ++column) {
                    const int x =
                        header->sectionViewportPosition(column) + header->sectionSize(column) / 2;
                    if (x < 0 || x >= header->viewport()->width()) continue;
                    lines[QStringLiteral("at.%1.column.%2").arg(table->objectName()).arg(column)] =
                        point_text(
                            header->viewport()->mapToGlobal(QPoint(x, header->height() / 2)));
                }
            }
            if (auto* list = qobject_cast<QListWidget*>(widget)) {
                lines["rows." + list->objectName()] = QString::number(list->count());
                for (int row = 0; row < list->count(); ++row) {
                    const QRect rect = list->visualItemRect(list->item(row));
                    if (!list->viewport()->rect().intersects(rect)) continue;
                    lines[QStringLiteral("at.%1.%2").arg(list->objectName()).arg(row)] =
                        point_text(list->viewport()->mapToGlobal(rect.center()));
                    lines[QStringLiteral("text.%1.%2").arg(list->objectName()).arg(row)] =
                        list->item(row)->text().section('\n', 0, 0);
                }
            }
        }
    }
    for (auto point = at.begin(); point != at.end(); ++point)
        lines["at." + point.key()] = point_text(point.value());
}

}  // namespace

TourStatus::TourStatus(ui::MainWindow& window, QString path)
    : QObject(&window), m_window(window), m_path(std::move(path)) {
    m_poll.setInterval(kPollMilliseconds);
    connect(&m_poll, &QTimer::timeout, this, &TourStatus::write_if_changed);
    m_poll.start();
}

void TourStatus::modelLoaded(const QString& file) {
    m_model = file;
    write_if_changed();
}

void TourStatus::answerFinished() {
    ++m_answers;
    write_if_changed();
}

QString TourStatus::snapshot() const {
    QMap<QString, QString> lines;  // sorted by key, so equal states write equal files
    const QRect frame = m_window.frameGeometry();
    lines["winid"] = QString::number(m_window.winId());
    lines["geometry"] = QStringLiteral("%1 %2 %3 %4")
                            .arg(frame.x())
                            .arg(frame.y())
                            .arg(frame.width())
                            .arg(frame.height());
    lines["size"] = QStringLiteral("%1x%2").arg(m_window.width()).arg(m_window.height());
    lines["model"] = m_model;
    lines["answers"] = QString::number(m_answers);
    lines["generating"] = m_window.generating() ? QStringLiteral("1") : QStringLiteral("0");
    lines["window"] = front_window(m_window);
    auto* conversation = m_window.current_conversation();
    lines["conversation"] = conversation ? conversation->title() : QString();
    const auto* dock = m_window.findChild<QDockWidget*>(QStringLiteral("dashboardDock"));
    lines["dashboard"] = dock && dock->isVisible() ? QStringLiteral("1") : QStringLiteral("0");
    add_positions(lines);
    QString text;
    for (auto line = lines.begin(); line != lines.end(); ++line)
        text += line.key() + '=' + line.value() + '\n';
    return text;
}

void TourStatus::write_if_changed() {
    const QString text = snapshot();
    if (text == m_written) return;
    QSaveFile file(m_path);  // a driver never reads half a file
    if (!file.open(QIODevice::WriteOnly)) return;
    file.write(text.toUtf8());
    if (file.commit()) m_written = text;
}

void start_tour_status(ui::MainWindow& window, EngineController& engine, const QString& path) {
    auto* status = new TourStatus(window, path);  // owned by the window
    auto* worker = engine.worker();
    QObject::connect(worker, &InferenceWorker::modelLoaded, status,
                     [status](const ModelInfo& info) {
                         status->modelLoaded(QString::fromStdString(info.path.filename().string()));
                     });
    QObject::connect(worker, &InferenceWorker::generationFinished, status,
                     &TourStatus::answerFinished, Qt::QueuedConnection);
}

}  // namespace hearth
