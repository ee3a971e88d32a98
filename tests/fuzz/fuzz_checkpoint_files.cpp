// fuzz_checkpoint_files: the CLI's own path for checkpoint files
// (cli/checkpoint_files.cpp): the input is cut at each "\n--8<--\n" into
// files written to a private folder, then read as `vramcalc inspect` reads
// them. The first byte picks how: 0 mod 3, every part a --gguf (the parts of
// a split model); 1, every part a --safetensors file; 2, the first part an
// index.json (--index) and the others a.safetensors, b.safetensors, ...
// beside it. Each inspection becomes the request's checkpoint and is drawn
// as text, as the CLI prints it. The answer is a named error (vram::Error
// or a usage error) or a drawing; any other exception escapes and is a
// crash, as 'internal error' would be.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "args.hpp"
#include "checkpoint_files.hpp"
#include "render.hpp"
#include "vram/error.hpp"

namespace {

const std::string& folder() {
  static const std::string path = [] {
    char name[] = "/tmp/vram-fuzz-files-XXXXXX";
    if (mkdtemp(name) == nullptr) std::abort();
    return std::string(name);
  }();
  return path;
}

std::string write(const std::string& name, std::string_view bytes) {
  const std::string path = folder() + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int mode = data[0] % 3;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<std::string_view> parts;
  constexpr std::string_view kCut = "\n--8<--\n";
  for (std::size_t at = 0;;) {
    const std::size_t cut = rest.find(kCut, at);
    parts.push_back(rest.substr(at, cut == std::string_view::npos ? cut : cut - at));
    if (cut == std::string_view::npos || parts.size() == 8) break;
    at = cut + kCut.size();
  }
  vramcli::CheckpointArgs args;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string letter(1, static_cast<char>('a' + i));
    if (mode == 0) {
      args.gguf.push_back(write(letter + ".gguf", parts[i]));
    } else if (mode == 1) {
      args.safetensors.push_back(write(letter + ".safetensors", parts[i]));
    } else if (i == 0) {
      args.index = write("model.safetensors.index.json", parts[i]);
    } else {
      write(std::string(1, static_cast<char>('a' + i - 1)) + ".safetensors", parts[i]);
    }
  }
  try {
    const std::vector<nlohmann::json> inspections = vramcli::inspect_files(args);
    (void)vramcli::checkpoint_request(inspections);
    const vramcli::Words say{};
    (void)vramcli::render_inspection(inspections, say);
  } catch (const vram::Error& e) {
    if (e.code().empty() || e.field().empty()) __builtin_trap();
  } catch (const vramcli::UsageError&) {
  }
  return 0;
}
