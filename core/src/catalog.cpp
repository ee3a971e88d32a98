#include "vram/catalog.hpp"

#include <set>

#include "embedded_data.hpp"
#include "json_read.hpp"
#include "vram/error.hpp"

namespace vram {

using nlohmann::json;
namespace jr = json_read;

namespace {

// "owner/name" as the Hugging Face hub spells a repository: one slash, each
// side letters, digits, '.', '_' or '-'. Checked because a launch command
// carries it.
bool hub_repo_id(const std::string& id) {
  const std::size_t slash = id.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == id.size()) return false;
  if (id.find('/', slash + 1) != std::string::npos || id.size() > 96) return false;
  for (const char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-' || c == '/';
    if (!ok) return false;
  }
  return true;
}

/**
 * The built-in data broken at `field` (data/<file>.json): a build bug, code
 * internal; `id` says how (error.data_*).
 */
[[noreturn]] void broken(std::string_view file, const std::string& field, const char* id,
                         json params = json::object()) {
  params["file"] = std::string(file);
  params["field"] = field;
  throw Error::make("internal", field, id, std::move(params));
}

json parse_embedded(std::string_view name) {
  const std::string_view text = embedded::file(name);
  try {
    return jr::parse_text(text);
  } catch (const json::exception&) {
    broken(name, std::string(name), "error.data_json");
  }
}

bool digits(std::string_view text) {
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return !text.empty();
}

/** A data file's "updated" date, checked as YYYY-MM-DD (a broken file is a build bug). */
std::string updated_date(const json& file, std::string_view name) {
  const std::string field = std::string(name) + ".updated";
  const std::string date = jr::get_string(file, "updated", std::string(name));
  const std::string_view d(date);
  const bool shaped = d.size() == 10 && d[4] == '-' && d[7] == '-' && digits(d.substr(0, 4)) &&
                      digits(d.substr(5, 2)) && digits(d.substr(8, 2));
  if (!shaped || d.substr(5, 2) < "01" || d.substr(5, 2) > "12" || d.substr(8, 2) < "01" ||
      d.substr(8, 2) > "31") {
    broken(name, field, "error.data_date");
  }
  return date;
}

/** A preset's "eagle3" head: a hub repository, a source, and its config's shape, each > 0. */
EagleHeadPreset eagle_head_from_json(const json& j, const std::string& at) {
  EagleHeadPreset head;
  head.repo = jr::get_string(j, "repo", at);
  if (!hub_repo_id(head.repo)) broken("models", at + ".repo", "error.data_repo");
  head.source = jr::get_string(j, "source", at);
  const std::string cfg = at + ".config";
  const json* config = jr::find(j, "config");
  if (config == nullptr || !config->is_object()) broken("models", cfg, "error.data_config");
  const auto positive = [&](const char* key) {
    const std::int64_t v = jr::get_int(*config, key, cfg);
    if (v <= 0) broken("models", cfg + "." + key, "error.data_head");
    return v;
  };
  // One decoder layer: the head vLLM and SGLang build (num_hidden_layers 1).
  if (positive("num_hidden_layers") != 1) {
    broken("models", cfg + ".num_hidden_layers", "error.data_head");
  }
  head.hidden_size = positive("hidden_size");
  head.intermediate_size = positive("intermediate_size");
  head.num_heads = positive("num_attention_heads");
  head.num_kv_heads = positive("num_key_value_heads");
  head.head_dim = jr::find(*config, "head_dim") != nullptr ? positive("head_dim")
                                                           : head.hidden_size / head.num_heads;
  head.vocab_size = positive("vocab_size");
  head.draft_vocab_size = positive("draft_vocab_size");
  head.target_hidden_size = jr::find(*config, "target_hidden_size") != nullptr
                                ? positive("target_hidden_size")
                                : head.hidden_size;
  return head;
}

ModelPreset preset_from_json(const json& j, std::size_t index) {
  const std::string at = "models[" + std::to_string(index) + "]";
  ModelPreset preset;
  preset.id = jr::get_string(j, "id", at);
  preset.name = jr::get_string(j, "name", at);
  preset.group = jr::opt_string(j, "group", at).value_or("popular");
  preset.task = jr::opt_string(j, "task", at).value_or("");
  if (!preset.task.empty() && preset.task != "embed" && preset.task != "rerank") {
    broken("models", at + ".task", "error.data_task");
  }
  preset.source = jr::get_string(j, "source", at);
  preset.config = embedded::model_config(index);
  if (preset.config.empty()) broken("models", at + ".config", "error.data_config");
  preset.params_total = jr::opt_number(j, "params_total", at).value_or(0);
  preset.params_active = jr::opt_number(j, "params_active", at).value_or(0);
  preset.official_params_total = jr::opt_number(j, "official_params_total", at).value_or(0);
  preset.official_params_active = jr::opt_number(j, "official_params_active", at).value_or(0);
  preset.params_source = jr::opt_string(j, "params_source", at).value_or("");
  preset.placeholders = jr::opt_strings(j, "placeholders", at);
  if (const json* notes = jr::find(j, "notes")) {
    // A note is a message {id, params} (the words live in data/messages/); a
    // plain string is text shown as written (note.text).
    for (const json& note : *notes) {
      if (note.is_string()) {
        preset.notes.push_back({"note.text", obj({{"text", note}})});
      } else if (note.is_object() && note.contains("id") && note.at("id").is_string()) {
        preset.notes.push_back(
            {note.at("id").get<std::string>(), note.value("params", json::object())});
      } else {
        broken("models", at + ".notes", "error.data_note");
      }
    }
  }
  preset.family = jr::opt_string(j, "family", at).value_or("");
  preset.repo = jr::opt_string(j, "repo", at).value_or("");
  if (!preset.repo.empty() && !hub_repo_id(preset.repo)) {
    broken("models", at + ".repo", "error.data_repo");
  }
  preset.aliases = jr::opt_strings(j, "aliases", at);
  if (const json* launch = jr::find(j, "launch")) preset.launch = *launch;  // checked in builtin()
  if (const json* head = jr::find(j, "eagle3")) {
    preset.eagle3 = eagle_head_from_json(*head, at + ".eagle3");
  }
  return preset;
}

// A launch flag's name: "-x" or "--name", lower case, as the engines spell theirs.
bool flag_name(const std::string& flag) {
  const std::size_t dashes = flag.rfind("--", 0) == 0 ? 2 : flag.rfind('-', 0) == 0 ? 1 : 0;
  if (dashes == 0 || flag.size() <= dashes || flag.size() > 64) return false;
  if (flag[dashes] < 'a' || flag[dashes] > 'z') return false;
  for (std::size_t i = dashes; i < flag.size(); ++i) {
    const char c = flag[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

// A value the shell reads as one word without quotes.
bool plain_word(const std::string& word) {
  if (word.empty() || word.size() > 200) return false;
  for (const char c : word) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '/' || c == ':' || c == '+' || c == '=' ||
                    c == '-';
    if (!ok) return false;
  }
  return true;
}

constexpr std::size_t kMaxLaunchFlags = 16;
constexpr std::size_t kMaxLaunchJson = 2000;

// A launch flag's value: a plain word, a number, or JSON the command writes between single
// quotes (so none inside).
bool launch_value(const json& v) {
  if (v.is_string()) return plain_word(v.get<std::string>());
  if (v.is_number()) return true;
  if (!v.is_structured()) return false;
  const std::string text = v.dump();
  return text.size() <= kMaxLaunchJson && text.find('\'') == std::string::npos;
}

}  // namespace

json preset_launch_from_json(const json& launch, const std::string& at,
                             const std::vector<EngineProfile>& engines) {
  auto bad = [&at](const std::string& where) -> void {
    broken("models", at + where, "error.data_launch");
  };
  if (!launch.is_object()) bad("");
  for (const auto& [engine, entry] : launch.items()) {
    const std::string here = "." + engine;
    bool known = false;
    for (const EngineProfile& e : engines) {
      known = known || (e.id == engine && e.launch.is_object());
    }
    if (!known) bad(here);
    if (!entry.is_object() || !entry.contains("source") || !entry.at("source").is_string() ||
        entry.at("source").get<std::string>().empty() || !entry.contains("flags") ||
        !entry.at("flags").is_array() || entry.at("flags").empty() ||
        entry.at("flags").size() > kMaxLaunchFlags) {
      bad(here);
    }
    for (auto it = entry.begin(); it != entry.end(); ++it) {
      const std::string& key = it.key();
      if (key != "flags" && key != "source" && key != "version") bad(here + "." + key);
    }
    std::set<std::string> seen;
    const json& flags = entry.at("flags");
    for (std::size_t i = 0; i < flags.size(); ++i) {
      const json& f = flags[i];
      const std::string where = here + ".flags[" + std::to_string(i) + "]";
      if (!f.is_object() || !f.contains("flag") || !f.at("flag").is_string() ||
          !flag_name(f.at("flag").get<std::string>()) ||
          !seen.insert(f.at("flag").get<std::string>()).second) {
        bad(where);
      }
      int kinds = 0;
      for (const auto& [key, v] : f.items()) {
        if (key == "value") {
          ++kinds;
          if (!launch_value(v)) bad(where + ".value");
        } else if (key == "switch" || key == "omit") {
          ++kinds;
          if (v != true) bad(where + "." + key);
        } else if (key != "flag" && key != "meaning") {
          // "meaning" is for people reading data/ (the page's module is built without it).
          bad(where + "." + key);
        }
      }
      if (kinds != 1) bad(where);
    }
  }
  return launch;
}

Catalog Catalog::builtin() {
  Catalog catalog;
  const json formats = parse_embedded("formats");
  catalog.formats = format_catalog_from_json(formats);
  const json models = parse_embedded("models");
  std::set<std::string> ids;
  const json& list = models.at("models");
  for (std::size_t i = 0; i < list.size(); ++i) {
    ModelPreset preset = preset_from_json(list[i], i);
    if (!ids.insert(preset.id).second) {
      broken("models", "models", "error.checkpoint_duplicate", obj({{"name", preset.id}}));
    }
    catalog.models.push_back(std::move(preset));
  }
  const json gpus = parse_embedded("gpus");
  catalog.gpus = gpu_catalog_from_json(gpus, "gpus");
  const json engines = parse_embedded("engines");
  catalog.engines = engine_profiles_from_json(engines.at("engines"));
  for (std::size_t i = 0; i < catalog.models.size(); ++i) {
    ModelPreset& preset = catalog.models[i];
    preset.launch = preset_launch_from_json(
        preset.launch, "models[" + std::to_string(i) + "].launch", catalog.engines);
  }
  catalog.training_launch = engines.at("training_launch");
  const json speed = parse_embedded("speed");
  catalog.speed = speed_data_from_json(speed);
  const json presets = parse_embedded("presets");
  catalog.presets = presets.at("presets");
  const json accuracy = parse_embedded("accuracy");
  catalog.accuracy = accuracy.at("categories");
  for (const auto& [name, file] : {std::pair<const char*, const json*>{"models", &models},
                                   {"formats", &formats},
                                   {"gpus", &gpus},
                                   {"engines", &engines},
                                   {"presets", &presets},
                                   {"speed", &speed},
                                   {"accuracy", &accuracy}}) {
    catalog.data_versions[name] = obj({{"updated", updated_date(*file, name)}});
  }
  return catalog;
}

const ModelPreset& Catalog::model(std::string_view id, std::string_view field) const {
  for (const ModelPreset& preset : models) {
    if (preset.id == id) return preset;
  }
  throw Error::make("unknown_model", std::string(field), "error.model_unknown",
                    obj({{"id", Error::quote(id)}}));
}

namespace {

std::string config_field(const ModelPreset& preset) { return "models." + preset.id + ".config"; }

ImportedModel import_config(const ModelPreset& preset, const std::string& field) {
  json config;
  try {
    config = jr::parse_text(preset.config);
  } catch (const json::exception&) {
    broken("models", field, "error.data_json");
  }
  return import_hf_config(config, field);
}

/** What the preset states over what its config implies. */
ImportedModel with_overrides(ImportedModel imported, const ModelPreset& preset) {
  ModelSpec& m = imported.model;
  m.id = preset.id;
  m.name = preset.name;
  m.source = preset.source;
  m.repo = preset.repo;
  m.declared_params_total = preset.params_total;
  m.declared_params_active = preset.params_active;
  m.placeholders = preset.placeholders;
  m.official_params_total = preset.official_params_total;
  m.official_params_active = preset.official_params_active;
  m.params_source = preset.params_source;
  // A pooling model's checkpoint holds no lm_head, and vLLM's pooling runner deletes the one
  // it would build (vllm/model_executor/models/adapters.py, _create_pooling_model_cls).
  m.pooling = !preset.task.empty();
  for (const Message& note : preset.notes) m.notes.push_back(note);
  return imported;
}

}  // namespace

ImportedModel resolve_preset(const ModelPreset& preset) {
  return with_overrides(import_config(preset, config_field(preset)), preset);
}

ImportedModel Catalog::resolve(const ModelPreset& preset) const {
  const std::string field = config_field(preset);
  // The field too: an import's warnings may name it.
  std::string key = field;
  key += '\0';
  key.append(preset.config);
  auto found = imports->find(key);
  if (found == imports->end()) {
    found = imports->emplace(std::move(key), import_config(preset, field)).first;
  }
  return with_overrides(found->second, preset);
}

}  // namespace vram
