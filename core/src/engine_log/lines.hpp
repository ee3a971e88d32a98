#pragma once

// What the engines' log readers share: the log cut into lines, numbers and
// sizes read after a key, and one reader per engine (vllm.cpp, sglang.cpp,
// llamacpp.cpp). Nothing here allocates per character or backtracks: every
// search is std::string_view::find over one bounded line.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vram/engine_log.hpp"

namespace vram::logread {

struct Line {
  std::string_view text;
  std::size_t number = 0;  ///< 1-based
};

/** Where `key` starts in `line` not inside a longer identifier, or npos. */
std::size_t find_key(std::string_view line, std::string_view key);

/**
 * The number after `key` ('=', ':', '(', spaces and the words "takes",
 * "take" and "is" skipped; ',' as a thousands separator; one '-' sign). On
 * success `end` is where the number stops.
 */
std::optional<double> number_after(std::string_view line, std::string_view key,
                                   std::size_t* end = nullptr);

/** A size after `key`: the number and its unit (GiB, GB, MiB, MB, KiB), in bytes. */
std::optional<double> size_after(std::string_view line, std::string_view key);

/**
 * The word after `key` (quotes and the separators above skipped): up to a
 * space, ',', ')', ';' or a quote; "torch." dropped. "" when none.
 */
std::string word_after(std::string_view line, std::string_view key);

/** `line` without spaces at either end. */
std::string_view trim(std::string_view line);

/** Sets a numeric setting, when it is one a log could mean: finite and not negative. */
void set_number(EngineLog& log, const char* name, const std::optional<double>& value);

/** Adds or replaces (same id and device) a figure: a log repeats lines per worker. */
void put(EngineLog& log, const std::string& id, double value, const std::string& unit,
         const Line& line, const std::string& device = "");

void read_vllm(const std::vector<Line>& lines, EngineLog& log);
void read_sglang(const std::vector<Line>& lines, EngineLog& log);
void read_llamacpp(const std::vector<Line>& lines, EngineLog& log);

}  // namespace vram::logread
