// A failed request to the Hub in words a user can act on.
#pragma once

#include <QNetworkReply>
#include <QString>

#include "app/core/downloads/hub_types.h"

namespace hearth::downloads {

// Why `reply` failed, or nullopt when it succeeded. `what` names what was asked for ("the list
// of files of owner/name"); `token_sent` tells a refused token from a missing one.
std::optional<HubError> reply_error(QNetworkReply& reply, const QString& what, bool token_sent);

}  // namespace hearth::downloads
