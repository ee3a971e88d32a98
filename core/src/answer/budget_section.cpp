// vLLM's and SGLang's own budget: what the engine may allocate and the KV
// cache it leaves (engine.hpp EngineBudget).

#include "answer/sections.hpp"
#include "vram/units.hpp"

namespace vram::answer {

using nlohmann::json;

json budget_section(const Inference& in) {
  const EngineBudget& b = in.plan.budget;
  if (!b.present) return json::object();
  return obj({{"budget", obj({{"usable_gb", bytes_to_gb(b.usable_bytes)},
                              {"usable_gib", b.usable_bytes / kBytesPerGiB},
                              {"usable_estimated", b.usable_estimated},
                              {"reserved_gb", bytes_to_gb(b.reserved_bytes)},
                              {"kv_budget_gb", bytes_to_gb(b.kv_budget_bytes)},
                              {"kv_budget_gib", b.kv_budget_bytes / kBytesPerGiB},
                              {"kv_bytes_per_token", b.kv_bytes_per_token},
                              {"kv_blocks", b.kv_blocks},
                              {"kv_tokens", b.kv_tokens},
                              {"max_concurrency", b.max_concurrency},
                              {"fits", b.fits}})},
              {"kv_budget_gb", bytes_to_gb(b.kv_budget_bytes)},
              {"kv_blocks", b.kv_blocks},
              {"max_concurrency", b.max_concurrency}});
}

}  // namespace vram::answer
