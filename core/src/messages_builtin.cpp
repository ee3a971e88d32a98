// The catalogs embedded in the program (data/messages/*.json), read once.
// A file of its own: it reads them with json_read, which raises errors
// (error.hpp), whose English comes from messages.cpp; here, the reader
// leaves no circle between those modules (tools/module-cycles.mjs), and
// the page's module carries one JSON parser, the core's own.
#include <string>
#include <string_view>

#include "embedded_data.hpp"
#include "json_read.hpp"
#include "vram/messages.hpp"

namespace vram {

using nlohmann::json;

const MessageCatalogs& MessageCatalogs::builtin() {
  static const MessageCatalogs instance = [] {
    constexpr std::string_view kPrefix = "messages/";
    json catalogs = json::object();
    for (std::size_t i = 0; !embedded::name(i).empty(); ++i) {
      const std::string_view name = embedded::name(i);
      if (name.substr(0, kPrefix.size()) != kPrefix) continue;
      catalogs[std::string(name.substr(kPrefix.size()))] =
          json_read::parse_text(embedded::file(name));
    }
    return from_json(catalogs);
  }();
  return instance;
}

}  // namespace vram
