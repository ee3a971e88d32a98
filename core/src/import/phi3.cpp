// Phi-3: Llama-shaped; a sliding_window in the config applies to every layer.

#include "common.hpp"

namespace vram::import {

void import_phi3(Context& c) {
  c.m.intermediate_size = c.require_intermediate();
  if (!apply_layer_types(c) && c.m.sliding_window > 0) set_all_sliding(c.m);
}

}  // namespace vram::import
