#include "render.hpp"

#include <sstream>

#include "vram/text.hpp"

namespace vramcli {

using nlohmann::json;
using vram::text::fixed;
using vram::text::grouped;

std::string pad(const std::string& text, std::size_t width, bool right) {
  std::size_t shown = 0;
  for (unsigned char c : text) shown += (c & 0xC0) != 0x80;  // count UTF-8 code points
  if (shown >= width) return text;
  const std::string fill(width - shown, ' ');
  return right ? fill + text : text + fill;
}

namespace {

void render_terms(std::ostringstream& out, const json& r) {
  out << pad("Term", 34) << pad("GB", 10, true) << "   Formula\n";
  for (const json& term : r.at("terms")) {
    out << pad(term.at("label").get<std::string>(), 34)
        << pad(fixed(term.at("gb").get<double>(), 2), 10, true) << "   "
        << term.at("formula").get<std::string>() << "\n";
  }
  const double total = r.at("total_gb").get<double>();
  out << pad("Total", 34) << pad(fixed(total, 2), 10, true) << "   = " << fixed(total, 0)
      << " GB\n";
}

// A warning or note: English text, or a message {"id", "params", "text"}.
std::string english_of(const json& item) {
  return item.is_string() ? item.get<std::string>() : item.at("text").get<std::string>();
}

void render_notes(std::ostringstream& out, const json& r) {
  const json& assumptions = r.at("assumptions");
  if (!assumptions.empty()) {
    out << "\nAssumptions\n";
    for (const json& a : assumptions) out << "  - " << a.at("text").get<std::string>() << "\n";
  }
  const json& warnings = r.at("warnings");
  if (!warnings.empty()) {
    out << "\nWarnings\n";
    for (const json& w : warnings) out << "  ! " << english_of(w) << "\n";
  }
  for (const json& note : r.at("model").at("notes")) {
    out << "\nNote: " << english_of(note) << "\n";
  }
}

std::string render_finetune(const json& r) {
  std::ostringstream out;
  const json& model = r.at("model");
  out << "Model    " << model.at("name").get<std::string>() << "  ["
      << model.at("id").get<std::string>() << "]\n";
  out << "         " << grouped(r.at("params_total").get<double>()) << " parameters, "
      << grouped(r.at("trainable_params").get<double>()) << " trainable\n";
  out << "Setup    " << r.at("mode").get<std::string>() << " fine-tune ("
      << r.at("finetune_profile").get<std::string>() << " profile) | seq "
      << grouped(r.at("seq").get<double>()) << " | micro-batch " << r.at("micro_batch").get<int>()
      << " | " << r.at("optimizer").get<std::string>() << " | ZeRO " << r.at("zero").get<int>()
      << " over " << r.at("gpu_count").get<int>() << " GPU(s)\n\n";
  render_terms(out, r);
  if (r.at("host_ram_gb").get<double>() > 0) {
    out << "Host RAM for the offloaded optimizer: " << fixed(r.at("host_ram_gb").get<double>(), 2)
        << " GB\n";
  }
  if (r.contains("fit")) {
    const json& f = r.at("fit");
    out << "\nCapacity " << fixed(f.at("capacity_gb").get<double>(), 2)
        << " GB: " << (f.at("fits").get<bool>() ? "fits" : "does not fit") << ", spare "
        << fixed(f.at("spare_gb").get<double>(), 2) << " GB\n";
    out << "Fits at most: sequence " << grouped(r.at("inverse").at("max_seq").get<double>())
        << ", micro-batch " << grouped(r.at("inverse").at("max_micro_batch").get<double>()) << "\n";
  }
  render_notes(out, r);
  return out.str();
}

}  // namespace

std::string render_estimate(const json& r) {
  if (r.contains("mode")) return render_finetune(r);
  std::ostringstream out;
  const json& model = r.at("model");
  out << "Model    " << model.at("name").get<std::string>() << "  ["
      << model.at("id").get<std::string>() << ", " << model.at("model_type").get<std::string>()
      << "]\n";
  out << "         " << grouped(r.at("params_total").get<double>()) << " parameters resident";
  if (r.at("params_active").get<double>() < r.at("params_total").get<double>()) {
    out << ", " << grouped(r.at("params_active").get<double>()) << " active per token";
  }
  out << "\n";
  out << "Setup    weights " << r.at("weights").get<std::string>() << " | KV "
      << r.at("kv").get<std::string>() << " | context " << grouped(r.at("context").get<double>())
      << " | batch " << grouped(r.at("batch").get<double>()) << "\n\n";

  render_terms(out, r);
  const double per_token = r.at("kv_bytes_per_token").get<double>();
  out << "KV cache per token: " << grouped(per_token) << " bytes (" << fixed(per_token / 1e6, 2)
      << " MB)\n";
  out << "Engine: " << r.at("engine").at("name").get<std::string>();
  if (r.at("tensor_parallel").get<int>() > 1) {
    out << ", tensor parallel " << r.at("tensor_parallel").get<int>() << " (figures per GPU)";
  }
  out << "\n";
  if (r.contains("budget")) {
    const json& b = r.at("budget");
    out << "\nOn " << r.at("gpu").at("name").get<std::string>() << ": "
        << fixed(b.at("usable_gib").get<double>(), 2) << " GiB usable"
        << (b.at("usable_estimated").get<bool>() ? " (estimated)" : "") << ", engine takes "
        << fixed(b.at("reserved_gb").get<double>(), 2) << " GB\n";
    out << "  KV budget " << fixed(b.at("kv_budget_gb").get<double>(), 2) << " GB ("
        << fixed(b.at("kv_budget_gib").get<double>(), 2)
        << " GiB) = " << grouped(b.at("kv_blocks").get<double>()) << " blocks, "
        << grouped(b.at("kv_tokens").get<double>()) << " tokens; max concurrency at this context "
        << fixed(b.at("max_concurrency").get<double>(), 2)
        << (b.at("fits").get<bool>() ? "" : "  (DOES NOT FIT)") << "\n";
  }
  if (r.contains("fit")) {
    const json& f = r.at("fit");
    out << "\nCapacity " << fixed(f.at("capacity_gb").get<double>(), 2) << " GB ("
        << f.at("basis").get<std::string>()
        << "): " << (f.at("fits").get<bool>() ? "fits" : "does not fit") << ", spare "
        << fixed(f.at("spare_gb").get<double>(), 2) << " GB\n";
  }
  if (r.contains("decode")) {
    const json& dc = r.at("decode");
    out << "Decode ceiling: guide " << fixed(dc.at("guide_tokens_per_s").get<double>(), 0)
        << " tok/s (bandwidth / resident weights); fuller "
        << fixed(dc.at("stream_tokens_per_s").get<double>(), 1) << " tok/s per sequence, "
        << fixed(dc.at("batch_tokens_per_s").get<double>(), 1)
        << " tok/s for the batch (active weights + KV read per step)\n";
  }
  if (r.contains("inverse")) {
    const json& inv = r.at("inverse");
    out << "Fits at most: context " << grouped(inv.at("max_context").get<double>())
        << (inv.at("context_limited_by_model").get<bool>() ? " (the model's limit)" : "")
        << ", batch " << grouped(inv.at("max_batch").get<double>()) << "; best weight format "
        << (inv.at("best_format").is_null() ? std::string("none")
                                            : inv.at("best_format").get<std::string>())
        << "\n";
  }

  render_notes(out, r);
  return out.str();
}

namespace {

std::string money(const json& value) {
  if (value.is_null()) return "-";
  return "$" + grouped(value.get<double>());
}

}  // namespace

std::string render_grid(const json& g) {
  std::ostringstream out;
  out << "Lookup grid at " << grouped(g.at("context").get<double>()) << " tokens, batch "
      << grouped(g.at("batch").get<double>()) << " (prices " << g.at("currency").get<std::string>()
      << " per month)\n"
      << g.at("conventions").get<std::string>() << "\n\n";
  out << pad("model", 22) << pad("method", 8) << pad("VRAM", 10, true) << "   " << pad("pick", 26)
      << pad("monthly", 10, true) << "  note\n";
  for (const json& row : g.at("rows")) {
    bool first = true;
    for (const json& cell : row.at("cells")) {
      out << pad(first ? row.at("name").get<std::string>() : "", 22)
          << pad(cell.at("method").get<std::string>(), 8)
          << pad(fixed(cell.at("vram_gb").get<double>(), 0) + " GB", 10, true) << "   ";
      first = false;
      const json& pick = cell.at("pick");
      if (pick.is_null()) {
        out << "no fit\n";
        continue;
      }
      const int count = pick.at("count").get<int>();
      std::string name =
          (count > 1 ? std::to_string(count) + "x " : "") + pick.at("name").get<std::string>();
      std::string note;
      if (pick.at("by_quote").get<bool>()) {
        name = std::to_string(pick.at("nodes").get<int>()) + " nodes of 8x " +
               pick.at("name").get<std::string>();
        note = "by quote";
      } else if (pick.at("tight").get<bool>()) {
        note = "tight";
      }
      out << pad(name, 26)
          << pad(pick.at("by_quote").get<bool>() ? "quote" : money(pick.at("monthly_usd")), 10,
                 true)
          << "  " << note << "\n";
    }
  }
  return out.str();
}

std::string render_devices(const json& d) {
  std::ostringstream out;
  out << "Devices for the weights of " << d.at("name").get<std::string>() << " ("
      << grouped(d.at("params_total").get<double>()) << " parameters), "
      << fixed(d.at("usable_fraction").get<double>() * 100, 0) << "% of each device usable\n";
  if (!d.at("placeholders").empty())
    out << "(attention values are placeholders: KV room is an estimate)\n";
  out << "\n" << pad("accelerator", 34);
  const json& first = d.at("rows").at(0).at("cells");
  for (const json& cell : first) {
    out << pad(cell.at("format_name").get<std::string>() + " " +
                   fixed(cell.at("weights_gb").get<double>(), 0) + " GB",
               22, true);
  }
  out << "\n";
  for (const json& row : d.at("rows")) {
    out << pad(
        row.at("name").get<std::string>() + " " + fixed(row.at("vram_gb").get<double>(), 0) + "GB",
        34);
    for (const json& cell : row.at("cells")) {
      const json& layout = cell.at("layout");
      const std::string deploy =
          layout.at("servers").get<int>() > 1
              ? std::to_string(layout.at("servers").get<int>()) + "x" +
                    std::to_string(layout.at("tensor_parallel").get<int>())
              : "TP" + std::to_string(layout.at("tensor_parallel").get<int>());
      out << pad("x " + std::to_string(cell.at("min_devices").get<int>()) + " (" + deploy + ")", 22,
                 true);
    }
    out << "\n";
  }
  out << "\nx N = the minimum count; (TPn) = the deployable tensor-parallel group, (SxT) = S "
         "servers of T.\n";
  return out.str();
}

std::string render_fleet(const json& f) {
  std::ostringstream out;
  out << pad("GPU", 16) << pad("VRAM", 8, true) << pad("GB/s", 8, true) << pad("monthly", 10, true)
      << pad("$/GB-mo", 9, true) << pad("GB/s/$", 8, true) << pad("$/hour", 8, true);
  const bool with_model = !f.empty() && f.at(0).contains("vram_needed_gb");
  if (with_model) out << pad("cards", 7, true) << pad("tok/s", 8, true) << pad("$/M tok", 9, true);
  out << "\n";
  for (const json& row : f) {
    out << pad(row.at("name").get<std::string>(), 16)
        << pad(fixed(row.at("vram_gb").get<double>(), 0), 8, true)
        << pad(fixed(row.at("bandwidth_gbps").get<double>(), 0), 8, true)
        << pad(money(row.at("monthly_usd")), 10, true)
        << pad(fixed(row.at("usd_per_gb_month").get<double>(), 2), 9, true)
        << pad(row.at("gbps_per_usd_month").is_null()
                   ? "-"
                   : fixed(row.at("gbps_per_usd_month").get<double>(), 2),
               8, true)
        << pad(fixed(row.at("usd_per_hour").get<double>(), 2), 8, true);
    if (with_model) {
      if (row.at("fit").is_null()) {
        out << "   does not fit";
      } else {
        out << pad(std::to_string(row.at("fit").at("count").get<int>()), 7, true)
            << pad(fixed(row.at("decode_tokens_per_s").get<double>(), 0), 8, true)
            << pad(fixed(row.at("usd_per_million_tokens").get<double>(), 2), 9, true);
      }
    }
    out << "\n";
  }
  return out.str();
}

std::string render_presets(const json& presets, const std::string& what) {
  std::ostringstream out;
  if (what == "models") {
    for (const json& m : presets.at("models")) {
      out << pad(m.at("id").get<std::string>(), 28) << pad(m.at("group").get<std::string>(), 10)
          << m.at("name").get<std::string>() << "\n";
    }
  } else if (what == "formats") {
    out << "Weight formats\n";
    for (const json& f : presets.at("weight_formats")) {
      out << "  " << pad(f.at("id").get<std::string>(), 12)
          << pad(fixed(f.at("bits_per_weight").get<double>(), 3), 8, true) << " bits  "
          << f.at("name").get<std::string>() << "\n";
    }
    out << "KV cache formats\n";
    for (const json& f : presets.at("kv_formats")) {
      out << "  " << pad(f.at("id").get<std::string>(), 12)
          << pad(fixed(f.at("bits_per_element").get<double>(), 3), 8, true) << " bits  "
          << f.at("name").get<std::string>() << "\n";
    }
  } else {
    for (const json& g : presets.at("gpus")) {
      out << pad(g.at("id").get<std::string>(), 16)
          << pad(fixed(g.at("vram_gb").get<double>(), 0) + " GB", 8, true)
          << pad(fixed(g.at("bandwidth_gbps").get<double>(), 0) + " GB/s", 12, true) << "  "
          << g.at("name").get<std::string>() << "\n";
    }
  }
  return out.str();
}

}  // namespace vramcli
