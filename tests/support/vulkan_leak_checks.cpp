// Linked into the test binaries that start Vulkan, so that their leak checks under
// AddressSanitizer see Hearth's leaks and not Mesa's.
//
// Lavapipe keeps a few blocks it never frees behind pointers in its own globals. The Vulkan
// loader unloads the driver when each instance is destroyed, and then those blocks look leaked
// with no symbols left to say whose they are (`realloc` called from `<unknown module>`), so no
// suppression could name them. Keeping the driver loaded to the end keeps its globals, and with
// them the blocks, reachable, and leaves every frame inside it symbolised.
//
// Deliberately no suppression by library (leak:libvulkan_lvp.so, leak:libvulkan.so): every
// Vulkan object Hearth creates is allocated inside the driver, so such a line would hide Hearth's
// own leaks too: a VkPipelineCache never destroyed is reported from libvulkan_lvp.so.
#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>

namespace {

// RTLD_NODELETE marks the driver the loader opens (the same file) as never to be unloaded.
// Null where lavapipe is not installed: then there is nothing of it to keep.
[[maybe_unused]] void* const kLavapipe = dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);

}  // namespace
#endif
