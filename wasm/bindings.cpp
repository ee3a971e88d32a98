// The Embind surface: one string-in, string-out function per user action.
// Requests and results are JSON text in the same shapes as the CLI's --json;
// errors come back as {"error": {...}}; nothing is handed to JS to free.
// web/src/api.js wraps these into the page's calls.

#include <emscripten/bind.h>

#include <string>

#include "vram/api.hpp"
#include "vram/checkpoint.hpp"

namespace {

// The catalog is parsed once, on first use, and never changes afterwards.
const vram::Calculator& calculator() {
  static const vram::Calculator instance;
  return instance;
}

std::string call(const std::string& method, const std::string& request) {
  // Building the catalog on the first call could throw (memory); an
  // exception escaping here would leave the module broken.
  return vram::guarded("request", [&] { return vram::call(calculator(), method, request); });
}

// A file header's bytes: Embind hands a JS Uint8Array or ArrayBuffer over as
// a std::string of raw bytes. `file_size` is the whole file's (0: unknown).
std::string inspect(const std::string& kind, const std::string& bytes, double file_size) {
  return vram::inspect(kind, bytes, file_size);
}

}  // namespace

EMSCRIPTEN_BINDINGS(vram) {
  emscripten::function("call", &call);
  emscripten::function("inspect", &inspect);
}
