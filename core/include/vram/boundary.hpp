#pragma once

// Whatever a text interface's call throws, as an {"error": ...} answer. A
// header of its own, below the API (vram::call) and the checkpoint reader
// (vram::inspect), which both answer through it: it knows errors and JSON,
// nothing of what was called.

#include <exception>
#include <new>
#include <string>

#include "vram/error.hpp"

namespace vram {

/**
 * An error as the text interfaces answer it: {"error": {code, field (quoted),
 * message (cut at 1,000 characters), message_id, params[, needed_bytes]}}.
 * Throws only when memory runs out.
 */
std::string error_answer(const Error& error);

/** What the boundary answers when even building an error failed. */
extern const char* const kInternalErrorAnswer;

/**
 * The one error boundary of the core's text interfaces (vram::call,
 * vram::inspect, the wasm bindings): the text `body` returns, or what it
 * throws as error_answer, with an exhausted memory blamed on `field`.
 * Never throws, whatever `body` does.
 */
template <class Body>
std::string guarded(const char* field, Body&& body) noexcept {
  try {
    try {
      return body();
    } catch (const Error& e) {
      return error_answer(e);
    } catch (const std::bad_alloc&) {
      return error_answer(Error::make("too_large", field, "error.out_of_memory", {}));
    } catch (const std::exception& e) {
      // The exception's own text in the English message only; error.internal has no words
      // of a library's to carry into Arabic or Persian.
      return error_answer(Error("internal", "", std::string("internal error: ") + e.what(),
                                Message{"error.internal", nlohmann::json::object()}));
    }
  } catch (...) {
    // Building the error itself failed (memory), or something not an
    // exception was thrown: a fixed answer.
    try {
      return kInternalErrorAnswer;
    } catch (...) {
      return std::string();
    }
  }
}

}  // namespace vram
