// vramcalc: the sizing core on the command line. Flags become a JSON
// request, the core answers, and the answer is printed as a table or, with
// --json, as the same JSON the wasm module returns. docs/cli.md has it all.

#include <algorithm>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "args.hpp"
#include "checkpoint_files.hpp"
#include "render.hpp"
#include "render_curve.hpp"
#include "render_log.hpp"
#include "vram/api.hpp"
#include "vram/error.hpp"
#include "vram/messages.hpp"

namespace {

using nlohmann::json;
using vramcli::FlagKind;
using vramcli::FlagSpec;

/** The top-level usage, from the catalogs (cli.usage). */
std::string usage(const vram::RenderOptions& options = {}) {
  return vram::render({"cli.usage", json::object()}, vram::MessageCatalogs::builtin(), options);
}

/** The CLI's own flags, beside the request's. */
const char* const kLangFlag = "--lang";

/**
 * The language asked for with --lang, looked up before the flags are parsed
 * so that --help and usage errors speak it too; English when absent or
 * unknown (parse_flags then reports an unknown one).
 */
vram::RenderOptions early_options(const std::vector<std::string>& args) {
  vram::RenderOptions options;
  const std::vector<std::string> langs = vram::MessageCatalogs::builtin().languages();
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string lang;
    if (args[i] == kLangFlag && i + 1 < args.size()) lang = args[i + 1];
    if (args[i].rfind(std::string(kLangFlag) + "=", 0) == 0) lang = args[i].substr(7);
    if (std::find(langs.begin(), langs.end(), lang) != langs.end()) options.lang = lang;
  }
  return options;
}

/** A schema field's help line: its help message, then default, range, choices, unit. */
std::string describe(const json& field, const vram::RenderOptions& options) {
  const auto& catalogs = vram::MessageCatalogs::builtin();
  auto say = [&](const std::string& id, json params = json::object()) {
    return vram::render({id, std::move(params)}, catalogs, options);
  };
  std::string text = say(field.at("help").get<std::string>());
  json details = json::array();
  if (field.contains("default")) {
    const json& d = field.at("default");
    // A switch's default is on or off, a number is written in the language's
    // digits; a name or a list is the value as typed.
    const json value = d.is_boolean() ? json{{"id", d.get<bool>() ? "word.on" : "word.off"}}
                       : d.is_string() || d.is_number() ? d
                                                        : json(d.dump());
    details.push_back({{"id", "cli.default"}, {"params", {{"value", value}}}});
  }
  if (field.contains("min") && field.contains("max")) {
    const bool open_low = field.value("min_exclusive", false);
    const bool open_high = field.value("max_exclusive", false);
    const char* id = open_low    ? (open_high ? "cli.range_open" : "cli.range_open_low")
                     : open_high ? "cli.range_open_high"
                                 : "cli.range";
    details.push_back(
        {{"id", id}, {"params", {{"min", field.at("min")}, {"max", field.at("max")}}}});
  }
  if (field.contains("choices") && !field.contains("choices_from") &&
      field.at("choices").size() <= 12) {
    details.push_back({{"id", "cli.choices"}, {"params", {{"choices", field.at("choices")}}}});
  }
  if (field.contains("unit")) {
    const json unit = {{"id", "cli.unit." + field.at("unit").get<std::string>()}};
    details.push_back({{"id", "cli.unit"}, {"params", {{"unit", unit}}}});
  }
  if (!details.empty()) text += " " + say("cli.details", {{"details", details}});
  return text;
}

void print_flags(std::ostream& out, const std::vector<FlagSpec>& specs,
                 const vram::RenderOptions& options) {
  const auto& catalogs = vram::MessageCatalogs::builtin();
  out << "\n" << vram::render({"cli.flags", json::object()}, catalogs, options) << "\n";
  for (const FlagSpec& spec : specs) {
    // A switch that sets its field to its default says nothing: leave it out.
    const json fallback = spec.field.value("default", json());
    if ((spec.kind == FlagKind::kTrue && fallback == true) ||
        (spec.kind == FlagKind::kFalse && fallback == false)) {
      continue;
    }
    out << "  " << vramcli::pad(spec.flag, 25) << describe(spec.field, options) << "\n";
  }
  out << "  " << vramcli::pad("--json", 25)
      << vram::render({"cli.json", json::object()}, catalogs, options) << "\n";
  out << "  " << vramcli::pad("--emit", 25)
      << vram::render({"cli.emit", json::object()}, catalogs, options) << "\n";
}

int usage_error(const std::string& message, const std::vector<FlagSpec>* specs = nullptr,
                const vram::RenderOptions& options = {}) {
  std::cerr << "vramcalc: " << message << "\n";
  if (specs != nullptr) print_flags(std::cerr, *specs, options);
  return 2;
}

/** The flags of `command`, from the core's schema; empty for listings. */
std::vector<FlagSpec> command_flags(const json& schema, const std::string& command) {
  std::vector<FlagSpec> specs;
  const json& requests = schema.at("requests");
  // The curve takes the estimate's request.
  const std::string table = command == "curve" ? "estimate" : command;
  if (requests.contains(table)) specs = vramcli::flags_from_schema(requests.at(table));
  if (table == "estimate") {
    // --tp: the engines' tensor_parallel_size knob (vLLM's, SGLang's: the same range).
    for (const json& knob : schema.at("engines").at("vllm")) {
      if (knob.at("name") == "tensor_parallel_size")
        specs.push_back({"--tp", "tensor_parallel_size", FlagKind::kEngineInt, knob});
    }
    // llama.cpp's placement: --gpu-layers (its -ngl) and --n-cpu-moe, a number or "auto".
    for (const json& knob : schema.at("engines").at("llamacpp")) {
      const std::string name = knob.at("name").get<std::string>();
      if (name == "gpu_layers" || name == "n_cpu_moe") {
        std::string flag = "--" + name;
        std::replace(flag.begin(), flag.end(), '_', '-');
        specs.push_back({flag, name, FlagKind::kEngineInt, knob});
      }
    }
  }
  if (command == "log") {
    // The log is a file's text: `vramcalc log FILE` or --log FILE.
    for (FlagSpec& spec : specs) {
      if (spec.key == "log") spec.kind = FlagKind::kTextFile;
    }
  }
  if (command == "estimate" || command == "inspect") {
    // Checkpoint files: read by the CLI (checkpoint_files.hpp), sent as "checkpoint".
    specs.push_back({"--gguf", "gguf", FlagKind::kCli, json{{"help", "cli.gguf"}}});
    specs.push_back(
        {"--safetensors", "safetensors", FlagKind::kCli, json{{"help", "cli.safetensors"}}});
    specs.push_back({"--index", "index", FlagKind::kCli, json{{"help", "cli.index"}}});
    if (command == "inspect")
      specs.push_back({"--tensors", "tensors", FlagKind::kCli, json{{"help", "cli.tensors"}}});
  }
  specs.push_back({kLangFlag, "lang", FlagKind::kCli, json{{"help", "cli.lang"}}});
  return specs;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const vram::RenderOptions early = early_options(args);
  // `vramcalc --lang fa help`: the language may come before the command.
  while (!args.empty() && (args[0] == kLangFlag || args[0].rfind("--lang=", 0) == 0)) {
    args.erase(args.begin(), args.begin() + (args[0] == kLangFlag && args.size() > 1 ? 2 : 1));
  }
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    (args.empty() ? std::cerr : std::cout) << usage(early);
    return args.empty() ? 2 : 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  static const char* const kCommands[] = {"estimate", "inspect", "log",   "curve",
                                          "grid",     "devices", "fleet", "models",
                                          "formats",  "gpus",    "schema"};
  if (std::find(std::begin(kCommands), std::end(kCommands), command) == std::end(kCommands)) {
    return usage_error(vramcli::Words{early}("usage.unknown_command", {{"command", command}}) +
                       "\n\n" + usage(early));
  }

  try {
    const vram::Calculator calculator;
    const json schema = calculator.schema();
    const std::vector<FlagSpec> specs = command_flags(schema, command);
    vram::RenderOptions options = early;
    if (std::find(args.begin(), args.end(), "--help") != args.end() ||
        std::find(args.begin(), args.end(), "-h") != args.end()) {
      print_flags(std::cout, specs, options);
      return 0;
    }
    vramcli::Parsed parsed;
    vramcli::CheckpointArgs files;
    try {
      if (command == "estimate" || command == "inspect")
        files = vramcli::take_checkpoint_args(args);
      if (command == "inspect" && !files.any()) throw vramcli::UsageError("usage.inspect_files");
      if (command != "inspect" && files.list_tensors)
        throw vramcli::UsageError("usage.unknown_flag", {{"flag", "--tensors"}});
      if (command == "log" && !args.empty() && args[0].rfind("-", 0) != 0)
        args.insert(args.begin(), "--log");  // vramcalc log FILE
      parsed = vramcli::parse_flags(args, specs);
      const std::vector<std::string> langs = vram::MessageCatalogs::builtin().languages();
      if (std::find(langs.begin(), langs.end(), parsed.lang) == langs.end()) {
        throw vramcli::UsageError("usage.no_catalog", {{"lang", parsed.lang}, {"known", langs}});
      }
      options.lang = parsed.lang;
    } catch (const vramcli::UsageError& e) {
      return usage_error(vramcli::Words{options}.msg(e.message), &specs, options);
    }
    const vramcli::Words say{options};
    try {
      if (command == "inspect") {
        const std::vector<json> inspections = vramcli::inspect_files(files);
        std::cout << (parsed.json_output
                          ? json(inspections).dump(2, ' ', false, json::error_handler_t::replace) +
                                "\n"
                          : vramcli::render_inspection(inspections, say));
        return 0;
      }
      if (command == "estimate" && files.any()) {
        const std::vector<json> inspections = vramcli::inspect_files(files);
        parsed.request["checkpoint"] = vramcli::checkpoint_request(inspections);
        if (!parsed.json_output) std::cout << vramcli::render_inspection(inspections, say) << "\n";
      }
      if (command == "estimate") {
        const json result = calculator.estimate(parsed.request);
        if (parsed.emit) {
          // Only the command that runs the plan, for a shell script.
          if (!result.contains("launch")) return usage_error(say("cli.emit_none"));
          std::cout << result.at("launch").at("command").get<std::string>() << "\n";
          return 0;
        }
        std::cout << (parsed.json_output ? result.dump(2) + "\n"
                                         : vramcli::render_estimate(result, say));
      } else if (command == "curve") {
        const json result = calculator.curve(parsed.request);
        std::cout << (parsed.json_output ? result.dump(2) + "\n"
                                         : vramcli::render_curve(result, say));
      } else if (command == "log") {
        if (!parsed.request.contains("log")) throw vramcli::UsageError("usage.log_file");
        const json result = calculator.log(parsed.request);
        std::cout << (parsed.json_output
                          ? result.dump(2, ' ', false, json::error_handler_t::replace) + "\n"
                          : vramcli::render_log(result, say));
      } else if (command == "grid") {
        const json result = calculator.grid(parsed.request);
        std::cout << (parsed.json_output ? result.dump(2) + "\n"
                                         : vramcli::render_grid(result, say));
      } else if (command == "devices") {
        const json result = calculator.devices(parsed.request);
        std::cout << (parsed.json_output ? result.dump(2) + "\n"
                                         : vramcli::render_devices(result, say));
      } else if (command == "fleet") {
        const json result = calculator.fleet(parsed.request);
        std::cout << (parsed.json_output ? result.dump(2) + "\n"
                                         : vramcli::render_fleet(result, say));
      } else if (command == "schema") {
        std::cout << schema.dump(2) << "\n";
      } else {
        const json presets = calculator.presets();
        std::cout << (parsed.json_output ? presets.dump(2) + "\n"
                                         : vramcli::render_presets(presets, command, say));
      }
    } catch (const vram::Error& e) {
      const std::string flag = vramcli::flag_for_field(specs, e.field());
      // The core's error in the language asked for (its message); in English its
      // full text, which may name where in a file the problem is.
      std::cerr << "vramcalc: " << (flag.empty() ? e.field() : flag) << ": "
                << (options.lang == "en" ? std::string(e.what())
                                         : say(e.message().id, e.message().params))
                << " [" << e.code() << "]\n";
      return e.code() == "internal" ? 1 : 2;
    } catch (const vramcli::UsageError& e) {
      return usage_error(say.msg(e.message), &specs, options);
    }
  } catch (const std::exception& e) {
    std::cerr << "vramcalc: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
