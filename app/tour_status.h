// `hearth --tour-status FILE`: what a driver outside the process needs to steer the real
// window with real input events (packaging/screenshots.sh sends them with xdotool under Xvfb)
// and to wait for the right moment instead of sleeping: the window's X id and geometry, the
// model, how many answers have finished, which dialog is up, and the screen position of every
// named control and list row. The file is rewritten whole (write, then rename) whenever any of
// it changes, as KEY=VALUE lines:
//   winid=…  geometry=X Y W H  model=FILE  answers=N  generating=0|1  window=NAME
//   conversation=TITLE  dashboard=0|1  rows.LIST=N  at.NAME=X Y  at.LIST.ROW=X Y
//   text.LIST.ROW=TEXT  at.TABLE.row.N=X Y  text.TABLE.row.N=CELL | CELL …  at.TABLE.column.N=X Y
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>

namespace hearth {

class EngineController;
namespace ui {
class MainWindow;
}

class TourStatus final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TourStatus)

public:
    TourStatus(ui::MainWindow& window, QString path);

    void modelLoaded(const QString& file);
    void answerFinished();

    // The whole status as the file holds it.
    QString snapshot() const;

private:
    void write_if_changed();

    ui::MainWindow& m_window;
    QString m_path;
    QString m_written;
    QString m_model;
    int m_answers = 0;
    QTimer m_poll;
};

// Starts writing `path` for as long as the window lives. The window owns the writer.
void start_tour_status(ui::MainWindow& window, EngineController& engine, const QString& path);

}  // namespace hearth
