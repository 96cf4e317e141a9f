// A repository's GGUF files as the models a user chooses between: a model split into
// NAME-00001-of-0000N.gguf parts is one choice with all its parts.
#pragma once

#include <QString>

#include <vector>

#include "app/core/downloads/hub_types.h"

namespace hearth::downloads {

struct GgufChoice {
    QString name;                // the file name without ".gguf" and without the split suffix
    QString quantization;        // read from the name ("Q4_K_M", "F16"); empty when it has none
    std::vector<HubFile> parts;  // one, or every part of a split model in order
    int declared_parts = 1;      // N of -of-0000N; more than parts.size() when some are missing

    bool split() const { return declared_parts > 1; }
    bool complete() const { return static_cast<int>(parts.size()) == declared_parts; }
    qint64 total_bytes() const;
};

// Every .gguf file of `files` as a choice, in the order of their names.
std::vector<GgufChoice> gguf_choices(const std::vector<HubFile>& files);

// The choice `file` (a path, a file name, or a choice's name) picks, if any.
const GgufChoice* find_choice(const std::vector<GgufChoice>& choices, const QString& file);

// "Q4_K_M" from "Llama-3.2-1B-Instruct-Q4_K_M.gguf"; empty when the name carries none.
QString quantization_in_name(const QString& file_name);

}  // namespace hearth::downloads
