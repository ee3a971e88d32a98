// Apple silicon's unified memory in an answer: the machine's memory counted
// once, the part macOS lets the GPU wire by default, and the sysctl that
// raises it when the plan needs more (gpu.hpp UnifiedMemoryRule).

#include <algorithm>
#include <cmath>
#include <string>

#include "answer/sections.hpp"
#include "vram/units.hpp"

namespace vram::answer {

using nlohmann::json;

double wired_limit_mib(const GpuCatalog& gpus, const Gpu& gpu, double need_bytes) {
  const double need_mib = std::ceil(need_bytes / kBytesPerMiB);
  // A whole GiB above the need, as people set it (114688 = 112 GiB), within the most suggested.
  const double whole_gib = std::ceil(need_mib / 1024.0) * 1024.0;
  const double most_mib = std::floor(gpus.wired_ceiling_bytes(gpu.vram_gb) / kBytesPerMiB);
  return std::max(need_mib, std::min(whole_gib, most_mib));
}

json unified_section(const GpuCatalog& gpus, const Gpu& gpu, double need_bytes, bool budget_given) {
  const UnifiedMemoryRule& rule = gpus.unified_memory;
  const double memory = gpus.unified_bytes(gpu);
  const double limit = gpus.usable_bytes(gpu);
  const bool stated = gpu.usable_gib > 0;  // the catalog's own figure for this machine
  json out = obj({{"assumptions",
                   json::array({Message{
                       "assumption.unified_memory",
                       obj({{"gpu", gpu.name},
                            {"memory_gib", memory / kBytesPerGiB},
                            {"limit_gib", limit / kBytesPerGiB},
                            {"limit", limit},
                            {"share", limit / memory * 100},
                            {"source", quotation(stated ? gpu.usable_source : rule.source)}})}})}});
  const double ceiling = gpus.wired_ceiling_bytes(gpu.vram_gb);
  // What the answer says of it, for programs: the command is null where none is needed (or a
  // budget, the user's own limit, stands in) or none would do.
  json& facts = out["unified_memory"] = obj({{"memory_gib", memory / kBytesPerGiB},
                                             {"limit_gib", limit / kBytesPerGiB},
                                             {"ceiling_gib", ceiling / kBytesPerGiB},
                                             {"need_gib", need_bytes / kBytesPerGiB},
                                             {"sysctl", rule.sysctl},
                                             {"wired_limit_mb", nullptr},
                                             {"command", nullptr}});
  if (budget_given || !(need_bytes > limit)) return out;
  if (need_bytes > ceiling) {
    out["warnings"] = json::array(
        {Message{"warning.wired_beyond", obj({{"gpu", gpu.name},
                                              {"need", need_bytes},
                                              {"need_gib", need_bytes / kBytesPerGiB},
                                              {"ceiling_gib", ceiling / kBytesPerGiB},
                                              {"memory_gib", memory / kBytesPerGiB},
                                              {"source", quotation(rule.raise_source)}})}});
    return out;
  }
  const double mib = wired_limit_mib(gpus, gpu, need_bytes);
  const std::string command =
      "sudo sysctl " + rule.sysctl + "=" + std::to_string(static_cast<std::int64_t>(mib));
  out["warnings"] = json::array(
      {Message{"warning.wired_raise", obj({{"gpu", gpu.name},
                                           {"need", need_bytes},
                                           {"need_gib", need_bytes / kBytesPerGiB},
                                           {"limit_gib", limit / kBytesPerGiB},
                                           {"command", quotation(command)},
                                           {"raised_gib", mib / 1024},
                                           {"raised", mib * kBytesPerMiB},
                                           {"left_gib", (memory / kBytesPerMiB - mib) / 1024},
                                           {"source", quotation(rule.raise_source)}})}});
  facts["wired_limit_mb"] = static_cast<std::int64_t>(mib);
  facts["command"] = command;
  return out;
}

}  // namespace vram::answer
