// The engine table: one entry per data/engines.json "kind". Adding an engine
// is adding its file (its planner and its EngineRules) and a line here; its
// knobs, defaults, sources and launch form go in data/engines.json.

#include "common.hpp"

namespace vram {
namespace {

const EngineRules* const kEngines[] = {
    &engines::kFlat,   &engines::kPercent,  &engines::kVllm,
    &engines::kSglang, &engines::kLlamacpp, &engines::kTransformers,
};

}  // namespace

const EngineRules* find_engine_rules(std::string_view kind) {
  for (const EngineRules* rules : kEngines) {
    if (kind == rules->kind) return rules;
  }
  return nullptr;
}

}  // namespace vram
