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

std::string render_estimate(const json& r) {
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

  out << pad("Term", 18) << pad("GB", 10, true) << "   Formula\n";
  for (const json& term : r.at("terms")) {
    out << pad(term.at("label").get<std::string>(), 18)
        << pad(fixed(term.at("gb").get<double>(), 2), 10, true) << "   "
        << term.at("formula").get<std::string>() << "\n";
  }
  const double total = r.at("total_gb").get<double>();
  out << pad("Total", 18) << pad(fixed(total, 2), 10, true) << "   = " << fixed(total, 0)
      << " GB\n\n";
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

  const json& assumptions = r.at("assumptions");
  if (!assumptions.empty()) {
    out << "\nAssumptions\n";
    for (const json& a : assumptions) out << "  - " << a.at("text").get<std::string>() << "\n";
  }
  const json& warnings = r.at("warnings");
  if (!warnings.empty()) {
    out << "\nWarnings\n";
    for (const json& w : warnings) out << "  ! " << w.get<std::string>() << "\n";
  }
  for (const json& note : model.at("notes")) out << "\nNote: " << note.get<std::string>() << "\n";
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
