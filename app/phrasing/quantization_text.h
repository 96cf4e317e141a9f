// A file's quantisation as the picker shows it: the file type, then its mix by share of the
// parameters ("Q3_K_M: Q3_K 61%, Q4_K 29%, Q6_K 7%, Q5_K 4%"), or the file type alone when one
// type of that name holds (nearly) every parameter ("Q8_0").
#pragma once

#include <string>

#include "engine/model/model_info.h"

namespace hearth {

// Types under half a percent of the parameters (the float norms of a quantised file) are left
// out; the shares are rounded to whole percents.
std::string quantization_text(const ModelInfo& info);

}  // namespace hearth
