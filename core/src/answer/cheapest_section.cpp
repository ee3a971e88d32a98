// The cheapest set of each priced card that holds the answer, with its
// speed: among `fits` when each user gets the service floor, else in
// `below_floor` with the reason. The search itself is planning: fit.hpp's
// options_by_card for the conventions, serving.hpp's cheapest_sets under an
// engine.

#include <algorithm>

#include "answer/sections.hpp"
#include "tables.hpp"
#include "vram/fit.hpp"
#include "vram/speed.hpp"
#include "vram/units.hpp"

namespace vram::answer {

using nlohmann::json;

namespace {

/** The two lists a row goes to. */
struct Rows {
  json fits = json::array();
  json below = json::array();
};

/** A priced option with its speed, into `fits` or, under the floor, `below` with the reason. */
void add_row(const Inference& in, const Option& option, const DecodeSpeed& ds,
             const PrefillSpeed& ps, Rows& rows) {
  json row = option_json(option);
  row["decode_tokens_per_s"] = ds.ceiling_tokens_per_s;
  row["decode_expected_tokens_per_s"] = ds.expected_tokens_per_s;
  row["ttft_s"] = ps.known ? json(ps.seconds) : json(nullptr);
  if (ds.expected_tokens_per_s >= in.min_tokens_per_s) {
    rows.fits.push_back(std::move(row));
    return;
  }
  row["reason"] = Message{"floor.below", obj({{"gpu", option.gpu->name},
                                              {"count", option.count},
                                              {"expected", ds.expected_tokens_per_s},
                                              {"floor", in.min_tokens_per_s},
                                              {"users", in.setup.batch}})};
  rows.below.push_back(std::move(row));
}

/** llama.cpp's set with part of it in host memory: its placement and why it is below, if so. */
void add_offload_row(const Inference& in, const ServingSet& set, Rows& rows) {
  const OffloadPlan& o = *set.offload;
  json row = option_json(set.option);
  row["decode_tokens_per_s"] = set.decode.ceiling_tokens_per_s;
  row["decode_expected_tokens_per_s"] = set.decode.expected_tokens_per_s;
  row["ttft_s"] = nullptr;
  row["host_gb"] = bytes_to_gb(o.host_bytes);
  row["offload"] = obj({{"ngl", o.ngl},
                        {"n_cpu_moe", o.n_cpu_moe},
                        {"flags", placement_flags(o, *in.engine.profile)},
                        {"label", Message{"fits.offload", obj({{"host", o.host_bytes}})}}});
  if (set.decode.expected_tokens_per_s >= in.min_tokens_per_s) {
    rows.fits.push_back(std::move(row));
    return;
  }
  row["reason"] = Message{"floor.offload", obj({{"gpu", set.option.gpu->name},
                                                {"count", set.option.count},
                                                {"host", o.host_bytes},
                                                {"expected", set.decode.expected_tokens_per_s},
                                                {"floor", in.min_tokens_per_s}})};
  rows.below.push_back(std::move(row));
}

/**
 * The conventions: the cheapest way to hold it on each card of the
 * catalog, and how fast that set decodes (tensor parallel where the link
 * allows).
 */
Rows convention_rows(const Inference& in) {
  const EngineProfile& engine = *in.engine.profile;
  FitRules rules;
  rules.needs_fp8 = in.setup.weights != nullptr ? in.setup.weights->needs("fp8")
                                                : in.model.native_format == "fp8";
  // Cards to rent hold nothing else: what other processes hold is on the reader's own card.
  double total = in.plan.total_bytes;
  for (const Term& term : in.plan.terms) {
    if (term.id == "held") total -= term.bytes;
  }
  Rows rows;
  for (const Option& option : options_by_card(total, in.gpus, rules)) {
    const int tp = option.layout.tensor_parallel;
    const SpeedLayout sl = speed_layout(engine, tp, std::max(1, option.count / tp), option.count);
    const bool fp8 = fp8_compute(engine, in.setup.weights, in.model, *option.gpu);
    const DecodeSpeed ds = expected_decode(in.model, in.plan, *option.gpu, sl, in.setup.batch,
                                           in.format_id, fp8, in.speed, in.catalog.speed);
    const PrefillSpeed ps =
        expected_prefill(in.model, in.plan, *option.gpu, sl, in.setup.context, fp8, in.speed);
    add_row(in, option, ds, ps, rows);
  }
  return rows;
}

/** Under an engine: serving.hpp's cheapest_sets, cheapest first. */
Rows engine_rows(const Inference& in) {
  // Cards to rent hold nothing else: what other processes hold is on the reader's own card.
  InferenceSetup rented = in.setup;
  rented.held_bytes = 0;
  const ServingSearch search{rented,           *in.engine.profile, in.engine.options,
                             in.gpus,          in.catalog.formats, in.speed,
                             in.catalog.speed, in.format_id,       in.min_tokens_per_s};
  Rows rows;
  for (const ServingSet& set : cheapest_sets(search)) {
    if (set.offload) {
      add_offload_row(in, set, rows);
    } else {
      add_row(in, set.option, set.decode, set.prefill, rows);
    }
  }
  return rows;
}

}  // namespace

json cheapest_section(const Inference& in) {
  Rows rows = in.engine.profile->convention() ? convention_rows(in) : engine_rows(in);
  return obj({{"fits", std::move(rows.fits)}, {"below_floor", std::move(rows.below)}});
}

}  // namespace vram::answer
