#include "vram/message.hpp"

#include "vram/messages.hpp"

namespace vram {

using nlohmann::json;

std::string english(const Message& message) {
  try {
    return render(message, MessageCatalogs::builtin(), RenderOptions{});
  } catch (...) {
    return message.id;  // an error path must not fail on its own words
  }
}

json with_english(const Message& message) {
  return json{{"id", message.id}, {"params", message.params}, {"text", english(message)}};
}

}  // namespace vram
