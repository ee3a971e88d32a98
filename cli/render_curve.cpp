#include "render_curve.hpp"

#include <sstream>
#include <vector>

namespace vramcli {

using nlohmann::json;

std::string render_curve(const json& c, const Words& say) {
  std::ostringstream out;
  out << say("curve.title", {{"count", c.at("gpu_count")},
                             {"gpu", c.at("gpu_name")},
                             {"context", c.at("context")},
                             {"limit", c.at("users_limit")}})
      << "\n\n";
  if (c.at("points").empty()) return out.str() + say("curve.no_fit") + "\n";
  std::vector<std::vector<std::string>> rows = {{say("curve.col.users"), say("curve.col.per_user"),
                                                 say("curve.col.band"), say("curve.col.total"),
                                                 say("curve.col.ttft")}};
  for (const json& p : c.at("points")) {
    rows.push_back({say.number(p.at("users").get<double>(), 0),
                    say("curve.rate", {{"value", p.at("tokens_per_s")}}) +
                        (p.at("meets_floor").get<bool>() ? "" : " *"),
                    say("curve.band", {{"low", p.at("low")}, {"high", p.at("high")}}),
                    say("curve.rate", {{"value", p.at("total_tokens_per_s")}}),
                    p.at("ttft_s").is_null() ? std::string("-")
                                             : say("curve.seconds", {{"value", p.at("ttft_s")}})});
  }
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& cells : rows)
    for (std::size_t i = 0; i < cells.size(); ++i) width[i] = std::max(width[i], columns(cells[i]));
  for (const auto& cells : rows) {
    out << " ";
    for (std::size_t i = 0; i < cells.size(); ++i) out << " " << pad(cells[i], width[i], i > 0);
    out << "\n";
  }
  out << "\n";
  const json& f = c.at("at_floor");
  if (f.is_null()) {
    out << say("curve.none", {{"floor", c.at("min_tokens_per_s")}}) << "\n";
  } else {
    out << say("curve.at_floor", {{"users", f.at("users")},
                                  {"floor", c.at("min_tokens_per_s")},
                                  {"total", f.at("total_tokens_per_s")}})
        << " " << say("cli.curve_star") << "\n";
    if (!f.at("usd_per_million_output").is_null()) {
      out << say("curve.cost", {{"output", f.at("usd_per_million_output")},
                                {"input", f.at("usd_per_million_input")},
                                {"hourly", f.at("usd_per_hour")}})
          << "\n";
    }
  }
  for (const json& a : c.at("assumptions")) out << "\n" << say.msg(a) << "\n";
  if (c.at("measured_error").is_object()) out << say.msg(c.at("measured_error").at("note")) << "\n";
  return out.str();
}

}  // namespace vramcli
