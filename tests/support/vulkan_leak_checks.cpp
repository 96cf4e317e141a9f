// Linked into the Vulkan test binaries: Mesa's lavapipe leaks a few bytes from code it unloads
// (no symbols left to suppress by name), so allocations in those binaries are not leak-checked
// under AddressSanitizer; every other test binary's are.
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>

namespace {

[[maybe_unused]] const bool kLeakChecksOff = [] {
    __lsan_disable();
    return true;
}();

}  // namespace
#endif
