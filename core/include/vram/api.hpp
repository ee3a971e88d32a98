#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "vram/boundary.hpp"
#include "vram/catalog.hpp"
#include "vram/error.hpp"

namespace vram {

/**
 * The calculator's public surface: one call per user action, JSON in and
 * JSON out, the same shapes for the CLI, the wasm module and the page
 * (docs/cli.md documents them). Holds the parsed catalog and nothing else;
 * every call is a pure function of the catalog and the request.
 */
class Calculator {
 public:
  /** Over the data embedded at build time. */
  Calculator();
  explicit Calculator(Catalog catalog);

  /** Memory for one model and setup, term by term. Throws vram::Error. */
  nlohmann::json estimate(const nlohmann::json& request) const;
  /**
   * The concurrency curve of the estimate's plan on its card: speed per user,
   * throughput and first token as users grow, the most users at the floor
   * and what a million tokens cost there.
   */
  nlohmann::json curve(const nlohmann::json& request) const;
  /** The guide's lookup grid (SPEC 3): models x methods, each with the cheapest fit. */
  nlohmann::json grid(const nlohmann::json& request) const;
  /** The planner's device counts (SPEC 6): accelerators x formats. */
  nlohmann::json devices(const nlohmann::json& request) const;
  /** The fleet's cost ratios (SPEC 4), with a model's fit and decode ceiling per card. */
  nlohmann::json fleet(const nlohmann::json& request) const;
  /**
   * The reverse of the fleet: every preset on one card (gpu, gpu_count) or a
   * budget (budget_gb) at a context and batch, under the guide's convention:
   * its need, its spare and whether it fits, largest first.
   */
  nlohmann::json fit_models(const nlohmann::json& request) const;
  /**
   * Presets, formats, GPUs and engines, for pickers; `data_versions` says
   * which data they come from (Catalog::data_versions).
   */
  nlohmann::json presets() const;
  /**
   * An engine's start-up log read, and each figure it logged beside the
   * calculator's for the same settings (vram/engine_log.hpp: log_answer).
   */
  nlohmann::json log(const nlohmann::json& request) const;
  /** Every request's fields and every engine's knobs (vram/schema.hpp: schema_json). */
  nlohmann::json schema() const;

  const Catalog& catalog() const { return catalog_; }

 private:
  Catalog catalog_;
};

/**
 * Dispatches `method` ("estimate", "presets", ..., "checkpoint": a request's
 * checkpoint object checked and summed, see checkpoint.hpp) with a JSON
 * request text and returns JSON text. Never throws: a bad request, a core
 * error, even an exhausted memory comes back as {"error": {"code", "field",
 * "message", "message_id", "params"}}. Invalid UTF-8 is replaced in what it
 * returns.
 */
std::string call(const Calculator& calculator, std::string_view method,
                 std::string_view request_json) noexcept;

/**
 * Parses untrusted JSON text with the limits of vram/limits.hpp: at most
 * kMaxRequestBytes bytes and kMaxJsonDepth levels of nesting, checked while
 * parsing. Throws vram::Error naming `field`: too_large, too_deep, or
 * parse_error (bad syntax, numbers such as 1e400 that overflow a double).
 */
nlohmann::json parse_json(std::string_view text, const std::string& field);

}  // namespace vram
