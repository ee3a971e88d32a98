#include "render.hpp"

#include <algorithm>
#include <sstream>

namespace vramcli {

using nlohmann::json;

namespace {

// Code points a terminal draws with no width of their own: Arabic's
// diacritics (U+064B-065F, U+0670), the joiners and direction marks
// (U+200B-200F: Persian writes ZWNJ inside words), the Arabic letter mark
// (U+061C) and the isolates the catalogs put around names (U+2066-2069).
bool zero_width(char32_t cp) {
  return (cp >= 0x064B && cp <= 0x065F) || cp == 0x0670 || cp == 0x061C ||
         (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

std::size_t columns(const std::string& text) {
  std::size_t shown = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    char32_t cp = length == 1 ? lead : lead & (0x7F >> length);
    for (std::size_t k = 1; k < length && i + k < text.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    shown += zero_width(cp) ? 0 : 1;
    i += length;
  }
  return shown;
}

std::string pad(const std::string& text, std::size_t width, bool right) {
  const std::size_t shown = columns(text);
  if (shown >= width) return text;
  const std::string fill(width - shown, ' ');
  return right ? fill + text : text + fill;
}

std::string Words::msg(const json& message) const {
  if (message.is_string()) return message.get<std::string>();  // an id with no params
  vram::Message m{message.at("id").get<std::string>(), message.value("params", json::object())};
  return vram::render(m, vram::MessageCatalogs::builtin(), options);
}

std::string Words::operator()(const std::string& id, json params) const {
  return vram::render({id, std::move(params)}, vram::MessageCatalogs::builtin(), options);
}

std::string Words::number(double value, int decimals) const {
  return (*this)("cli.d" + std::to_string(decimals), {{"value", value}});
}

namespace {

void render_terms(std::ostringstream& out, const json& r, const Words& say) {
  out << pad(say("cli.col.term"), 34) << pad(say("cli.col.gb"), 10, true) << "   "
      << say("cli.col.formula") << "\n";
  for (const json& term : r.at("terms")) {
    out << pad(say.msg(term.at("label")), 34)
        << pad(say.number(term.at("gb").get<double>(), 2), 10, true) << "   "
        << (term.at("formula").is_null() ? "" : say.msg(term.at("formula"))) << "\n";
  }
  const double total = r.at("total_gb").get<double>();
  out << pad(say("cli.total"), 34) << pad(say.number(total, 2), 10, true) << "   "
      << say("cli.total_rounded", {{"gb", total}}) << "\n";
  // How far measured cases of this kind landed, wider for terms none of them checked.
  if (r.contains("measured_error") && r.at("measured_error").is_object()) {
    out << say.msg(r.at("measured_error").at("note")) << "\n";
  }
}

void render_notes(std::ostringstream& out, const json& r, const Words& say) {
  const json& assumptions = r.at("assumptions");
  if (!assumptions.empty()) {
    out << "\n" << say("cli.assumptions") << "\n";
    for (const json& a : assumptions) out << "  - " << say.msg(a) << "\n";
  }
  const json& warnings = r.at("warnings");
  if (!warnings.empty()) {
    out << "\n" << say("cli.warnings") << "\n";
    for (const json& w : warnings) out << "  ! " << say.msg(w) << "\n";
  }
  for (const json& note : r.at("model").at("notes")) {
    out << "\n" << say("cli.note", {{"note", note}}) << "\n";
  }
}

void render_fit(std::ostringstream& out, const json& f, const Words& say) {
  out << "\n"
      << say(f.at("fits").get<bool>() ? (f.at("tight").get<bool>() ? "cli.fit_tight" : "cli.fit")
                                      : "cli.no_fit",
             {{"capacity", f.at("capacity_gb")},
              {"basis", f.at("basis")},
              {"spare", f.at("spare_gb")},
              // A shortfall is said as one, never as a negative spare.
              {"short", -f.at("spare_gb").get<double>()}})
      << "\n";
}

std::string render_finetune(const json& r, const Words& say) {
  std::ostringstream out;
  const json& model = r.at("model");
  out << say("cli.model_finetune", {{"name", model.at("name")}, {"id", model.at("id")}}) << "\n";
  out << say("cli.params_finetune",
             {{"total", r.at("params_total")}, {"trainable", r.at("trainable_params")}})
      << "\n";
  auto word = [](const std::string& family, const json& id) {
    return json{{"id", family + "." + id.get<std::string>()}};
  };
  out << say("cli.setup_finetune", {{"mode", word("mode", r.at("mode"))},
                                    {"profile", word("profile", r.at("finetune_profile"))},
                                    {"seq", r.at("seq")},
                                    {"micro_batch", r.at("micro_batch")},
                                    {"optimizer", word("optimizer", r.at("optimizer"))},
                                    {"zero", r.at("zero")},
                                    {"gpus", r.at("gpu_count")}})
      << "\n\n";
  render_terms(out, r, say);
  if (r.at("host_ram_gb").get<double>() > 0) {
    out << say("cli.host_ram", {{"gb", r.at("host_ram_gb")}}) << "\n";
  }
  if (r.contains("fit")) {
    render_fit(out, r.at("fit"), say);
    const json& inv = r.at("inverse");
    out << (inv.at("max_seq").get<double>() > 0
                ? say("cli.inverse_finetune",
                      {{"seq", inv.at("max_seq")}, {"micro_batch", inv.at("max_micro_batch")}})
                : say("cli.inverse_finetune_none"))
        << "\n";
  }
  if (r.contains("launch")) {
    const json& launch = r.at("launch");
    out << say("cli.launch_training") << "\n";
    // Python, fenced as Markdown fences code, to paste into a script.
    out << "  ```python\n";
    std::istringstream lines(launch.at("command").get<std::string>());
    for (std::string line; std::getline(lines, line);) out << "  " << line << "\n";
    out << "  ```\n";
    for (const json& note : launch.at("notes")) out << "  " << say.msg(note) << "\n";
    if (launch.contains("launcher")) {
      out << say("launch.launcher", {{"count", launch.at("launcher_gpus")}}) << "\n  $ "
          << launch.at("launcher").get<std::string>() << "\n";
    }
  }
  render_notes(out, r, say);
  return out.str();
}

/** Unequal cards under llama.cpp: each card's run of layers and buffers, then the most context. */
void render_split(std::ostringstream& out, const Words& say, const json& split) {
  std::string values;
  for (const json& v : split.at("tensor_split")) values += (values.empty() ? "" : ",") + v.dump();
  // Code the reader types: quoted, Latin in every language.
  auto code = [](const std::string& text) {
    return json{{"id", "quote.text"}, {"params", {{"text", text}}}};
  };
  out << say("split.title", {{"flags", code("--tensor-split " + values)}}) << "\n";
  for (const json& c : split.at("cards")) {
    const json device = code("CUDA" + c.at("device").dump());
    const int layers = c.at("layers").get<int>();
    if (layers == 0 && c.at("output") == false) {
      out << say("split.card_idle", {{"device", device}, {"gpu", c.at("name")}}) << "\n";
      continue;
    }
    const int first = c.at("first_layer").get<int>();
    out << say(c.at("output") == true ? "split.card_output" : "split.card",
               {{"device", device},
                {"gpu", c.at("name")},
                {"first", first},
                {"last", first + layers - 1},
                {"layers", layers},
                {"weights", c.at("weights_gb")},
                {"kv", c.at("kv_gb")},
                {"buffers", c.at("compute_gb").get<double>() + c.at("context_gb").get<double>()},
                {"total", c.at("total_gb")},
                {"capacity", c.at("capacity_gb")}})
        << "\n";
  }
  out << say("split.context",
             {{"context", split.at("max_context")}, {"speed", split.at("decode_tokens_per_s")}})
      << "\n";
}

}  // namespace

std::string render_estimate(const json& r, const Words& say) {
  if (r.contains("mode")) return render_finetune(r, say);
  std::ostringstream out;
  const json& model = r.at("model");
  out << say("cli.model",
             {{"name", model.at("name")}, {"id", model.at("id")}, {"type", model.at("model_type")}})
      << "\n";
  const bool moe = r.at("params_active").get<double>() < r.at("params_total").get<double>();
  out << say(moe ? "cli.params_active" : "cli.params",
             {{"total", r.at("params_total")}, {"active", r.at("params_active")}})
      << "\n";
  out << say("cli.setup", {{"weights", r.at("weights")},
                           {"kv", r.at("kv")},
                           {"context", r.at("context")},
                           {"batch", r.at("batch")}})
      << "\n\n";
  render_terms(out, r, say);
  out << say("cli.kv_per_token", {{"bytes", r.at("kv_bytes_per_token")},
                                  {"mb", r.at("kv_bytes_per_token").get<double>() / 1e6}})
      << "\n";
  const int tp = r.at("tensor_parallel").get<int>();
  out << say(tp > 1 ? "cli.engine_tp" : "cli.engine",
             {{"engine", r.at("engine").at("label")}, {"tp", tp}})
      << "\n";
  if (r.contains("budget")) {
    const json& b = r.at("budget");
    out << "\n"
        << say(b.at("usable_estimated").get<bool>() ? "cli.budget_card_estimated"
                                                    : "cli.budget_card",
               {{"gpu", r.at("gpu").at("name")},
                {"usable", b.at("usable_gib")},
                {"reserved", b.at("reserved_gb")}})
        << "\n";
    out << say(b.at("fits").get<bool>() ? "cli.budget_kv" : "cli.budget_kv_short",
               {{"kv", b.at("kv_budget_gb")},
                {"kv_gib", b.at("kv_budget_gib")},
                {"blocks", b.at("kv_blocks")},
                {"tokens", b.at("kv_tokens")},
                {"concurrency", b.at("max_concurrency")}})
        << "\n";
  }
  if (r.contains("serving")) {
    const json& sv = r.at("serving");
    out << "\n"
        << say("cli.serving", {{"gpus", sv.at("gpus")},
                               {"gpu", r.at("gpu").at("name")},
                               {"split", sv.at("layout")},
                               {"nodes", sv.at("nodes")},
                               {"per_gpu", sv.at("per_gpu_gb")},
                               {"total", sv.at("total_gb")}})
        << "\n";
    if (sv.at("kv_heads_replicated").get<bool>()) {
      out << "  " << say("serving.replicated") << "\n";
    }
    if (sv.contains("moe_layout") && !sv.at("moe_layout").is_null()) {
      out << "  " << say("serving.moeLayout") << ": " << say.msg(sv.at("moe_layout").at("label"))
          << "\n";
    }
    // With a partial offload, the plan's figures are those of every layer on the GPU.
    const bool offload_fits = sv.contains("offload") && sv.at("offload").at("fits").get<bool>();
    const json verdict{{"id", sv.at("fits").get<bool>() ? "serving.fit"
                              : offload_fits            ? "serving.offloadFit"
                                                        : "serving.short"},
                       {"params", json::object()}};
    const double room = sv.at("kv_budget_gb").get<double>();
    // A shortfall is said as one, never as a negative room.
    out << (room < 0 ? say("cli.serving_kv_none",
                           {{"short", -room}, {"users", sv.at("users")}, {"verdict", verdict}})
                     : say("cli.serving_kv", {{"kv", room},
                                              {"kv_total", sv.at("kv_budget_total_gb")},
                                              {"tokens", sv.at("kv_tokens")},
                                              {"max_users", sv.at("max_users")},
                                              {"context", r.at("context")},
                                              {"users", sv.at("users")},
                                              {"verdict", verdict}}))
        << "\n";
    const json& needed = sv.at("cards_needed");
    out << (needed.is_null()
                ? say("cli.serving_none",
                      {{"gpu", r.at("gpu").at("name")}, {"max", sv.at("cards_searched")}})
                : say("cli.serving_needed", {{"gpu", r.at("gpu").at("name")}, {"count", needed}}))
        << "\n";
    if (sv.contains("offload")) {
      const json& o = sv.at("offload");
      out << "  " << say("serving.allOnGpu") << "\n"
          << say.msg(o.at("headline")) << "\n"
          << say("cli.offload_parts", {{"per_gpu", o.at("per_gpu_gb")},
                                       {"host", o.at("host_gb")},
                                       {"weights", o.at("host_weights_gb")},
                                       {"kv", o.at("host_kv_gb")},
                                       {"compute", o.at("host_compute_gb")},
                                       {"bandwidth", o.at("host_bandwidth_gbps")}})
          << "\n";
    }
  }
  if (r.contains("split")) render_split(out, say, r.at("split"));
  if (r.contains("launch")) {
    const json& launch = r.at("launch");
    out << say("cli.launch") << "\n  $ " << launch.at("command").get<std::string>() << "\n";
    // A second model's server on the same card, on its own port.
    if (launch.contains("companion")) {
      out << say("cli.launch_companion") << "\n  $ "
          << launch.at("companion").at("command").get<std::string>() << "\n";
    }
    for (const json& other : launch.value("also", json::array())) {
      out << say("cli.launch_also", {{"name", other.at("name")}}) << "\n  $ "
          << other.at("command").get<std::string>() << "\n";
      for (const json& note : other.value("notes", json::array())) {
        out << "  " << say.msg(note) << "\n";
      }
    }
  }
  if (r.contains("fit")) render_fit(out, r.at("fit"), say);
  if (r.contains("decode")) {
    const json& dc = r.at("decode");
    out << say("cli.decode", {{"guide", dc.at("guide_tokens_per_s")},
                              {"stream", dc.at("stream_tokens_per_s")},
                              {"batch", dc.at("batch_tokens_per_s")}})
        << "\n";
    if (dc.contains("expected_tokens_per_s")) {
      const bool met = dc.at("meets_floor").get<bool>();
      out << say("cli.decode_expected",
                 {{"expected", dc.at("expected_tokens_per_s")},
                  {"batch", dc.at("expected_batch_tokens_per_s")},
                  {"efficiency", dc.at("efficiency").get<double>() * 100},
                  {"step", dc.at("step_ms").at("total")},
                  {"floor", dc.at("min_tokens_per_s")},
                  {"verdict", json{{"id", met ? "decode.floorMet" : "decode.floorMissed"}}}})
          << "\n";
    }
  }
  if (r.contains("prefill") && r.at("prefill").at("known").get<bool>()) {
    const json& p = r.at("prefill");
    out << say("cli.ttft", {{"tokens", p.at("prompt_tokens")},
                            {"seconds", p.at("ttft_s")},
                            {"tflops", p.at("tflops")},
                            {"utilisation", p.at("utilisation").get<double>() * 100}})
        << "\n";
  }
  if (r.contains("fits") && r.contains("below_floor") && !r.at("fits").empty()) {
    out << say("fits.title") << ":\n";
    for (const json& row : r.at("fits")) {
      json params{{"count", row.at("count")},
                  {"name", row.at("name")},
                  {"usd", row.at("monthly_usd")},
                  {"expected", row.at("decode_expected_tokens_per_s")}};
      // llama.cpp with the rest in host RAM: where it goes and how much.
      const bool offload = row.contains("offload");
      if (offload) {
        params["offload"] = row.at("offload").at("label");
        params["placement"] = row.at("offload").at("flags");
      }
      out << "  " << say(offload ? "cli.fit_row_offload" : "cli.fit_row", params) << "\n";
    }
  }
  if (r.contains("below_floor") && !r.at("below_floor").empty()) {
    const json& rows = r.at("below_floor");
    out << say("cli.below_floor", {{"floor", rows.at(0).at("reason").at("params").at("floor")}})
        << "\n";
    for (const json& row : rows) out << "  " << say.msg(row.at("reason")) << "\n";
  }
  if (r.contains("inverse")) {
    const json& inv = r.at("inverse");
    const char* id = inv.at("max_context").get<double>() <= 0         ? "cli.inverse_none"
                     : inv.at("context_limited_by_model").get<bool>() ? "cli.inverse_model_limit"
                                                                      : "cli.inverse";
    out << say(id, {{"context", inv.at("max_context")},
                    {"batch", inv.at("max_batch")},
                    {"format", inv.at("best_format").is_null() ? json(say("cli.none"))
                                                               : inv.at("best_format")}})
        << "\n";
  }
  render_notes(out, r, say);
  return out.str();
}

namespace {

std::string money(const json& value, const Words& say) {
  if (value.is_null()) return "-";
  return say("cli.usd", {{"usd", value}});
}

}  // namespace

std::string render_grid(const json& g, const Words& say) {
  std::ostringstream out;
  out << say("cli.grid_title", {{"context", g.at("context")},
                                {"batch", g.at("batch")},
                                {"currency", g.at("currency")}})
      << "\n"
      << say.msg(g.at("conventions")) << "\n\n";
  out << pad(say("cli.col.model"), 22) << pad(say("cli.col.method"), 16)
      << pad(say("cli.col.vram"), 10, true) << "   " << pad(say("cli.col.pick"), 26)
      << pad(say("cli.col.monthly"), 10, true) << "  " << say("cli.col.note") << "\n";
  for (const json& row : g.at("rows")) {
    bool first = true;
    for (const json& cell : row.at("cells")) {
      out << pad(first ? row.at("name").get<std::string>() : "", 22)
          << pad(say("method." + cell.at("method").get<std::string>()), 16)
          << pad(say("cli.gb0", {{"gb", cell.at("vram_gb")}}), 10, true) << "   ";
      first = false;
      const json& pick = cell.at("pick");
      if (pick.is_null()) {
        out << say("cli.no_pick") << "\n";
        continue;
      }
      const bool quote = pick.at("by_quote").get<bool>();
      const int count = pick.at("count").get<int>();
      const std::string name =
          quote       ? say("cli.nodes", {{"nodes", pick.at("nodes")},
                                          {"per", count / pick.at("nodes").get<int>()},
                                          {"gpu", pick.at("name")}})
          : count > 1 ? say("cli.cards", {{"count", count}, {"gpu", pick.at("name")}})
                      : pick.at("name").get<std::string>();
      const std::string note = quote                          ? say("cli.by_quote")
                               : pick.at("tight").get<bool>() ? say("cli.tight")
                                                              : "";
      out << pad(name, 26)
          << pad(quote ? say("cli.quote") : money(pick.at("monthly_usd"), say), 10, true) << "  "
          << note << "\n";
    }
  }
  return out.str();
}

std::string render_devices(const json& d, const Words& say) {
  std::ostringstream out;
  out << say("cli.devices_title", {{"model", d.at("name")},
                                   {"params", d.at("params_total")},
                                   {"pct", d.at("usable_fraction").get<double>() * 100}})
      << "\n";
  if (!d.at("placeholders").empty()) out << say("cli.devices_placeholders") << "\n";
  out << "\n" << pad(say("cli.col.accelerator"), 34);
  const json& first = d.at("rows").at(0).at("cells");
  for (const json& cell : first) {
    out << pad(say("cli.devices_format",
                   {{"format", cell.at("format_name")}, {"gb", cell.at("weights_gb")}}),
               22, true);
  }
  out << "\n";
  for (const json& row : d.at("rows")) {
    out << pad(say("cli.devices_card", {{"gpu", row.at("name")}, {"gb", row.at("vram_gb")}}), 34);
    for (const json& cell : row.at("cells")) {
      const json& layout = cell.at("layout");
      const bool servers = layout.at("servers").get<int>() > 1;
      out << pad(say(servers ? "cli.devices_servers" : "cli.devices_tp",
                     {{"count", cell.at("min_devices")},
                      {"servers", layout.at("servers")},
                      {"tp", layout.at("tensor_parallel")}}),
                 22, true);
    }
    out << "\n";
  }
  out << "\n" << say("cli.devices_key") << "\n";
  return out.str();
}

std::string render_fleet(const json& f, const Words& say) {
  // Columns as wide as their widest cell (Persian's and Arabic's headers
  // are longer than the numbers under them); a card that cannot hold the
  // model says why in one sentence over the model's columns.
  const bool with_model = !f.empty() && f.at(0).contains("vram_needed_gb");
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head = {say("cli.col.gpu"),       say("cli.col.vram_short"),
                                   say("cli.col.bandwidth"), say("cli.col.monthly"),
                                   say("cli.col.per_gb"),    say("cli.col.per_bandwidth"),
                                   say("cli.col.per_hour")};
  if (with_model) {
    for (const char* id :
         {"cli.col.cards", "cli.col.tps_expected", "cli.col.tps", "cli.col.per_million"})
      head.push_back(say(id));
  }
  rows.push_back(head);
  const auto number_or_dash = [&](const json& value, int decimals) {
    return value.is_null() ? std::string("-") : say.number(value.get<double>(), decimals);
  };
  for (const json& row : f) {
    std::vector<std::string> cells = {row.at("name").get<std::string>(),
                                      say.number(row.at("vram_gb").get<double>(), 0),
                                      say.number(row.at("bandwidth_gbps").get<double>(), 0),
                                      money(row.at("monthly_usd"), say),
                                      number_or_dash(row.at("usd_per_gb_month"), 2),
                                      number_or_dash(row.at("gbps_per_usd_month"), 2),
                                      number_or_dash(row.at("usd_per_hour"), 2)};
    if (with_model && row.at("fit").is_null()) {
      cells.push_back(say.msg(row.at("unfit_reason")));
    } else if (with_model) {
      cells.push_back(say.number(row.at("fit").at("count").get<double>(), 0));
      cells.push_back(number_or_dash(row.at("decode_expected_tokens_per_s"), 0));
      cells.push_back(number_or_dash(row.at("decode_tokens_per_s"), 0));
      cells.push_back(number_or_dash(row.at("usd_per_million_tokens"), 2));
    }
    rows.push_back(std::move(cells));
  }
  // A row shorter than the head ends in a sentence that takes no column's width.
  std::vector<std::size_t> width(head.size(), 0);
  for (const auto& cells : rows) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (cells.size() < head.size() && c + 1 == cells.size()) break;
      width[c] = std::max(width[c], columns(cells[c]));
    }
  }
  std::ostringstream out;
  for (const auto& cells : rows) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const bool sentence = cells.size() < head.size() && c + 1 == cells.size();
      if (c > 0) out << "  ";
      out << (sentence ? cells[c] : pad(cells[c], width[c], c > 0));
    }
    out << "\n";
  }
  return out.str();
}

std::string render_presets(const json& presets, const std::string& what, const Words& say) {
  std::ostringstream out;
  if (what == "models") {
    for (const json& m : presets.at("models")) {
      out << pad(m.at("id").get<std::string>(), 28) << pad(m.at("group").get<std::string>(), 10)
          << m.at("name").get<std::string>() << "\n";
    }
  } else if (what == "formats") {
    out << say("cli.weight_formats") << "\n";
    for (const json& f : presets.at("weight_formats")) {
      out << "  " << pad(f.at("id").get<std::string>(), 12)
          << pad(say.number(f.at("bits_per_weight").get<double>(), 3), 8, true) << " "
          << say("cli.bits") << "  " << f.at("name").get<std::string>() << "\n";
    }
    out << say("cli.kv_formats") << "\n";
    for (const json& f : presets.at("kv_formats")) {
      out << "  " << pad(f.at("id").get<std::string>(), 12)
          << pad(say.number(f.at("bits_per_element").get<double>(), 3), 8, true) << " "
          << say("cli.bits") << "  " << f.at("name").get<std::string>() << "\n";
    }
  } else {
    // The id column as wide as the longest id ("apple-m3-ultra-256gb").
    std::size_t width = 16;
    for (const json& g : presets.at("gpus")) {
      width = std::max(width, g.at("id").get<std::string>().size() + 2);
    }
    for (const json& g : presets.at("gpus")) {
      out << pad(g.at("id").get<std::string>(), width)
          << pad(say("cli.gb0", {{"gb", g.at("vram_gb")}}), 8, true)
          << pad(say("cli.gbps", {{"gbps", g.at("bandwidth_gbps")}}), 12, true) << "  "
          << g.at("name").get<std::string>() << "\n";
    }
  }
  return out.str();
}

}  // namespace vramcli
