// The Embind surface: one string-in, string-out function per user action.
// Requests and results are JSON text in the same shapes as the CLI's --json;
// errors come back as {"error": {...}}; nothing is handed to JS to free.
// web/src/api.js wraps these into the page's calls.

#include <emscripten/bind.h>
#include <emscripten/val.h>

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

// The answer of `call` as its UTF-8 bytes: a Uint8Array over the module's
// memory, valid until the next call, which web/src/core.js decodes at once
// with TextDecoder. Embind's std::string return walks the bytes in JS twice
// (looking for NULs) before decoding: 9 ms for the 45 KB presets answer in
// a cold page. The text lives in the binding, not in the core.
emscripten::val call_bytes(const std::string& method, const std::string& request) {
  static std::string answer;
  answer = call(method, request);
  return emscripten::val(emscripten::typed_memory_view(
      answer.size(), reinterpret_cast<const unsigned char*>(answer.data())));
}

// A file header's bytes: Embind hands a JS Uint8Array or ArrayBuffer over as
// a std::string of raw bytes. `file_size` is the whole file's (0: unknown).
std::string inspect(const std::string& kind, const std::string& bytes, double file_size) {
  return vram::inspect(kind, bytes, file_size);
}

// The same with the tensor list (capped: vram/limits.hpp kMaxListedTensors) when asked.
std::string inspect_listing(const std::string& kind, const std::string& bytes, double file_size,
                            bool list_tensors) {
  return vram::inspect(kind, bytes, file_size, list_tensors);
}

}  // namespace

EMSCRIPTEN_BINDINGS(vram) {
  emscripten::function("call", &call);
  emscripten::function("callBytes", &call_bytes);
  emscripten::function("inspect", &inspect);
  emscripten::function("inspect", &inspect_listing);  // by arity: inspect(kind, bytes, size, list)
}
