#include "ui/model_header.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

#include "ui/elided_label.h"
#include "ui/named_button.h"

namespace hearth::ui {

ModelHeader::ModelHeader(QWidget* parent) : QWidget(parent) {
    // Shortened rather than widening the window past a small screen or wrapping word by word
    // beside the buttons: a model's name can be long.
    m_model = new ElidedLabel(tr("No model loaded"));
    m_model->setObjectName(QStringLiteral("model"));
    auto* choose = named_button(tr("Models…"), "chooseModel", tr("Choose a model"));
    m_load_progress = new QProgressBar;
    m_load_progress->setObjectName(QStringLiteral("loadProgress"));
    m_load_progress->setAccessibleName(tr("Loading the model"));
    m_load_progress->setRange(0, 100);
    m_load_progress->hide();
    m_cancel_load = named_button(tr("Cancel"), "cancelLoad", tr("Cancel loading"));
    m_cancel_load->hide();
    auto* settings = named_button(tr("Settings…"), "settings", tr("Settings"));
    m_performance =
        named_button(tr("Performance"), "showDashboard", tr("Show the performance dashboard"));
    m_performance->setCheckable(true);
    m_purpose = new QLabel;
    m_purpose->setObjectName(QStringLiteral("modelPurpose"));
    m_purpose->setWordWrap(true);
    m_purpose->hide();
    m_notice = new QLabel;
    m_notice->setObjectName(QStringLiteral("modelNotice"));
    m_notice->setWordWrap(true);
    m_notice->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notice->hide();
    auto* row = new QHBoxLayout;
    row->addWidget(m_model, 1);
    row->addWidget(m_load_progress);
    row->addWidget(m_cancel_load);
    row->addWidget(choose);
    row->addWidget(settings);
    row->addWidget(m_performance);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(row);
    layout->addWidget(m_purpose);
    layout->addWidget(m_notice);

    connect(choose, &QPushButton::clicked, this, &ModelHeader::chooseModelClicked);
    connect(settings, &QPushButton::clicked, this, &ModelHeader::settingsClicked);
    connect(m_cancel_load, &QPushButton::clicked, this, &ModelHeader::cancelLoadClicked);
    connect(m_performance, &QPushButton::toggled, this, &ModelHeader::dashboardToggled);
}

void ModelHeader::show_model(const QString& text, const QString& purpose) {
    m_model->setText(text);
    m_model->update_tooltip();
    m_purpose->setText(purpose);
    m_purpose->setVisible(!purpose.isEmpty());
}

void ModelHeader::show_notice(const QString& text) {
    m_notice->setText(text);
    m_notice->setVisible(!text.isEmpty());
}

void ModelHeader::show_load_progress(int percent) {
    m_load_progress->show();
    m_cancel_load->show();
    m_load_progress->setValue(percent);
}

void ModelHeader::hide_load_progress() {
    m_load_progress->hide();
    m_cancel_load->hide();
}

void ModelHeader::set_dashboard_shown(bool shown) {
    m_performance->setChecked(shown);
}

}  // namespace hearth::ui
