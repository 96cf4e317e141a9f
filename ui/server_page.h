// Settings → Server: the in-process OpenAI-compatible API server. Its port, rows and API key,
// whether its conversations go into the history, a button that starts or stops it, the URL to
// give clients (with a copy button), and its live load. The settings are kept with the dialog's
// OK like the others; start and stop act at once, through core::ServerStatus.
#pragma once

#include <QWidget>

#include "app/core/global_settings.h"
#include "app/core/server_status.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace hearth::ui {

class ServerLoadView;

class ServerPage final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ServerPage)

public:
    // `status` must outlive the page.
    ServerPage(const core::ServerSettings& settings, core::ServerStatus& status,
               QWidget* parent = nullptr);

    core::ServerSettings settings() const;
    // Whether the entered settings can be used (the key is one a client can send).
    bool valid() const;

signals:
    void validityChanged();

private:
    QWidget* build_address_row();
    void toggle();
    void generate_key();
    void show_state();
    void show_url();
    void check_key();
    QString state_text() const;

    core::ServerStatus& m_status;
    QSpinBox *m_port = nullptr, *m_rows = nullptr;
    QLineEdit* m_key = nullptr;
    QPushButton* m_generate = nullptr;
    QCheckBox* m_keep = nullptr;
    QPushButton* m_toggle = nullptr;
    QLabel* m_state = nullptr;
    QLabel* m_model_note = nullptr;
    QLineEdit* m_url = nullptr;
    QPushButton* m_copy = nullptr;
    ServerLoadView* m_load = nullptr;
};

}  // namespace hearth::ui
