// A start-up log beside the calculator's answer for the same settings: the
// estimate request the log's settings make, and each logged figure next to
// the term, budget or buffer that predicts it.

#include <algorithm>
#include <cctype>
#include <cmath>

#include "engine_log/lines.hpp"
#include "estimate_json.hpp"
#include "vram/catalog.hpp"
#include "vram/error.hpp"
#include "vram/json_object.hpp"
#include "vram/schema.hpp"

namespace vram {
namespace {

using nlohmann::json;

constexpr double kGiB = 1073741824.0;

/** Letters and digits only, lower case: "Meta-Llama-3.1-8B" -> "metallama318b". */
std::string squash(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0)
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

/** The preset whose repository's or id's name the log's model contains, the longest such. */
const ModelPreset* match_model(const Catalog& catalog, std::string_view logged) {
  std::string_view tail = logged;
  if (const std::size_t slash = tail.find_last_of("/\\"); slash != std::string_view::npos)
    tail.remove_prefix(slash + 1);
  const std::string name = squash(tail);
  if (name.empty()) return nullptr;
  const ModelPreset* best = nullptr;
  std::size_t best_length = 0;
  for (const ModelPreset& preset : catalog.models) {
    if (preset.group == "guide") continue;
    std::string_view repo = preset.repo;
    if (const std::size_t slash = repo.find_last_of('/'); slash != std::string_view::npos)
      repo.remove_prefix(slash + 1);
    for (const std::string& candidate : {squash(repo), squash(preset.id)}) {
      if (candidate.size() >= 4 && candidate.size() > best_length &&
          name.find(candidate) != std::string::npos) {
        best = &preset;
        best_length = candidate.size();
      }
    }
  }
  return best;
}

/** The weight format a log's settings name, if the catalog has it. */
std::optional<std::string> weights_of(const Catalog& catalog, const EngineLog& log) {
  const json& s = log.settings;
  std::string id;
  if (s.contains("file_type")) {
    // llama.cpp: "Q4_K - Medium", "Q8_0", "F16", "all F32 (guessed)", "IQ4_XS - 4.25 bpw".
    std::string t = s["file_type"].get<std::string>();
    std::transform(t.begin(), t.end(), t.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (t.rfind("all ", 0) == 0) t = t.substr(4);
    if (const std::size_t p = t.find(" ("); p != std::string::npos) t = t.substr(0, p);
    const std::size_t dash = t.find(" - ");
    std::string size = dash == std::string::npos ? "" : t.substr(dash + 3);
    t = t.substr(0, dash);
    if (size == "medium") t += "_m";
    if (size == "small") t += "_s";
    id = t == "f16" ? "fp16" : t == "f32" ? "fp32" : t;
  } else if (s.contains("quantization")) {
    const std::string q = s["quantization"].get<std::string>();
    id = q.rfind("fp8", 0) == 0    ? "fp8"
         : q == "mxfp4"            ? "mxfp4"
         : q.rfind("awq", 0) == 0  ? "awq-int4"
         : q.rfind("gptq", 0) == 0 ? "gptq-int4"
         : q == "bitsandbytes"     ? "nf4"
                                   : "";
  } else if (s.contains("dtype")) {
    const std::string d = s["dtype"].get<std::string>();
    id = d == "bfloat16" ? "bf16" : d == "float16" ? "fp16" : d == "float32" ? "fp32" : "";
  }
  if (id.empty() || catalog.formats.find_weight(id) == nullptr) return std::nullopt;
  return id;
}

std::optional<std::string> kv_of(const Catalog& catalog, const EngineLog& log) {
  std::string id;
  if (log.settings.contains("type_k")) {
    const std::string t = log.settings["type_k"].get<std::string>();
    id = t == "f16" ? "fp16" : t == "f32" ? "fp32" : t;
  } else if (log.settings.contains("kv_cache_dtype")) {
    const std::string t = log.settings["kv_cache_dtype"].get<std::string>();
    id = t.rfind("fp8", 0) == 0 ? "fp8" : "";
  }
  const auto& kv = catalog.formats.kv_formats();
  if (id.empty() ||
      std::none_of(kv.begin(), kv.end(), [&](const KvFormat& f) { return f.id == id; }))
    return std::nullopt;
  return id;
}

/** The estimate request the log's settings make (without model and card). */
json request_of(const Catalog& catalog, const EngineLog& log) {
  const json& s = log.settings;
  const bool llamacpp = log.engine == "llamacpp" || log.engine == "ollama";
  json r = obj({{"engine", llamacpp ? "llamacpp" : log.engine}});
  if (const auto w = weights_of(catalog, log)) r["weights"] = *w;
  if (const auto k = kv_of(catalog, log)) r["kv"] = *k;
  json options = json::object();
  auto copy = [&](const char* from, const char* to) {
    if (s.contains(from)) options[to] = s[from];
  };
  if (llamacpp) {
    // n_ctx cells shared by n_seq_max sequences of n_ctx_seq each, when they divide.
    const double cells = s.value("context", 0.0);
    const double per = s.value("context_per_sequence", 0.0);
    const double seqs = s.value("n_seq_max", 1.0);
    if (per > 0 && seqs > 1 && per * seqs == cells) {
      r["context"] = per;
      r["batch"] = seqs;
    } else if (cells > 0) {
      r["context"] = cells;
    }
    if (s.contains("gpu_layers") && s.contains("layers") && s["gpu_layers"] < s["layers"])
      options["gpu_layers"] = s["gpu_layers"];
    copy("n_ubatch", "n_ubatch");
  } else {
    if (s.contains("context")) r["context"] = s["context"];
    copy("tensor_parallel_size", "tensor_parallel_size");
    copy("pipeline_parallel_size", "pipeline_parallel_size");
    if (log.engine == "vllm") {
      copy("gpu_memory_utilization", "gpu_memory_utilization");
      copy("enforce_eager", "enforce_eager");
      // The MXFP4 MoE backend that ran: the install's, which the card alone does not say.
      copy("mxfp4_backend", "mxfp4_backend");
    } else {
      copy("mem_fraction_static", "mem_fraction_static");
    }
  }
  if (!options.empty()) r["engine_options"] = options;
  return r;
}

bool host_buffer(const std::string& device) {
  return device.rfind("CPU", 0) == 0 || device.find("_Host") != std::string::npos;
}

double term_bytes(const json& answer, const char* id) {
  for (const json& t : answer.at("terms")) {
    if (t.at("id") == id) return t.at("gb").get<double>() * 1e9;
  }
  return NAN;
}

/** Whether a logged release ("0.13.0", "v0.16.1rc1.dev111+g...") is older than a.b.c. */
bool older_than(const std::string& version, int a, int b, int c) {
  int parts[3] = {0, 0, 0};
  std::size_t i = version.find_first_of("0123456789");
  for (int& part : parts) {
    if (i == std::string::npos || i >= version.size() ||
        !std::isdigit(static_cast<unsigned char>(version[i])))
      return false;
    while (i < version.size() && std::isdigit(static_cast<unsigned char>(version[i])) &&
           part < 100000)
      part = part * 10 + (version[i++] - '0');
    if (i < version.size() && version[i] == '.') ++i;
  }
  const int want[3] = {a, b, c};
  for (int k = 0; k < 3; ++k) {
    if (parts[k] != want[k]) return parts[k] < want[k];
  }
  return false;
}

/**
 * The tokens vLLM logged for a paged pool of groups (assumption.vllm_hybrid_pool or
 * vllm_sliding_pool) before v0.20.1: blocks // groups x block size, where later releases log
 * the concurrency times the context (the budget's kv_tokens); NaN for any other pool.
 */
double grouped_tokens(const json& answer) {
  for (const json& a : answer.value("assumptions", json::array())) {
    const std::string id = a.value("id", "");
    if (id != "assumption.vllm_hybrid_pool" && id != "assumption.vllm_sliding_pool") continue;
    const json& p = a.at("params");
    const auto blocks = p.at("blocks").get<std::int64_t>();
    const auto groups = p.at("groups").get<std::int64_t>();
    if (groups <= 0) return NAN;
    const json budget = answer.value("budget", json::object());
    const double ranks =
        blocks > 0 ? budget.value("kv_blocks", 0.0) / static_cast<double>(blocks) : 1.0;
    return static_cast<double>(blocks / groups * p.at("block").get<std::int64_t>()) * ranks;
  }
  return NAN;
}

/** The answer's figure for a logged quantity, or NaN when it predicts none. */
double predicted(const json& answer, const LoggedQuantity& q, const EngineLog& log) {
  // A partial offload's plan: the weights on the cards and in host memory.
  const json* offload = answer.contains("serving") && answer["serving"].contains("offload")
                            ? &answer["serving"]["offload"]
                            : nullptr;
  if (q.id == "model_buffer" && offload != nullptr && offload->is_object()) {
    const char* key = host_buffer(q.device) ? "host_weights_gb" : "gpu_weights_gb";
    return offload->contains(key) ? offload->at(key).get<double>() * 1e9 : NAN;
  }
  if (!q.device.empty() && host_buffer(q.device)) return NAN;
  const json budget = answer.value("budget", json::object());
  auto from_budget = [&](const char* key, double scale) {
    return budget.contains(key) ? budget.at(key).get<double>() * scale : NAN;
  };
  // vLLM's "Model loading took" counts the MXFP4 experts as its kernel keeps them.
  if (q.id == "weights" || q.id == "model_buffer") {
    const double layout = term_bytes(answer, "mxfp4_layout");
    return term_bytes(answer, "weights") + (std::isnan(layout) ? 0.0 : layout);
  }
  if (q.id == "kv_buffer") return term_bytes(answer, "kv_cache");
  if (q.id == "compute_buffer") return term_bytes(answer, "compute_buffer");
  if (q.id == "non_torch") return term_bytes(answer, "non_torch");
  if (q.id == "activations") return term_bytes(answer, "activations");
  if (q.id == "cuda_graph") return term_bytes(answer, "cuda_graph");
  // SGLang's state pool (assumption.sglang_state_pool): its slots and bytes, and what it leaves
  // the attention layers, the K and V the log sums as the KV budget.
  const json* states = nullptr;
  if (answer.contains("assumptions")) {
    for (const json& a : answer.at("assumptions")) {
      if (a.value("id", "") == "assumption.sglang_state_pool") states = &a.at("params");
    }
  }
  if (q.id == "state_slots") return states != nullptr ? states->at("slots").get<double>() : NAN;
  if (q.id == "state_pool") return states != nullptr ? states->at("bytes").get<double>() : NAN;
  if (q.id == "kv_budget" && states != nullptr && log.engine == "sglang") {
    return from_budget("kv_budget_gib", kGiB) - states->at("bytes").get<double>();
  }
  if (q.id == "kv_budget") return from_budget("kv_budget_gib", kGiB);
  if (q.id == "kv_tokens") {
    const double grouped =
        log.engine == "vllm" && older_than(log.version, 0, 20, 1) ? grouped_tokens(answer) : NAN;
    return std::isnan(grouped) ? from_budget("kv_tokens", 1) : grouped;
  }
  if (q.id == "kv_blocks") return from_budget("kv_blocks", 1);
  if (q.id == "max_concurrency") return from_budget("max_concurrency", 1);
  return NAN;
}

/** The log's GPU buffers of one kind summed (one row), host buffers kept apart. */
std::vector<LoggedQuantity> rows_of(const EngineLog& log) {
  std::vector<LoggedQuantity> out;
  for (const LoggedQuantity& q : log.quantities) {
    if (q.device.empty() || host_buffer(q.device)) {
      out.push_back(q);
      continue;
    }
    auto same = std::find_if(out.begin(), out.end(), [&](const LoggedQuantity& o) {
      return o.id == q.id && o.device == "GPU";
    });
    if (same == out.end()) {
      LoggedQuantity sum = q;
      sum.device = "GPU";
      out.push_back(sum);
    } else {
      same->value += q.value;
      same->line = std::max(same->line, q.line);
    }
  }
  return out;
}

std::string line_text(std::string_view text, std::size_t number) {
  std::size_t at = 0;
  for (std::size_t n = 1; n < number && at != std::string_view::npos; ++n) {
    at = text.find('\n', at);
    if (at != std::string_view::npos) ++at;
  }
  if (at == std::string_view::npos) return "";
  std::string_view line = text.substr(at, text.find('\n', at) - at);
  return Error::quote(logread::trim(line));
}

json quantity_unit(const LoggedQuantity& q) { return q.unit == "bytes" ? "GiB" : q.unit; }
double in_unit(const LoggedQuantity& q, double v) { return q.unit == "bytes" ? v / kGiB : v; }

}  // namespace

json log_answer(const Catalog& catalog, const json& request) {
  json fields = read_fields(request, log_fields());
  for (const char* key : {"log", "model", "gpu", "weights", "catalog"}) {
    if (!fields.contains(key)) fields[key] = nullptr;
  }
  if (fields.at("log").is_null()) throw Error::missing("log");
  const std::string& text = fields.at("log").get_ref<const std::string&>();
  const ModelPreset* preset = nullptr;
  if (fields.at("model").is_string())
    preset = &catalog.model(fields.at("model").get<std::string>(), "model");
  const EngineLog log = read_engine_log(text);
  json notes = json::array();
  if (!log.other_engine.empty()) {
    notes.push_back(
        Message{"log.mixed", obj({{"engine", log.engine}, {"other", log.other_engine}})});
  }
  if (preset == nullptr) {
    preset = match_model(catalog, log.model);
    if (preset == nullptr) notes.push_back(Message{"log.no_model", obj({{"model", log.model}})});
  }

  json estimate = nullptr;
  json answer = nullptr;
  if (preset != nullptr) {
    estimate = request_of(catalog, log);
    estimate["model"] = preset->id;
    if (fields.at("weights").is_string()) estimate["weights"] = fields.at("weights");
    if (!estimate.contains("weights")) notes.push_back(Message{"log.no_weights", json::object()});
    if (fields.at("catalog").is_object()) estimate["catalog"] = fields.at("catalog");
    const double total = [&] {
      for (const LoggedQuantity& q : log.quantities)
        if (q.id == "total_memory") return q.value;
      return 0.0;
    }();
    if (fields.at("gpu").is_string()) {
      const std::string gpu_id = fields.at("gpu").get<std::string>();
      estimate["gpu"] = gpu_id;
      if (total > 0 && !fields.at("catalog").is_object()) {
        // The card as the log measured it: its total memory replaces the catalog's.
        json card = catalog.gpus.find(gpu_id, "gpu");
        card["usable_gib"] = total / kGiB;
        estimate["catalog"] = obj({{"gpus", json::array({card})}});
        notes.push_back(Message{"log.card_total", obj({{"gib", total / kGiB}})});
      }
    } else if (log.engine == "vllm" || log.engine == "sglang") {
      notes.push_back(Message{"log.no_gpu", json::object()});
    }
    try {
      answer = estimate_json(catalog, estimate);
    } catch (const Error& e) {
      notes.push_back(Message{"log.not_estimated", obj({{"problem", e.message()}})});
    }
  }

  json rows = json::array();
  json measurements = json::array();
  for (const LoggedQuantity& q : rows_of(log)) {
    const double p = answer.is_object() ? predicted(answer, q, log) : NAN;
    const double logged = in_unit(q, q.value);
    json row = obj({{"id", q.id},
                    {"device", q.device},
                    {"logged", logged},
                    {"predicted", std::isfinite(p) ? json(in_unit(q, p)) : json(nullptr)},
                    {"unit", quantity_unit(q)},
                    {"difference_pct", std::isfinite(p) && q.value != 0
                                           ? json((p - q.value) / std::fabs(q.value) * 100)
                                           : json(nullptr)},
                    {"line", q.line}});
    rows.push_back(row);
    if (std::isfinite(p)) {
      measurements.push_back(obj({{"quantity", q.id + (q.unit == "bytes" ? "_gib" : "")},
                                  {"value", logged},
                                  {"unit", quantity_unit(q)},
                                  {"quote", line_text(text, q.line)}}));
    }
  }

  // The pool as the engine sized it: tokens, and users at the log's context.
  json pool = nullptr;
  if (answer.is_object() && (log.engine == "vllm" || log.engine == "sglang")) {
    double tokens = NAN;
    double budget = NAN;
    double concurrency = NAN;
    for (const LoggedQuantity& q : log.quantities) {
      if (q.id == "kv_tokens") tokens = q.value;
      if (q.id == "kv_budget") budget = q.value;
      if (q.id == "max_concurrency") concurrency = q.value;
    }
    const double per_token = answer.value("kv_bytes_per_token", 0.0);
    if (!std::isfinite(tokens) && std::isfinite(budget) && per_token > 0)
      tokens = std::floor(budget / per_token);
    const double context = answer.at("context").get<double>();
    if (std::isfinite(tokens) && tokens >= 0 && context > 0) {
      // vLLM's own "Maximum concurrency" where logged: a hybrid model's requests also take a
      // page per state group, and releases before v0.20.1 logged its tokens as blocks // groups
      // x block size, not as the users' tokens.
      const double users =
          std::isfinite(concurrency) ? std::floor(concurrency) : std::floor(tokens / context);
      pool = obj({{"tokens", tokens}, {"context", context}, {"users", users}});
    }
  }

  json validation_case = nullptr;
  if (answer.is_object() && !measurements.empty()) {
    validation_case = obj({{"category", "inference"},
                           {"model", log.model},
                           {"engine", obj({{"name", log.engine}, {"version", log.version}})},
                           {"request", estimate},
                           {"measurements", measurements},
                           {"source", obj({{"kind", "user-log"}})}});
  }
  return obj({{"log", engine_log_json(log)},
              {"preset", preset != nullptr ? json(preset->id) : json(nullptr)},
              {"request", estimate},
              {"rows", rows},
              {"pool", pool},
              {"case", validation_case},
              {"notes", notes}});
}

}  // namespace vram
