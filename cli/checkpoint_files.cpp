#include "checkpoint_files.hpp"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

#include "args.hpp"
#include "render.hpp"
#include "vram/checkpoint.hpp"
#include "vram/error.hpp"
#include "vram/json_object.hpp"
#include "vram/limits.hpp"
#include "vram/safetensors.hpp"

namespace vramcli {

using nlohmann::json;

namespace {

bool is_flag(const std::string& arg) { return arg.rfind("--", 0) == 0; }

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

/** A file's header: read 1 MiB, then whatever the core says it needs (within its limit). */
json inspect_path(const std::string& kind, const std::string& path, bool list_tensors) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw UsageError("usage.cannot_read", {{"flag", "--" + kind}, {"path", path}});
  const auto size = static_cast<std::uint64_t>(in.tellg());
  std::uint64_t want = std::min<std::uint64_t>(size, 1u << 20);
  std::string bytes;
  for (;;) {
    if (want > bytes.max_size())
      throw UsageError("usage.header_too_large", {{"flag", "--" + kind}, {"path", path}});
    bytes.resize(static_cast<std::size_t>(want));
    in.seekg(0);
    in.read(bytes.data(), static_cast<std::streamsize>(want));
    if (static_cast<std::uint64_t>(in.gcount()) != want) {
      throw UsageError("usage.cannot_read", {{"flag", "--" + kind}, {"path", path}});
    }
    json out = json::parse(vram::inspect(kind, bytes, static_cast<double>(size), list_tensors));
    const json* error = out.contains("error") ? &out["error"] : nullptr;
    if (error == nullptr) {
      out["path"] = path;
      return out;
    }
    const std::string code = error->at("code").get<std::string>();
    if (code == "truncated" && want < size) {
      // Grow at least twofold: a header of n key-values needs at most log n reads. The
      // core refuses a header past vram::limits::kMaxHeaderBytes before asking for it.
      want = std::min<std::uint64_t>(
          size, std::max<std::uint64_t>(error->at("needed_bytes").get<std::uint64_t>(), 2 * want));
      continue;
    }
    throw vram::Error(
        code, error->at("field").get<std::string>(),
        path + ": " + error->at("message").get<std::string>(),
        vram::Message{error->at("message_id").get<std::string>(), error->at("params")});
  }
}

/** The index's text, refused by its size before a byte of it is read. */
std::string read_index_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw UsageError("usage.cannot_read", {{"flag", "--index"}, {"path", path}});
  const auto size = static_cast<std::uint64_t>(in.tellg());
  if (size > vram::limits::kMaxIndexBytes) {
    throw vram::Error::make(
        "too_large", "index", "error.checkpoint_index",
        vram::obj({{"field", "index"}, {"size", size}, {"limit", vram::limits::kMaxIndexBytes}}));
  }
  std::string text(static_cast<std::size_t>(size), '\0');
  in.seekg(0);
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (static_cast<std::uint64_t>(in.gcount()) != size)
    throw UsageError("usage.cannot_read", {{"flag", "--index"}, {"path", path}});
  return text;
}

}  // namespace

CheckpointArgs take_checkpoint_args(std::vector<std::string>& args) {
  CheckpointArgs out;
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--gguf" || arg == "--index") {
      if (i + 1 >= args.size() || is_flag(args[i + 1]))
        throw UsageError("usage.needs_path", {{"flag", arg}});
      if (arg == "--gguf") {
        out.gguf.push_back(args[++i]);
      } else {
        if (!out.index.empty()) throw UsageError("usage.index_twice");
        out.index = args[++i];
      }
    } else if (arg == "--tensors") {
      out.list_tensors = true;
    } else if (arg == "--safetensors") {
      const std::size_t before = out.safetensors.size();
      while (i + 1 < args.size() && !is_flag(args[i + 1])) out.safetensors.push_back(args[++i]);
      if (out.safetensors.size() == before) throw UsageError("usage.safetensors_paths");
    } else {
      rest.push_back(arg);
    }
  }
  const std::size_t given = std::max(out.gguf.size(), out.safetensors.size());
  if (given > vram::limits::kMaxShards) {
    throw vram::Error::make("too_large", out.gguf.empty() ? "--safetensors" : "--gguf",
                            "error.checkpoint_shards",
                            vram::obj({{"field", out.gguf.empty() ? "--safetensors" : "--gguf"},
                                       {"size", given},
                                       {"limit", vram::limits::kMaxShards}}));
  }
  if (!out.gguf.empty() && (!out.safetensors.empty() || !out.index.empty())) {
    throw UsageError("usage.gguf_and_safetensors");
  }
  if (!out.index.empty() && !out.safetensors.empty()) {
    throw UsageError("usage.index_and_safetensors");
  }
  args = rest;
  return out;
}

std::vector<json> inspect_files(const CheckpointArgs& files) {
  std::vector<json> out;
  for (const std::string& path : files.gguf)
    out.push_back(inspect_path("gguf", path, files.list_tensors));
  std::vector<std::string> shards = files.safetensors;
  if (!files.index.empty()) {
    // The core's reader: member by member, within its limits; each file once (linear).
    vram::safetensors::Index parsed;
    try {
      parsed = vram::safetensors::read_index(read_index_text(files.index));
    } catch (const vram::Error& e) {
      if (e.message().id != "error.index_json") throw;
      throw UsageError("usage.index_not_json",
                       {{"path", files.index}, {"byte", e.message().params.at("byte")}});
    }
    for (const std::string& file : parsed.files) {
      if (file.find('/') != std::string::npos || file.find("..") != std::string::npos) {
        throw vram::Error::make("invalid_index", "index.weight_map", "error.index_outside",
                                vram::obj({{"file", vram::Error::quote(file)}}));
      }
      shards.push_back(directory_of(files.index) + file);
    }
  }
  for (const std::string& path : shards)
    out.push_back(inspect_path("safetensors", path, files.list_tensors));
  return out;
}

json checkpoint_request(const std::vector<json>& inspections) {
  json files = json::array();
  json config;
  for (const json& inspection : inspections) {
    files.push_back(inspection.at("file"));
    if (inspection.contains("config_error")) {
      const json& e = inspection["config_error"];
      throw vram::Error(e.at("code").get<std::string>(), e.at("field").get<std::string>(),
                        e.at("message").get<std::string>(),
                        vram::Message{e.at("message_id").get<std::string>(), e.at("params")});
    }
    if (inspection.contains("config") && config.is_null()) config = inspection["config"];
  }
  json out = {{"files", files}};
  if (!config.is_null()) out["config"] = config;
  return out;
}

std::string render_inspection(const std::vector<json>& inspections, const Words& say) {
  std::ostringstream out;
  std::map<std::string, double> bytes_by_type;
  std::map<std::string, double> elements_by_type;
  std::map<std::string, double> by_component;
  double total = 0;
  for (const json& i : inspections) {
    const json& file = i.at("file");
    // The format by its name: GGUF, or safetensors as the format calls itself.
    const std::string format = file.at("format") == "gguf" ? "GGUF" : "safetensors";
    out << say("cli.inspect_file", {{"path", i.value("path", std::string("-"))},
                                    {"format", format},
                                    {"tensors", file.at("tensor_count")},
                                    {"bytes", file.at("bytes")}});
    if (file.contains("split")) {
      // The core bounds both by vram::limits::kMaxShards; counted in 64 bits all the same.
      out << " "
          << say("cli.inspect_part", {{"no", file["split"]["no"].get<std::int64_t>() + 1},
                                      {"count", file["split"]["count"]}});
    }
    if (i.contains("config"))
      out << say("list.sep") << i["config"]["model_type"].get<std::string>();
    out << "\n";
    for (auto it = file.at("by_type").begin(); it != file.at("by_type").end(); ++it) {
      bytes_by_type[it.key()] += it->at("bytes").get<double>();
      elements_by_type[it.key()] += it->at("elements").get<double>();
    }
    for (auto it = file.at("by_component").begin(); it != file.at("by_component").end(); ++it)
      by_component[it.key()] += it->at("bytes").get<double>();
    total += file.at("bytes").get<double>();
  }
  std::vector<std::pair<std::string, double>> types(bytes_by_type.begin(), bytes_by_type.end());
  std::stable_sort(types.begin(), types.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  out << "\n" << say("cli.inspect_mix", {{"bytes", total}}) << "\n";
  for (const auto& [type, bytes] : types) {
    const double elements = elements_by_type[type];
    out << "  " << pad(type, 12) << pad(say.number(bytes / 1e9, 2), 10, true) << " GB  "
        << (elements > 0 ? say("cli.inspect_bits", {{"bits", bytes * 8 / elements}}) : "-") << "\n";
  }
  out << "\n" << say("cli.inspect_components") << "\n";
  for (const auto& [component, bytes] : by_component) {
    out << "  " << pad(say("component." + component), 24)
        << pad(say.number(bytes / 1e9, 2), 10, true) << " GB\n";
  }
  return out.str();
}

}  // namespace vramcli
