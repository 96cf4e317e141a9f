// One run of the dashboard's "Run benchmark": the standard prompt-processing and generation
// measurements on the loaded model, with where and how it ran.
#pragma once

#include <QMetaType>
#include <QString>

namespace hearth::core {

struct BenchmarkResult {
    qint64 created_ms = 0;
    QString model_file;
    QString model_sha256;
    QString backend;
    QString machine;  // CPU model and core count
    QString build;    // Hearth's version and build date
    int prompt_tokens = 0;
    double prompt_tokens_per_second = 0;
    int generated_tokens = 0;
    double generation_tokens_per_second = 0;
};

}  // namespace hearth::core

Q_DECLARE_METATYPE(hearth::core::BenchmarkResult)
