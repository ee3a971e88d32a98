#include "render_log.hpp"

#include <cmath>
#include <sstream>
#include <vector>

namespace vramcli {

using nlohmann::json;

std::string render_log(const json& a, const Words& say) {
  std::ostringstream out;
  const json& log = a.at("log");
  const json model = a.at("preset");
  out << say("log.title",
             {{"engine", log.at("version") == "" ? log.at("engine_name").get<std::string>()
                                                 : log.at("engine_name").get<std::string>() + " " +
                                                       log.at("version").get<std::string>()},
              {"model", log.at("model") == "" ? json("-") : log.at("model")},
              {"preset", model.is_null() ? json("-") : model}})
      << "\n\n";
  std::vector<std::vector<std::string>> rows = {{say("log.col.figure"), say("log.col.device"),
                                                 say("log.col.logged"), say("log.col.predicted"),
                                                 say("log.col.difference"), say("log.col.line")}};
  for (const json& r : a.at("rows")) {
    const bool bytes = r.at("unit") == "GiB";
    const int decimals = 0;
    auto value = [&](const json& v) {
      if (v.is_null()) return std::string("-");
      if (bytes) return say("log.gib", {{"value", v}});
      return say.number(v.get<double>(), r.at("id") == "max_concurrency" ? 2 : decimals);
    };
    const json& d = r.at("difference_pct");
    rows.push_back({say("logQuantity." + r.at("id").get<std::string>()),
                    r.at("device").get<std::string>(), value(r.at("logged")),
                    value(r.at("predicted")),
                    d.is_null() ? std::string("-") : say("log.difference", {{"pct", d}}),
                    say.number(r.at("line").get<double>(), 0)});
  }
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& cells : rows)
    for (std::size_t c = 0; c < cells.size(); ++c) width[c] = std::max(width[c], columns(cells[c]));
  for (const auto& cells : rows) {
    out << " ";
    for (std::size_t c = 0; c < cells.size(); ++c) out << " " << pad(cells[c], width[c], c >= 2);
    out << "\n";
  }
  if (a.at("pool").is_object()) {
    const json& p = a.at("pool");
    out << "\n"
        << say("log.pool",
               {{"tokens", p.at("tokens")}, {"users", p.at("users")}, {"context", p.at("context")}})
        << "\n";
  }
  for (const json& note : a.at("notes")) out << "\n" << say.msg(note);
  if (!a.at("notes").empty()) out << "\n";
  return out.str();
}

}  // namespace vramcli
