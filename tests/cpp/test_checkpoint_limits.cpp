// Every bound on a checkpoint's files (vram/limits.hpp): a file at the limit
// is read, one past it is refused by name (code, field, message id) before
// the work the limit bounds. No timing is asserted: the work is bounded by
// construction, and these files are built small by lowering the limits
// where a reader takes them, or sized at the real limit where it is cheap.

#include <doctest/doctest.h>

#include <string>

#include "gguf_writer.hpp"
#include "vram/api.hpp"
#include "vram/checkpoint.hpp"
#include "vram/error.hpp"
#include "vram/gguf.hpp"
#include "vram/limits.hpp"
#include "vram/safetensors.hpp"

using nlohmann::json;
using testing::GgufWriter;

namespace {

std::string safetensors_text(const std::string& text) {
  std::string out;
  for (int k = 0; k < 8; ++k) out.push_back(static_cast<char>((text.size() >> (8 * k)) & 0xFF));
  return out + text;
}

/** A header of `count` one-element F16 tensors, back to back, with its data. */
std::string tensors_file(std::size_t count, const std::string& extra = "") {
  std::string text = "{" + extra;
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0 || !extra.empty()) text += ",";
    text += "\"t" + std::to_string(i) + R"(":{"dtype":"F16","shape":[1],"data_offsets":[)" +
            std::to_string(2 * i) + "," + std::to_string(2 * i + 2) + "]}";
  }
  text += "}";
  return safetensors_text(text) + std::string(2 * count, '\0');
}

json refusal(const std::string& kind, const std::string& bytes, double size = 0) {
  const json out = json::parse(vram::inspect(kind, bytes, size));
  REQUIRE(out.contains("error"));
  return out["error"];
}

template <class F>
vram::Error thrown(F&& f) {
  try {
    f();
  } catch (const vram::Error& e) {
    return e;
  }
  FAIL("no error");
  throw;
}

}  // namespace

TEST_CASE("limits: a safetensors header past kMaxHeaderBytes is refused from its 8 bytes") {
  std::string head;
  const std::uint64_t n = vram::limits::kMaxHeaderBytes + 1;
  for (int k = 0; k < 8; ++k) head.push_back(static_cast<char>((n >> (8 * k)) & 0xFF));
  const json e = refusal("safetensors", head + "{");
  CHECK(e["code"] == "too_large");
  CHECK(e["field"] == "safetensors.header");
  CHECK(e["message_id"] == "error.checkpoint_header");
  CHECK(e["params"]["limit"] == vram::limits::kMaxHeaderBytes);
}

TEST_CASE("limits: a GGUF header past kMaxHeaderBytes is refused before it is read") {
  // One string whose length alone runs past the limit: refused, not asked for.
  GgufWriter w;
  w.str("general.name", "x");
  std::string bytes = w.build();
  const std::size_t len_at = 4 + 4 + 8 + 8 + 8 + 12 + 4;  // the value's length
  const std::uint64_t n = vram::limits::kMaxHeaderBytes;
  for (int k = 0; k < 8; ++k) bytes[len_at + k] = static_cast<char>((n >> (8 * k)) & 0xFF);
  vram::gguf::Limits lim;
  lim.max_string_bytes = vram::limits::kMaxHeaderBytes;
  const vram::Error e = thrown([&] { vram::gguf::read_header(bytes, 0, lim); });
  CHECK(e.code() == "too_large");
  CHECK(e.field() == "gguf.header");
  CHECK(e.message().id == "error.checkpoint_header");
}

TEST_CASE("limits: tensors, at kMaxTensors and one past it") {
  vram::safetensors::Limits lim;
  lim.max_tensors = 100;
  CHECK(vram::safetensors::read_header(tensors_file(100), 0, lim).tensors.size() == 100);
  // With __metadata__ beside them the cap is still on tensors (it was one off).
  CHECK(vram::safetensors::read_header(tensors_file(100, R"("__metadata__":{"a":"b"})"), 0, lim)
            .tensors.size() == 100);
  const vram::Error e = thrown([&] { vram::safetensors::read_header(tensors_file(101), 0, lim); });
  CHECK(e.code() == "too_large");
  CHECK(e.field() == "safetensors.tensors");
  CHECK(e.message().id == "error.checkpoint_tensors");
  CHECK(e.message().params.at("limit") == 100);
  // The real limit, through inspect: kMaxTensors + 1 declared in a GGUF is refused from its count.
  GgufWriter w;
  w.str("general.name", "x");
  std::string bytes = w.build();
  const std::uint64_t n = vram::limits::kMaxTensors + 1;
  for (int k = 0; k < 8; ++k) bytes[8 + k] = static_cast<char>((n >> (8 * k)) & 0xFF);
  const json g = refusal("gguf", bytes);
  CHECK(g["code"] == "too_large");
  CHECK(g["field"] == "gguf.tensor_count");
  CHECK(g["message_id"] == "error.checkpoint_tensors");
  CHECK(g["params"]["limit"] == vram::limits::kMaxTensors);
}

TEST_CASE("limits: the real kMaxTensors + 1 safetensors tensors are refused by name") {
  const json e = refusal("safetensors", tensors_file(vram::limits::kMaxTensors + 1));
  CHECK(e["code"] == "too_large");
  CHECK(e["field"] == "safetensors.tensors");
  CHECK(e["params"]["size"] == vram::limits::kMaxTensors + 1);
}

TEST_CASE("limits: metadata kept, at kMaxMetadataBytes and past it") {
  // safetensors: each entry costs 16 + key + its JSON text.
  vram::safetensors::Limits lim;
  const std::string entry = R"("k":"vvvv")";  // 16 + 1 + 6 = 23
  lim.max_metadata_bytes = 23;
  CHECK(vram::safetensors::read_header(tensors_file(1, R"("__metadata__":{)" + entry + "}"), 0, lim)
            .metadata.at("k") == "vvvv");
  const vram::Error e = thrown([&] {
    vram::safetensors::read_header(tensors_file(1, R"("__metadata__":{"k":"vvvvv"})"), 0, lim);
  });
  CHECK(e.code() == "too_large");
  CHECK(e.field() == "safetensors.__metadata__");
  CHECK(e.message().id == "error.checkpoint_metadata");
  // GGUF: every key 16 + its bytes; a kept string 16 + its bytes; a kept list 16 + 16 an item.
  GgufWriter w;
  w.str("ab", "xyz");  // (16 + 2) + (16 + 3) = 37
  vram::gguf::Limits glim;
  glim.max_metadata_bytes = 37;
  CHECK(vram::gguf::read_header(w.build(), 0, glim).find("ab")->value == "xyz");
  glim.max_metadata_bytes = 36;
  const vram::Error g = thrown([&] { vram::gguf::read_header(w.build(), 0, glim); });
  CHECK(g.code() == "too_large");
  CHECK(g.field() == "gguf.metadata");
  CHECK(g.message().id == "error.checkpoint_metadata");
  // The real limit: kept bools of a 4,096-item list cost 16 each, refused before they are kept.
  GgufWriter many;
  for (int i = 0; i < 70; ++i)
    many.bools("k" + std::to_string(i), std::vector<bool>(4096, true));  // 70 x 64 KiB > 4 MiB
  const json r = refusal("gguf", many.build());
  CHECK(r["code"] == "too_large");
  CHECK(r["field"] == "gguf.metadata");
  CHECK(r["params"]["limit"] == vram::limits::kMaxMetadataBytes);
}

TEST_CASE("limits: names, at kMaxNameBytes and one past it") {
  const std::string at_limit(vram::limits::kMaxNameBytes, 'n');
  const std::string past = at_limit + "n";
  GgufWriter w;
  w.u32(at_limit, 1);
  CHECK(vram::gguf::read_header(w.build()).metadata.size() == 1);
  GgufWriter too;
  too.u32(past, 1);
  const json g = refusal("gguf", too.build());
  CHECK(g["code"] == "too_large");
  CHECK(g["field"] == "gguf.metadata[0].key");
  CHECK(g["message_id"] == "error.checkpoint_name");
  auto named = [](const std::string& name) {
    return safetensors_text("{\"" + name +
                            R"(":{"dtype":"F16","shape":[1],"data_offsets":[0,2]}})") +
           std::string(2, '\0');
  };
  CHECK(vram::safetensors::read_header(named(at_limit)).tensors.at(0).name == at_limit);
  const json s = refusal("safetensors", named(past));
  CHECK(s["code"] == "too_large");
  CHECK(s["field"] == "safetensors.tensors");
  CHECK(s["message_id"] == "error.checkpoint_name");
}

TEST_CASE("limits: a tensor's entry past kMaxEntryBytes is refused before it is parsed") {
  const std::string dims = "[" + std::string(vram::limits::kMaxEntryBytes, ' ') + "1]";
  const std::string file =
      safetensors_text(R"({"t":{"dtype":"F16","shape":)" + dims + R"(,"data_offsets":[0,2]}})") +
      std::string(2, '\0');
  const json e = refusal("safetensors", file);
  CHECK(e["code"] == "too_large");
  CHECK(e["field"] == "safetensors.tensors.t");
  CHECK(e["message_id"] == "error.checkpoint_entry");
}

TEST_CASE("limits: shards of an index, at kMaxShards and one past it") {
  auto index = [](std::size_t files) {
    std::string text = R"({"weight_map":{)";
    for (std::size_t i = 0; i < files; ++i) {
      if (i > 0) text += ",";
      // Every file named twice: repeats are counted once.
      text += "\"a" + std::to_string(i) + "\":\"f" + std::to_string(i) + "\",";
      text += "\"b" + std::to_string(i) + "\":\"f" + std::to_string(i) + "\"";
    }
    return text + "}}";
  };
  CHECK(vram::safetensors::read_index(index(vram::limits::kMaxShards)).files.size() ==
        vram::limits::kMaxShards);
  const vram::Error e =
      thrown([&] { vram::safetensors::read_index(index(vram::limits::kMaxShards + 1)); });
  CHECK(e.code() == "too_large");
  CHECK(e.field() == "index.weight_map");
  CHECK(e.message().id == "error.checkpoint_shards");
  // A split GGUF whose split.count is past the limit: no part numbers past it reach the CLI.
  GgufWriter w;
  w.u32("split.no", 2147483646u).u32("split.count", 2147483647u);
  const json g = refusal("gguf", w.build());
  CHECK(g["code"] == "too_large");
  CHECK(g["field"] == "gguf.metadata.split.count");
  CHECK(g["message_id"] == "error.checkpoint_shards");
}

TEST_CASE("limits: an index past kMaxIndexBytes is refused by its size") {
  vram::safetensors::Limits lim;
  const std::string text = R"({"weight_map":{"a":"f"}})";
  lim.max_index_bytes = text.size();
  CHECK(vram::safetensors::read_index(text, lim).files.size() == 1);
  lim.max_index_bytes = text.size() - 1;
  const vram::Error e = thrown([&] { vram::safetensors::read_index(text, lim); });
  CHECK(e.code() == "too_large");
  CHECK(e.field() == "index");
  CHECK(e.message().id == "error.checkpoint_index");
}

TEST_CASE("limits: the tensor list only on request, at most kMaxListedTensors") {
  const std::string file = tensors_file(vram::limits::kMaxListedTensors + 5);
  const json summary = json::parse(vram::inspect("safetensors", file, 0));
  CHECK_FALSE(summary.contains("tensors"));
  CHECK(summary["file"]["tensor_count"] == vram::limits::kMaxListedTensors + 5);
  const json listed = json::parse(vram::inspect("safetensors", file, 0, true));
  CHECK(listed["tensors"].size() == vram::limits::kMaxListedTensors);
  CHECK(listed["tensors_omitted"] == 5);
}

TEST_CASE("checkpoint files: duplicates and empty files are named") {
  const std::string twice = safetensors_text(
      R"({"a":{"dtype":"F16","shape":[1],"data_offsets":[0,2]},"a":{"dtype":"F16","shape":[1],"data_offsets":[2,4]}})");
  const json d = refusal("safetensors", twice + std::string(4, '\0'));
  CHECK(d["code"] == "invalid_safetensors");
  CHECK(d["field"] == "safetensors.tensors.a");
  CHECK(d["message_id"] == "error.checkpoint_duplicate");
  const json m = refusal("safetensors", tensors_file(1, R"("__metadata__":{"k":"a","k":"b"})"));
  CHECK(m["message_id"] == "error.checkpoint_duplicate");
  for (const char* kind : {"gguf", "safetensors"}) {
    CAPTURE(kind);
    const json e = refusal(kind, "");
    CHECK(e["code"] == std::string("invalid_") + kind);
    CHECK(e["message_id"] == "error.checkpoint_empty");
  }
}

TEST_CASE("the schema gives the page the checkpoint limits") {
  const vram::Calculator calc;
  const json schema = json::parse(vram::call(calc, "schema", "{}"));
  const json& limits = schema.at("limits").at("checkpoint");
  CHECK(limits.at("index_bytes") == vram::limits::kMaxIndexBytes);
  CHECK(limits.at("header_bytes") == vram::limits::kMaxHeaderBytes);
  CHECK(limits.at("shards") == vram::limits::kMaxShards);
}
