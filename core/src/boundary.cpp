#include "vram/boundary.hpp"

#include "vram/json_object.hpp"

namespace vram {

using nlohmann::json;

const char* const kInternalErrorAnswer =
    R"({"error":{"code":"internal","field":"","message":"internal error","message_id":"error.internal","params":{}}})";

namespace {

// A safety net over sentences that already quote inputs at most
// Error::kQuoteChars long: room for the sentence around them, no more.
constexpr std::size_t kMaxMessageChars = 1000;

std::string clip(const std::string& text, std::size_t max) {
  if (text.size() <= max) return text;
  std::size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end) + "\u2026";  // an ellipsis: cut, in every language
}

}  // namespace

std::string error_answer(const Error& e) {
  json error = e.to_json();
  // A field may be the user's own key (an unknown field): quote it.
  error["field"] = Error::quote(e.field());
  error["message"] = clip(e.what(), kMaxMessageChars);
  json& params = error["params"];
  for (auto it = params.begin(); it != params.end(); ++it) {
    if (it->is_string()) *it = clip(it->get<std::string>(), kMaxMessageChars);
  }
  if (params.contains("field")) params["field"] = error["field"];
  if (const auto* t = dynamic_cast<const TruncatedError*>(&e)) {
    error["needed_bytes"] = t->needed_bytes();
  }
  // Replacement characters for any invalid UTF-8 that came in: never a throw.
  return dump_json(obj({{"error", std::move(error)}}));
}

}  // namespace vram
