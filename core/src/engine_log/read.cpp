// An engine's start-up log: which engine printed it, and its lines handed to
// that engine's reader. The readers are in vllm.cpp, sglang.cpp and
// llamacpp.cpp; what they share is here.

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

#include "engine_log/lines.hpp"
#include "vram/error.hpp"
#include "vram/json_object.hpp"

namespace vram {
namespace logread {
namespace {

bool identifier(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

bool digit(char c) { return c >= '0' && c <= '9'; }

/** Skips what stands between a key and its value. */
std::size_t skip_separators(std::string_view line, std::size_t at) {
  static constexpr std::array<std::string_view, 3> kWords = {"takes ", "take ", "is "};
  for (;;) {
    while (at < line.size() &&
           (line[at] == ' ' || line[at] == '\t' || line[at] == '=' || line[at] == ':' ||
            line[at] == '(' || line[at] == '\'' || line[at] == '"')) {
      ++at;
    }
    bool word = false;
    for (std::string_view w : kWords) {
      if (line.substr(at, w.size()) == w) {
        at += w.size();
        word = true;
      }
    }
    if (!word) return at;
  }
}

/** A decimal number at `at`: digits with ',' between groups, one '.', no exponent. */
std::optional<double> number_at(std::string_view line, std::size_t at, std::size_t* end) {
  bool negative = false;
  if (at < line.size() && line[at] == '-') {
    negative = true;
    ++at;
  }
  if (at >= line.size() || !digit(line[at])) return std::nullopt;
  // At most 15 significant digits are kept, so the mantissa is exact and one
  // division by an exact power of ten rounds once: the same double on every
  // platform.
  double mantissa = 0;
  int kept = 0;
  int scale = 0;    // digits after the point that were kept
  int dropped = 0;  // integer digits beyond the kept ones
  bool point = false;
  std::size_t i = at;
  for (; i < line.size(); ++i) {
    const char c = line[i];
    if (digit(c)) {
      if (kept < 15) {
        mantissa = mantissa * 10 + (c - '0');
        ++kept;
        if (point) ++scale;
      } else if (!point) {
        ++dropped;
      }
    } else if (c == ',' && !point && i + 3 < line.size() && digit(line[i + 1]) &&
               digit(line[i + 2]) && digit(line[i + 3]) &&
               (i + 4 >= line.size() || !digit(line[i + 4]))) {
      continue;  // "178,880": a thousands separator, three digits after it
    } else if (c == '.' && !point && i + 1 < line.size() && digit(line[i + 1])) {
      point = true;
    } else {
      break;
    }
  }
  if (dropped > 20) return std::nullopt;  // no figure of a log has 35 digits
  static constexpr std::array<double, 23> kTen = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                  1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                                  1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  double value = scale > 0 ? mantissa / kTen[static_cast<std::size_t>(scale)]
                           : mantissa * kTen[static_cast<std::size_t>(dropped)];
  if (end != nullptr) *end = i;
  return negative ? -value : value;
}

}  // namespace

std::size_t find_key(std::string_view line, std::string_view key) {
  std::size_t from = 0;
  while (from <= line.size()) {
    const std::size_t at = line.find(key, from);
    if (at == std::string_view::npos) return at;
    const bool starts = at == 0 || !identifier(line[at - 1]) || !identifier(key.front());
    if (starts) return at;
    from = at + 1;
  }
  return std::string_view::npos;
}

std::optional<double> number_after(std::string_view line, std::string_view key, std::size_t* end) {
  const std::size_t at = find_key(line, key);
  if (at == std::string_view::npos) return std::nullopt;
  return number_at(line, skip_separators(line, at + key.size()), end);
}

std::optional<double> size_after(std::string_view line, std::string_view key) {
  std::size_t end = 0;
  const std::optional<double> value = number_after(line, key, &end);
  if (!value) return std::nullopt;
  while (end < line.size() && line[end] == ' ') ++end;
  const std::string_view unit = line.substr(end, 3);
  if (unit == "GiB" || unit.substr(0, 2) == "GB") return *value * 1073741824.0;
  if (unit == "MiB" || unit.substr(0, 2) == "MB") return *value * 1048576.0;
  if (unit == "KiB" || unit.substr(0, 2) == "KB") return *value * 1024.0;
  return std::nullopt;
}

std::string word_after(std::string_view line, std::string_view key) {
  const std::size_t at = find_key(line, key);
  if (at == std::string_view::npos) return "";
  std::size_t from = skip_separators(line, at + key.size());
  if (line.substr(from, 6) == "torch.") from += 6;
  std::size_t to = from;
  while (to < line.size() && line[to] != ' ' && line[to] != ',' && line[to] != ')' &&
         line[to] != ';' && line[to] != '\'' && line[to] != '"' && line[to] != '\t') {
    ++to;
  }
  return std::string(line.substr(from, std::min<std::size_t>(to - from, 200)));
}

std::string_view trim(std::string_view line) {
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
    line.remove_suffix(1);
  return line;
}

void set_number(EngineLog& log, const char* name, const std::optional<double>& value) {
  if (value && std::isfinite(*value) && *value >= 0) log.settings[name] = *value;
}

void put(EngineLog& log, const std::string& id, double value, const std::string& unit,
         const Line& line, const std::string& device) {
  for (LoggedQuantity& q : log.quantities) {
    if (q.id == id && q.device == device) {
      q.value = value;
      q.line = line.number;
      return;
    }
  }
  log.quantities.push_back({id, value, unit, device, line.number});
}

}  // namespace logread

namespace {

using logread::Line;

/** Lines that only one engine prints, and how much each says so. */
struct Marker {
  std::string_view text;
  const char* engine;
};

constexpr std::array<Marker, 19> kMarkers = {{
    {"vLLM API server version", "vllm"},
    {"LLM engine (v", "vllm"},
    {"Model loading took", "vllm"},
    {"Loading model weights took", "vllm"},
    {"GPU KV cache size", "vllm"},
    {"# GPU blocks", "vllm"},
    {"Available KV cache memory", "vllm"},
    {"Memory profiling", "vllm"},
    {"KV Cache is allocated", "sglang"},
    {"Load weight end", "sglang"},
    {"ServerArgs(", "sglang"},
    {"Capture cuda graph end", "sglang"},
    {"llama_model_loader", "llamacpp"},
    {"load_tensors:", "llamacpp"},
    {"llama_context:", "llamacpp"},
    {"llama_new_context_with_model", "llamacpp"},
    {"llama_kv_cache", "llamacpp"},
    {"source=server.go", "ollama"},
    {"source=routes.go", "ollama"},
}};

std::vector<Line> split(std::string_view text) {
  std::vector<Line> lines;
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    ++number;
    if (line.size() > kMaxLogLine) line = line.substr(0, kMaxLogLine);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({line, number});
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

}  // namespace

EngineLog read_engine_log(std::string_view text) {
  if (text.size() > kMaxLogBytes) throw Error::too_large("log", text.size(), kMaxLogBytes);
  if (text.find('\0') != std::string_view::npos)
    throw Error::make("invalid_log", "log", "error.log_binary", obj({{"field", "log"}}));
  const std::vector<Line> lines = split(text);
  std::size_t vllm = 0, sglang = 0, llamacpp = 0, ollama = 0;
  for (const Line& line : lines) {
    for (const Marker& m : kMarkers) {
      if (line.text.find(m.text) == std::string_view::npos) continue;
      const std::string_view engine = m.engine;
      (engine == "vllm"     ? vllm
       : engine == "sglang" ? sglang
       : engine == "ollama" ? ollama
                            : llamacpp)++;
    }
  }
  EngineLog log;
  if (llamacpp > 0 && llamacpp >= vllm && llamacpp >= sglang) {
    log.engine = ollama > 0 ? "ollama" : "llamacpp";
    logread::read_llamacpp(lines, log);
  } else if (vllm > 0 && vllm >= sglang) {
    log.engine = "vllm";
    logread::read_vllm(lines, log);
  } else if (sglang > 0) {
    log.engine = "sglang";
    logread::read_sglang(lines, log);
  }
  // Text that holds two engines' lines (an issue comparing them): read as the
  // one with more, the other named so that the reader knows.
  const std::size_t first = std::max({vllm, sglang, llamacpp});
  if (log.engine == "vllm" && (sglang > 0 || llamacpp > 0))
    log.other_engine = sglang >= llamacpp ? "sglang" : "llamacpp";
  if (log.engine == "sglang" && (vllm > 0 || llamacpp > 0))
    log.other_engine = vllm >= llamacpp ? "vllm" : "llamacpp";
  if ((log.engine == "llamacpp" || log.engine == "ollama") && (vllm > 0 || sglang > 0))
    log.other_engine = vllm >= sglang ? "vllm" : "sglang";
  (void)first;
  if (log.engine.empty() || log.quantities.empty()) {
    throw Error::make("invalid_log", "log", "error.log_unrecognised", obj({{"field", "log"}}));
  }
  return log;
}

nlohmann::json engine_log_json(const EngineLog& log) {
  nlohmann::json quantities = nlohmann::json::array();
  for (const LoggedQuantity& q : log.quantities) {
    quantities.push_back(obj({{"id", q.id},
                              {"value", q.value},
                              {"unit", q.unit},
                              {"device", q.device},
                              {"line", q.line}}));
  }
  // The engines' own spelling of their names (product names, not words to translate).
  const std::string& e = log.engine;
  const char* name = e == "vllm"     ? "vLLM"
                     : e == "sglang" ? "SGLang"
                     : e == "ollama" ? "Ollama"
                                     : "llama.cpp";
  return obj({{"engine", log.engine},
              {"engine_name", name},
              {"version", log.version},
              {"model", log.model},
              {"other_engine", log.other_engine},
              {"settings", log.settings},
              {"quantities", std::move(quantities)}});
}

}  // namespace vram
