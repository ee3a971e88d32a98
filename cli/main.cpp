// vramcalc: the sizing core on the command line. Flags become a JSON
// request, the core answers, and the answer is printed as a table or, with
// --json, as the same JSON the wasm module returns. docs/cli.md has it all.

#include <iostream>
#include <string>
#include <vector>

#include "args.hpp"
#include "checkpoint_files.hpp"
#include "render.hpp"
#include "vram/api.hpp"
#include "vram/error.hpp"

namespace {

using nlohmann::json;
using vramcli::FlagKind;
using vramcli::FlagSpec;

const std::vector<FlagSpec> kEstimateFlags = {
    {"--model", "model", FlagKind::kString, "preset id (see `vramcalc models`)"},
    {"--config", "config", FlagKind::kJsonFile, "a Hugging Face config.json"},
    {"--params-total", "params_total", FlagKind::kNumber, "override the parameter count"},
    {"--params-active", "params_active", FlagKind::kNumber, "override the active parameter count"},
    {"--weights", "weights", FlagKind::kString, "weight format (default: the checkpoint's own)"},
    {"--kv", "kv", FlagKind::kString, "KV cache format (default fp16)"},
    {"--context", "context", FlagKind::kInt, "tokens per sequence (default 8192)"},
    {"--batch", "batch", FlagKind::kInt, "concurrent sequences (default 1)"},
    {"--overhead-gb", "overhead_gb", FlagKind::kNumber, "flat runtime overhead in GB (default 2)"},
    {"--overhead-pct", "overhead_pct", FlagKind::kNumber, "overhead as % of weights + KV cache"},
    {"--engine", "engine", FlagKind::kString, "guide (default), percent, vllm, sglang, llamacpp"},
    {"--engine-opt", "engine_options", FlagKind::kKeyValue,
     "an engine knob, KEY=VALUE (repeatable), e.g. gpu_memory_utilization=0.95"},
    {"--tp", "tensor_parallel_size", FlagKind::kEngineInt, "tensor-parallel GPUs (vllm, sglang)"},
    {"--gpu", "gpu", FlagKind::kString, "a GPU id (see `vramcalc gpus`): fit, budget, decode"},
    {"--gpus", "gpu_count", FlagKind::kInt, "how many of that GPU (default 1)"},
    {"--budget-gb", "budget_gb", FlagKind::kNumber, "a memory budget for the inverse answers"},
    {"--catalog", "catalog", FlagKind::kJsonFile, "a GPU catalog replacing data/gpus.json"},
    {"--mode", "mode", FlagKind::kString, "inference (default), full, lora, qlora"},
    {"--finetune-profile", "finetune_profile", FlagKind::kString, "physical (default) or guide"},
    {"--seq", "seq", FlagKind::kInt, "training sequence length (default 2048)"},
    {"--micro-batch", "micro_batch", FlagKind::kInt, "sequences per GPU per step (default 1)"},
    {"--optimizer", "optimizer", FlagKind::kString, "adamw (default), adamw-8bit, sgd, adafactor"},
    {"--loss", "loss", FlagKind::kString,
     "standard (default), chunked (torchtune), fused (Liger, CCE)"},
    {"--no-upcast", "upcast_unquantized", FlagKind::kFalse,
     "QLoRA: keep unquantized params 16-bit (no prepare_model_for_kbit_training upcast)"},
    {"--precision", "precision", FlagKind::kString,
     "mixed (default: FP32 master + moments) or bf16 (pure)"},
    {"--lora-rank", "lora_rank", FlagKind::kInt, "LoRA rank (default 16)"},
    {"--lora-targets", "lora_targets", FlagKind::kList,
     "comma-separated: q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj,experts"},
    {"--no-checkpointing", "checkpointing", FlagKind::kFalse, "turn gradient checkpointing off"},
    {"--flash-attention", "flash_attention", FlagKind::kBool, "no attention score matrix saved"},
    {"--zero", "zero", FlagKind::kInt, "ZeRO stage 0-3 over --gpus GPUs"},
    {"--offload-optimizer", "offload_optimizer", FlagKind::kBool, "optimizer state in host RAM"},
};

const std::vector<FlagSpec> kGridFlags = {
    {"--models", "models", FlagKind::kList,
     "comma-separated preset ids (default: the guide's five)"},
    {"--methods", "methods", FlagKind::kList, "bf16,fp8,int4,qlora,lora,full (default: all)"},
    {"--context", "context", FlagKind::kInt, "tokens (default 8192)"},
    {"--batch", "batch", FlagKind::kInt, "sequences (default 1)"},
    {"--usable-fraction", "usable_fraction", FlagKind::kNumber,
     "usable share of each card (default 1.0)"},
    {"--catalog", "catalog", FlagKind::kJsonFile, "a GPU catalog replacing data/gpus.json"},
};

const std::vector<FlagSpec> kDevicesFlags = {
    {"--model", "model", FlagKind::kString, "preset id (default beam)"},
    {"--accelerators", "accelerators", FlagKind::kList,
     "comma-separated GPU ids (default: the planner's)"},
    {"--formats", "formats", FlagKind::kList,
     "comma-separated weight formats (default bf16,fp8,q4_k_m,int4)"},
    {"--usable-fraction", "usable_fraction", FlagKind::kNumber,
     "usable share of each device (default 0.92)"},
    {"--context", "context", FlagKind::kInt, "tokens for the KV room (default 8192)"},
    {"--batch", "batch", FlagKind::kInt, "sequences for the KV room (default 1)"},
    {"--kv", "kv", FlagKind::kString, "KV cache format (default fp16)"},
    {"--catalog", "catalog", FlagKind::kJsonFile, "a GPU catalog replacing data/gpus.json"},
};

const std::vector<FlagSpec> kFleetFlags = {
    {"--model", "model", FlagKind::kString,
     "a preset: adds cards needed, decode ceiling, $ per million tokens"},
    {"--weights", "weights", FlagKind::kString, "weight format for --model (default bf16)"},
    {"--context", "context", FlagKind::kInt, "tokens (default 8192)"},
    {"--batch", "batch", FlagKind::kInt, "sequences (default 1)"},
    {"--catalog", "catalog", FlagKind::kJsonFile, "a GPU catalog replacing data/gpus.json"},
};

const char* kUsage =
    "usage: vramcalc <command> [flags]\n"
    "\n"
    "commands:\n"
    "  estimate   memory for one model and setup (--model ID | --config FILE |\n"
    "             --gguf FILE [--gguf PART2 ...] | --safetensors FILE... --config FILE |\n"
    "             --index model.safetensors.index.json --config FILE)\n"
    "  inspect    a checkpoint's headers: its tensor type mix (--gguf | --safetensors | --index)\n"
    "  grid       the lookup grid: models x methods, the cheapest card for each\n"
    "  devices    devices needed for a model's weights, per accelerator and format\n"
    "  fleet      the GPU fleet's cost ratios (and a model's fit on each card)\n"
    "  models     list model presets\n"
    "  formats    list weight and KV cache formats\n"
    "  gpus       list the GPU catalog\n"
    "  help       this text\n"
    "\n"
    "Add --json for machine-readable output. See docs/cli.md.\n";

void print_flags(const std::vector<FlagSpec>& specs) {
  std::cerr << "\nflags:\n";
  for (const FlagSpec& spec : specs) {
    std::cerr << "  " << vramcli::pad(spec.flag, 18) << spec.help << "\n";
  }
  std::cerr << "  " << vramcli::pad("--json", 18) << "print JSON instead of a table\n";
}

int usage_error(const std::string& message, const std::vector<FlagSpec>* specs = nullptr) {
  std::cerr << "vramcalc: " << message << "\n";
  if (specs != nullptr) print_flags(*specs);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    (args.empty() ? std::cerr : std::cout) << kUsage;
    return args.empty() ? 2 : 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  const std::vector<FlagSpec>* specs = nullptr;
  static const std::vector<FlagSpec> kNoFlags;
  if (command == "estimate") {
    specs = &kEstimateFlags;
  } else if (command == "grid") {
    specs = &kGridFlags;
  } else if (command == "devices") {
    specs = &kDevicesFlags;
  } else if (command == "fleet") {
    specs = &kFleetFlags;
  } else if (command == "models" || command == "formats" || command == "gpus" ||
             command == "inspect") {
    specs = &kNoFlags;
  } else {
    return usage_error("unknown command '" + command + "'\n\n" + kUsage);
  }

  vramcli::Parsed parsed;
  vramcli::CheckpointArgs files;
  try {
    if (command == "estimate" || command == "inspect") files = vramcli::take_checkpoint_args(args);
    if (command == "inspect" && !files.any())
      throw vramcli::UsageError("inspect needs --gguf, --safetensors or --index");
    parsed = vramcli::parse_flags(args, *specs);
  } catch (const vramcli::UsageError& e) {
    return usage_error(e.what(), specs);
  }

  try {
    const vram::Calculator calculator;
    if (command == "inspect") {
      const std::vector<json> inspections = vramcli::inspect_files(files);
      std::cout << (parsed.json_output
                        ? json(inspections).dump(2, ' ', false, json::error_handler_t::replace) +
                              "\n"
                        : vramcli::render_inspection(inspections));
      return 0;
    }
    if (command == "estimate" && files.any()) {
      const std::vector<json> inspections = vramcli::inspect_files(files);
      parsed.request["checkpoint"] = vramcli::checkpoint_request(inspections);
      if (!parsed.json_output) std::cout << vramcli::render_inspection(inspections) << "\n";
    }
    if (command == "estimate") {
      const json result = calculator.estimate(parsed.request);
      std::cout << (parsed.json_output ? result.dump(2) + "\n" : vramcli::render_estimate(result));
    } else if (command == "grid") {
      const json result = calculator.grid(parsed.request);
      std::cout << (parsed.json_output ? result.dump(2) + "\n" : vramcli::render_grid(result));
    } else if (command == "devices") {
      const json result = calculator.devices(parsed.request);
      std::cout << (parsed.json_output ? result.dump(2) + "\n" : vramcli::render_devices(result));
    } else if (command == "fleet") {
      const json result = calculator.fleet(parsed.request);
      std::cout << (parsed.json_output ? result.dump(2) + "\n" : vramcli::render_fleet(result));
    } else {
      const json presets = calculator.presets();
      std::cout << (parsed.json_output ? presets.dump(2) + "\n"
                                       : vramcli::render_presets(presets, command));
    }
  } catch (const vramcli::UsageError& e) {
    return usage_error(e.what(), specs);
  } catch (const vram::Error& e) {
    const std::string flag = vramcli::flag_for_field(*specs, e.field());
    std::cerr << "vramcalc: " << (flag.empty() ? e.field() : flag) << ": " << e.what() << " ["
              << e.code() << "]\n";
    return e.code() == "internal" ? 1 : 2;
  } catch (const std::exception& e) {
    std::cerr << "vramcalc: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
