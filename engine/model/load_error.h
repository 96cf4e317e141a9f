// The one exception type for bad model files and bad inputs at the engine's boundary.
// Messages name the file and the part that is wrong, so a user can act on them.
#pragma once

#include <stdexcept>
#include <string>

namespace hearth {

class LoadError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The user cancelled a load in progress (not a problem with the file).
class LoadCancelled : public LoadError {
public:
    using LoadError::LoadError;
};

}  // namespace hearth
