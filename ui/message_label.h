// A label that tells the user how something went: plain for what happened, red for a problem
// they can act on.
#pragma once

#include <QString>

class QLabel;

namespace hearth::ui {

// An empty, wrapping label whose text the user can select (to copy an error or a path).
QLabel* make_message_label(const char* object_name);
void show_message(QLabel& label, const QString& text, bool problem);

}  // namespace hearth::ui
