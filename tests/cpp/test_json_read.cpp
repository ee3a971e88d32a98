// vram::json_read::parse_text (json_read.hpp): the core's own JSON reader
// reads what nlohmann's parser reads, value for value and number type for
// number type, and fails where it fails (parse_error 101, out_of_range
// 406), for crafted texts, for every embedded data file and config, and for
// random texts built from JSON's pieces and broken bytes.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <iterator>
#include <random>
#include <string>

#include "embedded_data.hpp"
#include "json_read.hpp"
#include "vram/error.hpp"

using nlohmann::json;

namespace {

/** Equal values of equal types, at every depth (json's == calls 1 and 1u equal). */
bool same(const json& a, const json& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case json::value_t::object: {
      if (a.size() != b.size()) return false;
      for (auto it = a.begin(), jt = b.begin(); it != a.end(); ++it, ++jt) {
        if (it.key() != jt.key() || !same(*it, *jt)) return false;
      }
      return true;
    }
    case json::value_t::array:
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!same(a[i], b[i])) return false;
      }
      return true;
    case json::value_t::number_float: {
      // Bit for bit: -0.0 is not 0.0.
      const double x = a.get<double>();
      const double y = b.get<double>();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    default:
      return a == b;
  }
}

struct Outcome {
  bool ok = false;
  json value;
  int error_id = 0;  // nlohmann's exception id: 101 syntax, 406 overflow
  std::string what;
};

template <typename Parse>
Outcome outcome(Parse parse) {
  Outcome out;
  try {
    out.value = parse();
    out.ok = true;
  } catch (const json::exception& e) {
    out.error_id = e.id;
    out.what = e.what();
  }
  return out;
}

/** parse_text and json::parse agree on `text` (what each said, when not); whether it was JSON. */
bool agree(const std::string& text) {
  const Outcome mine = outcome([&] { return vram::json_read::parse_text(text); });
  const Outcome theirs = outcome([&] { return json::parse(text); });
  INFO("text: ", json(text).dump(-1, ' ', true, json::error_handler_t::replace));
  INFO("parse_text: ", mine.ok ? mine.value.dump() : mine.what);
  INFO("json::parse: ", theirs.ok ? theirs.value.dump() : theirs.what);
  REQUIRE(mine.ok == theirs.ok);
  if (mine.ok) {
    CHECK(same(mine.value, theirs.value));
  } else {
    CHECK(mine.error_id == theirs.error_id);
  }
  return mine.ok;
}

const char* const kNumbers[] = {"0",
                                "-0",
                                "7",
                                "-12",
                                "1.5",
                                "-2.5e-3",
                                "1E9",
                                "1e400",
                                "18446744073709551615",
                                "18446744073709551616",
                                "-9223372036854775808",
                                "-9223372036854775809",
                                "4.9e-324"};
const char* const kStringPieces[] = {"a", " ", "\\\"", "\\n", "\\u00e9", "\\ud83d\\ude00",
                                     "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "/", "\\/",
                                     // Now and then a broken one.
                                     "\\ud83d", "\xc3", "\x01", "\xed\xa0\x80", "\\q"};
const char* const kSpace[] = {"", "", "", " ", "\n", "\t", " \r\n "};

/** A random value's text: nested lists and objects of edge numbers and strings, with spaces. */
std::string random_text(std::mt19937& rng, int depth) {
  const auto space = [&] { return std::string(kSpace[rng() % std::size(kSpace)]); };
  const auto string = [&] {
    std::string out = "\"";
    const int n = static_cast<int>(rng() % 4);
    for (int i = 0; i < n; ++i) {
      // The broken pieces are the last five: one string in about twenty has one.
      const std::size_t pick = rng() % 60;
      out += kStringPieces[pick < 11 ? pick : rng() % 11];
      if (pick == 59) out += kStringPieces[11 + rng() % 5];
    }
    return out + "\"";
  };
  switch (rng() % (depth > 4 ? 3 : 5)) {
    case 0:
      return std::string(rng() % 3 == 0 ? "null" : rng() % 2 == 0 ? "true" : "false");
    case 1:
      return kNumbers[rng() % std::size(kNumbers)];
    case 2:
      return string();
    case 3: {
      std::string out = "[" + space();
      const int n = static_cast<int>(rng() % 4);
      for (int i = 0; i < n; ++i)
        out += (i ? "," + space() : "") + random_text(rng, depth + 1) + space();
      return out + "]";
    }
    default: {
      std::string out = "{" + space();
      const int n = static_cast<int>(rng() % 4);
      for (int i = 0; i < n; ++i) {
        out += (i ? "," + space() : "") + string() + space() + ":" + space() +
               random_text(rng, depth + 1) + space();
      }
      return out + "}";
    }
  }
}

}  // namespace

TEST_CASE("parse_text reads crafted texts as json::parse does") {
  const char* const texts[] = {
      // Values, and the number types nlohmann keeps apart.
      "null",
      "true",
      "false",
      "0",
      "-0",
      "7",
      "-7",
      "0.0",
      "-0.0",
      "1.5",
      "-1.5e-3",
      "1E5",
      "1e+5",
      "2.5E-2",
      "9223372036854775807",
      "9223372036854775808",
      "-9223372036854775808",
      "-9223372036854775809",
      "18446744073709551615",
      "18446744073709551616",
      "99999999999999999999",
      "123456789012345678901234567890",
      "1e308",
      "1e309",
      "-1e400",
      "1e-400",
      "4.9e-324",
      "0.1",
      "1.7976931348623157e308",
      "\"\"",
      "\"a\"",
      "[]",
      "{}",
      "[[]]",
      "[{}]",
      "{\"a\":{}}",
      " \t\r\n[ 1 , 2 ]\n ",
      "{\"a\":1,\"a\":2}",
      "{\"a\":[1],\"a\":{\"b\":null}}",
      "{\"\":0}",
      "[1,[2,[3,[4]]],5]",
      "{\"x\":[{\"y\":[true,false,null]}]}",
      // Strings: escapes, surrogate pairs, UTF-8 of every length.
      "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
      "\"\\u0000\"",
      "\"\\u00e9\\u00E9\"",
      "\"\\u20ac\"",
      "\"\\ud83d\\ude00\"",
      "\"\\uD83D\\uDE00\"",
      "\"\\ud83d\"",
      "\"\\ud83dx\"",
      "\"\\ude00\"",
      "\"\\ud83d\\u0041\"",
      "\"\\ud83d\\\"",
      "\"\\u12\"",
      "\"\\u12g4\"",
      "\"\\x\"",
      "\"\\\"",
      "\"\xc3\xa9\"",
      "\"\xe2\x82\xac\"",
      "\"\xf0\x9f\x98\x80\"",
      "\"\xf4\x8f\xbf\xbf\"",
      "\"\xf4\x90\x80\x80\"",
      "\"\xc0\xaf\"",
      "\"\xc1\xbf\"",
      "\"\xe0\x80\xaf\"",
      "\"\xe0\xa0\x80\"",
      "\"\xed\x9f\xbf\"",
      "\"\xed\xa0\x80\"",
      "\"\xf0\x8f\xbf\xbf\"",
      "\"\xf5\x80\x80\x80\"",
      "\"\xff\"",
      "\"\x80\"",
      "\"\xc3\"",
      "\"\xe2\x82\"",
      "\"\xc3x\"",
      "\"\x7f\"",
      "\"\x1f\"",
      "\"\t\"",
      "\"\n\"",
      "\"abc",
      "\"",
      // The byte-order mark, only at the start.
      "\xef\xbb\xbf{}",
      "\xef\xbb\xbf",
      "\xef\xbb{}",
      " \xef\xbb\xbf{}",
      "[\xef\xbb\xbf]",
      // Broken texts.
      "",
      " ",
      "nul",
      "nulll",
      "tru",
      "True",
      "NULL",
      "+1",
      "01",
      "-01",
      "00",
      "1.",
      ".5",
      "-",
      "-a",
      "1e",
      "1e+",
      "1.e5",
      "0x10",
      "1 2",
      "[1 2]",
      "[1,]",
      "[,1]",
      "[",
      "]",
      "[1",
      "{",
      "}",
      "{\"a\"}",
      "{\"a\":}",
      "{\"a\" 1}",
      "{a:1}",
      "{'a':1}",
      "{\"a\":1,}",
      "{,\"a\":1}",
      "{\"a\":1 \"b\":2}",
      "[1]]",
      "{}}",
      "[1]x",
      "/* c */1",
      "1 // c",
      "NaN",
      "Infinity",
      "-Infinity",
      "[1e400]",
      "{\"a\":1e400}",
      "[1e400,x",
      "[x,1e400]",
      std::string("[1,\0]", 5).c_str(),
      "\"a\\",
      "[\"a\":1]",
      "{\"a\":1]",
      "[1}",
  };
  for (const char* text : texts) agree(text);
  // With the NUL byte inside the text, not ending it.
  agree(std::string("[1,\0]", 5));
  agree(std::string("\"a\0b\"", 5));
  agree(std::string("1\0", 2));
}

TEST_CASE("parse_text reads every embedded data file and config as json::parse does") {
  int files = 0;
  for (std::size_t i = 0; !vram::embedded::name(i).empty(); ++i, ++files) {
    agree(std::string(vram::embedded::file(vram::embedded::name(i))));
  }
  int configs = 0;
  for (std::size_t i = 0; !vram::embedded::model_config(i).empty(); ++i, ++configs) {
    agree(std::string(vram::embedded::model_config(i)));
  }
  CHECK(files > 5);
  CHECK(configs > 10);
}

TEST_CASE("parse_text reads random texts as json::parse does") {
  // JSON's own pieces, numbers at the edges of their types, escapes and
  // UTF-8 whole and broken, glued at random: mostly near-valid texts, so
  // both readers go deep before they fail, if they fail.
  static const std::string pieces[] = {"{",
                                       "}",
                                       "[",
                                       "]",
                                       ",",
                                       ":",
                                       " ",
                                       "\n",
                                       "\"",
                                       "\"k\"",
                                       "\"key\":",
                                       "\"v\"",
                                       "0",
                                       "-",
                                       "1",
                                       "9",
                                       ".",
                                       "e",
                                       "E+",
                                       "-5",
                                       "1.25",
                                       "1e400",
                                       "18446744073709551616",
                                       "-9223372036854775809",
                                       "9223372036854775808",
                                       "true",
                                       "false",
                                       "null",
                                       "nul",
                                       "\\",
                                       "\\n",
                                       "\\u00e9",
                                       "\\ud83d",
                                       "\\ude00",
                                       "\\u12",
                                       "\xc3\xa9",
                                       "\xe2\x82\xac",
                                       "\xf0\x9f\x98\x80",
                                       "\xc3",
                                       "\xed\xa0\x80",
                                       "\xff",
                                       "\x01",
                                       std::string(1, '\0'),
                                       "\xef\xbb\xbf",
                                       "\t",
                                       "x"};
  std::mt19937 rng(20261203);
  int read = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const int n = 1 + static_cast<int>(rng() % 24);
    for (int i = 0; i < n; ++i) text += pieces[rng() % std::size(pieces)];
    read += agree(text) ? 1 : 0;
  }
  // Random trees, most of them JSON.
  int trees = 0;
  for (int round = 0; round < 10000; ++round) trees += agree(random_text(rng, 0)) ? 1 : 0;
  // Valid configs with one byte changed, dropped or doubled.
  int mutated = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text = std::string(vram::embedded::model_config(rng() % 8));
    const std::size_t at = rng() % text.size();
    switch (rng() % 3) {
      case 0:
        text[at] = pieces[rng() % std::size(pieces)][0];
        break;
      case 1:
        text.erase(at, 1);
        break;
      default:
        text.insert(at, 1, text[at]);
    }
    mutated += agree(text) ? 1 : 0;
  }
  MESSAGE("read: ", read, " of 20000 glued texts, ", trees, " of 10000 trees, ", mutated,
          " of 3000 changed configs");
  // Both kinds of outcome, many times each.
  CHECK(read > 200);
  CHECK(trees > 5000);
  CHECK(trees < 9500);
  CHECK(mutated > 300);
  CHECK(mutated < 2700);
}

TEST_CASE("parse_text counts the depth as each object or list opens") {
  using vram::json_read::parse_text;
  CHECK(parse_text("[[1]]", 2) == json::parse("[[1]]"));
  CHECK(parse_text("{\"a\":[{}]}", 3) == json::parse("{\"a\":[{}]}"));
  // One deeper than allowed: the named error, before the rest is read.
  const auto too_deep = [](const std::string& text, std::size_t depth) {
    try {
      parse_text(text, depth, "request");
    } catch (const vram::Error& e) {
      return e.code() == "too_deep" && e.field() == "request";
    }
    return false;
  };
  CHECK(too_deep("[[[1]]]", 2));
  CHECK(too_deep("{\"a\":{\"b\":{}}}", 2));
  CHECK(too_deep("[[[ broken", 2));
  // Without a limit a text nested 100,000 deep is read (no recursion).
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  json value = parse_text(deep);
  CHECK(value.is_array());
  // Let nlohmann's destructor (which does not recurse either) take it.
  value = nullptr;
}
