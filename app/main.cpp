// hearth: the desktop app. Wires the window to the engine thread and loads the last model used,
// or the bundled one.
//   hearth [MODEL.gguf] [--screenshots DIR] [--tour-status FILE]
//   hearth --version
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QIcon>
#include <QStandardPaths>

#include <cstring>
#include <iostream>

#include "app/bundled_model.h"
#include "app/core/app_settings.h"
#include "app/core/model_catalog.h"
#include "app/engine_controller.h"
#include "app/screenshot_tour.h"
#include "app/server_controller.h"
#include "app/tour_status.h"
#include "app/wiring.h"
#include "packaging/build_info.h"
#include "ui/main_window.h"
#include "ui/theme.h"

namespace {

// Whether the command line asks only for the version: answered before QApplication exists, so
// it works where no window can open (a terminal over ssh, a package's install test).
bool asks_for_version(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--version") == 0 || std::strcmp(argv[i], "-v") == 0) return true;
    }
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    if (asks_for_version(argc, argv)) {
        std::cout << "hearth " << hearth::build_info::kVersionLine << '\n';
        return 0;
    }
    QApplication application(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Hearth"));
    QApplication::setOrganizationName(QStringLiteral("Hearth"));
    QApplication::setApplicationVersion(QString::fromUtf8(hearth::build_info::kVersionLine));
    // The installed desktop entry and icon (packaging/): Wayland matches the window to the entry
    // by this name, and the window shows the icon the theme has for it.
    QApplication::setDesktopFileName(QStringLiteral("io.github.hearth.Hearth"));
    QApplication::setWindowIcon(QIcon::fromTheme(QStringLiteral("io.github.hearth.Hearth")));
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addVersionOption();  // listed by --help; answered above
    parser.addPositionalArgument(QStringLiteral("model"), QStringLiteral("A GGUF model to load."));
    const QCommandLineOption screenshots(
        QStringLiteral("screenshots"),
        QStringLiteral("Save a tour of the window to DIR, then quit."), QStringLiteral("DIR"));
    parser.addOption(screenshots);
    const QCommandLineOption tour_status(
        QStringLiteral("tour-status"),
        QStringLiteral("Keep FILE up to date with what a driver sending input events needs."),
        QStringLiteral("FILE"));
    parser.addOption(tour_status);
    parser.process(application);

    auto settings = hearth::core::load_global_settings();
    hearth::ui::apply_theme(settings.theme, settings.font_size);
    hearth::ui::MainWindow window(settings);
    const QString data = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    QDir().mkpath(data);
    hearth::core::HistoryStore history(data + QStringLiteral("/history.sqlite"));
    window.set_history(&history);
    hearth::EngineController engine;
    hearth::wire(window, engine);
    // Declared after the engine, so it goes first: quitting stops the server before anything
    // it reports to is gone.
    hearth::ServerController server;
    hearth::wire(window, server, engine);
    std::filesystem::path bundled;
    try {
        bundled = hearth::bundled_model_path();
    } catch (const std::exception& error) {
        window.showError(QString::fromStdString(error.what()));
    }
    window.set_model_source([bundled](const QStringList& folders) {
        return hearth::core::scan_models(hearth::core::model_folders(folders), bundled);
    });
    QObject::connect(&window, &hearth::ui::MainWindow::globalSettingsChanged,
                     [](const hearth::core::GlobalSettings& changed) {
                         hearth::core::save_global_settings(changed);
                     });
    if (parser.isSet(screenshots)) {
        hearth::start_screenshot_tour(window, engine, parser.value(screenshots));
    }
    if (parser.isSet(tour_status)) {
        hearth::start_tour_status(window, engine, parser.value(tour_status));
    }
    window.show();

    QString model = parser.positionalArguments().value(0);
    const bool model_named = !model.isEmpty();
    if (model.isEmpty() && !parser.isSet(screenshots) && QFileInfo::exists(settings.last_model)) {
        model = settings.last_model;
    }
    if (model.isEmpty() && !bundled.empty()) model = QString::fromStdString(bundled.string());
    // The remote model in use when the app closed answers again, unless a model is named on the
    // command line; the local model is loaded only if the remote one cannot be used.
    const bool remote = !model_named && !parser.isSet(screenshots) && window.restore_remote(model);
    // One that fails falls back to the last good model or the bundled one.
    if (!remote && !model.isEmpty()) window.load_model(model);
    const int status = QApplication::exec();
    window.purge_deleted();
    hearth::core::save_global_settings(window.global_settings());
    return status;
}
