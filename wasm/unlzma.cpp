// The page's LZMA decoder: a wasm module of its own, 3 KB, that unpacks the
// core's module (tools/build-page.mjs packs it with Debian's xz, 17% smaller
// than the best deflate) and runs in the browser's baseline wasm compiler
// two to three times as fast as the same decoder in JavaScript, whose
// range coder's 32-bit values V8 boxes until the code is optimised.
// Freestanding (no libc, no imports): compiled by clang for wasm32 (CMakeLists.txt),
// driven by web/src/lzma.js.
//
// The algorithm is Igor Pavlov's (the LZMA SDK's LzmaSpec.cpp, public
// domain): a range decoder over adaptive bit probabilities; literals coded
// against the byte before and, after a match, the byte the match would
// give; matches as a length and a new distance or one of the last four.
// Input: the .lzma ("LZMA alone") format, a 13-byte header (the lc/lp/pb
// byte, the dictionary size, the unpacked size as 8 bytes little-endian)
// then the range-coded stream. The output is one buffer, its own dictionary.
//
// Every input is checked: a stream that is not one gives a negative status,
// never a read or a write outside the caller's buffers, and every step of
// the loop either writes a byte or returns.

using u8 = unsigned char;
using u16 = unsigned short;
using u32 = unsigned int;

namespace {

// The probability table's layout: offsets into one u16 array.
constexpr u32 kStates = 12;
constexpr u32 kIsMatch = 0;
constexpr u32 kIsRep = kIsMatch + (kStates << 4);
constexpr u32 kIsRepG0 = kIsRep + kStates;
constexpr u32 kIsRepG1 = kIsRepG0 + kStates;
constexpr u32 kIsRepG2 = kIsRepG1 + kStates;
constexpr u32 kIsRep0Long = kIsRepG2 + kStates;
constexpr u32 kPosSlot = kIsRep0Long + (kStates << 4);
constexpr u32 kPosSpecial = kPosSlot + (4 << 6);
constexpr u32 kAlign = kPosSpecial + 115;
constexpr u32 kLengthProbs = 2 + (16 << 3) * 2 + 256;
constexpr u32 kLength = kAlign + 16;
constexpr u32 kRepLength = kLength + kLengthProbs;
constexpr u32 kLiteral = kRepLength + kLengthProbs;

// Status codes (web/src/lzma.js names them).
constexpr int kBadHeader = -1;
constexpr int kTruncated = -2;
constexpr int kCorrupt = -3;

// One stream's decoder, kept between calls so that the page can unpack in
// slices and hand each to the streaming compiler.
struct Decoder {
  const u8* at;
  const u8* end;
  u8* out;
  u16* probs;
  u32 size, lc, lp_mask, pb_mask;
  u32 range, code, state, rep0, rep1, rep2, rep3, pos;
  bool done;
};

Decoder d;

}  // namespace

// The probabilities this stream needs, in u16 entries (0 for a bad header).
extern "C" u32 unlzma_probs(const u8* in, u32 in_len) {
  if (in_len < 18 || in[0] >= 9 * 5 * 5) return 0;
  const u32 lc = in[0] % 9;
  const u32 lp = in[0] / 9 % 5;
  return kLiteral + (0x300u << (lc + lp));
}

// Starts decoding `in` into `out` (`size` bytes, the size the caller read
// from the header), with `probs` holding unlzma_probs() entries.
extern "C" int unlzma_start(const u8* in, u32 in_len, u8* out, u32 size, u16* probs) {
  const u32 count = unlzma_probs(in, in_len);
  if (count == 0 || in[13] != 0) return kBadHeader;
  for (u32 i = 0; i < count; ++i) probs[i] = 1024;
  d.lc = in[0] % 9;
  d.lp_mask = (1u << (in[0] / 9 % 5)) - 1;
  d.pb_mask = (1u << (in[0] / 45)) - 1;
  d.at = in + 14;
  d.end = in + in_len;
  d.out = out;
  d.probs = probs;
  d.size = size;
  d.range = 0xffffffffu;
  d.code = 0;
  for (int i = 0; i < 4; ++i) d.code = (d.code << 8) | *d.at++;
  if (d.code == d.range) return kCorrupt;
  d.state = d.rep0 = d.rep1 = d.rep2 = d.rep3 = d.pos = 0;
  d.done = false;
  return 0;
}

// Decodes until at least `limit` bytes are out (or the end); returns how
// many are, or a negative status. A stream that ends short of its size, or
// whose end marker comes early, is truncated.
extern "C" int unlzma_run(u32 limit) {
  const u8* at = d.at;
  const u8* const end = d.end;
  u8* const out = d.out;
  u16* const probs = d.probs;
  const u32 size = d.size;
  u32 range = d.range, code = d.code, state = d.state;
  u32 rep0 = d.rep0, rep1 = d.rep1, rep2 = d.rep2, rep3 = d.rep3, pos = d.pos;
  u32 b = 0;
  if (limit > size) limit = size;
// One bit with the probability at `index`, into b; the range renormalised.
#define VRAM_LZMA_BIT(index)                           \
  do {                                                 \
    u16* const prob = probs + (index);                 \
    const u32 p = *prob;                               \
    const u32 bound = (range >> 11) * p;               \
    if (code < bound) {                                \
      range = bound;                                   \
      *prob = static_cast<u16>(p + ((2048 - p) >> 5)); \
      b = 0;                                           \
    } else {                                           \
      range -= bound;                                  \
      code -= bound;                                   \
      *prob = static_cast<u16>(p - (p >> 5));          \
      b = 1;                                           \
    }                                                  \
    if (range < (1u << 24)) {                          \
      if (at == end) return kTruncated;                \
      range <<= 8;                                     \
      code = (code << 8) | *at++;                      \
    }                                                  \
  } while (0)
  while (pos < limit && !d.done) {
    const u32 pos_state = pos & d.pb_mask;
    VRAM_LZMA_BIT(kIsMatch + (state << 4) + pos_state);
    if (b == 0) {
      const u32 previous = pos > 0 ? out[pos - 1] : 0;
      const u32 base = kLiteral + 0x300 * (((pos & d.lp_mask) << d.lc) + (previous >> (8 - d.lc)));
      u32 symbol = 1;
      if (state >= 7) {
        u32 match = out[pos - rep0 - 1];
        do {
          const u32 match_bit = (match >> 7) & 1;
          match <<= 1;
          VRAM_LZMA_BIT(base + ((1 + match_bit) << 8) + symbol);
          symbol = (symbol << 1) | b;
          if (match_bit != b) break;
        } while (symbol < 0x100);
      }
      while (symbol < 0x100) {
        VRAM_LZMA_BIT(base + symbol);
        symbol = (symbol << 1) | b;
      }
      out[pos++] = static_cast<u8>(symbol);
      state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
      continue;
    }
    VRAM_LZMA_BIT(kIsRep + state);
    u32 lengths = kLength;
    if (b == 0) {
      rep3 = rep2;
      rep2 = rep1;
      rep1 = rep0;
      state = state < 7 ? 7 : 10;
    } else {
      if (pos == 0) return kCorrupt;
      VRAM_LZMA_BIT(kIsRepG0 + state);
      if (b == 0) {
        VRAM_LZMA_BIT(kIsRep0Long + (state << 4) + pos_state);
        if (b == 0) {
          state = state < 7 ? 9 : 11;
          out[pos] = out[pos - rep0 - 1];
          ++pos;
          continue;
        }
      } else {
        u32 dist;
        VRAM_LZMA_BIT(kIsRepG1 + state);
        if (b == 0) {
          dist = rep1;
        } else {
          VRAM_LZMA_BIT(kIsRepG2 + state);
          if (b == 0) {
            dist = rep2;
          } else {
            dist = rep3;
            rep3 = rep2;
          }
          rep2 = rep1;
        }
        rep1 = rep0;
        rep0 = dist;
      }
      state = state < 7 ? 8 : 11;
      lengths = kRepLength;
    }
    // The length: 3 bits (2 to 9), 3 more (10 to 17) or 8 (18 to 273).
    u32 tree = lengths + 2 + (pos_state << 3);
    u32 bits = 3;
    u32 len = 0;
    VRAM_LZMA_BIT(lengths);
    if (b == 1) {
      VRAM_LZMA_BIT(lengths + 1);
      if (b == 0) {
        tree += 16 << 3;
        len = 8;
      } else {
        tree = lengths + 2 + (16 << 4);
        bits = 8;
        len = 16;
      }
    }
    u32 m = 1;
    for (u32 i = 0; i < bits; ++i) {
      VRAM_LZMA_BIT(tree + m);
      m = (m << 1) | b;
    }
    len += m - (1u << bits);
    if (lengths == kLength) {
      // A new distance: a 6-bit slot, then its low bits.
      const u32 slots = kPosSlot + ((len < 3 ? len : 3) << 6);
      m = 1;
      for (int i = 0; i < 6; ++i) {
        VRAM_LZMA_BIT(slots + m);
        m = (m << 1) | b;
      }
      const u32 slot = m - 64;
      if (slot < 4) {
        rep0 = slot;
      } else {
        u32 count = (slot >> 1) - 1;
        u32 dist = (2 | (slot & 1)) << count;
        u32 reverse = kPosSpecial + dist - slot;
        if (slot >= 14) {
          // Direct bits, high first; the lowest four through the align tree.
          for (u32 i = count - 4; i > 0; --i) {
            range >>= 1;
            if (code >= range) {
              code -= range;
              dist += 1u << (i + 3);
            }
            if (range < (1u << 24)) {
              if (at == end) return kTruncated;
              range <<= 8;
              code = (code << 8) | *at++;
            }
          }
          reverse = kAlign;
          count = 4;
        }
        m = 1;
        for (u32 i = 0; i < count; ++i) {
          VRAM_LZMA_BIT(reverse + m);
          m = (m << 1) | b;
          dist |= b << i;
        }
        rep0 = dist;
        // The end marker: a stream may carry one after its last byte.
        if (rep0 == 0xffffffffu) {
          d.done = true;
          break;
        }
      }
    }
    if (rep0 >= pos) return kCorrupt;
    u32 count = len + 2;
    if (count > size - pos) count = size - pos;
    const u8* from = out + pos - rep0 - 1;
    u8* to = out + pos;
    pos += count;
    while (count-- > 0) *to++ = *from++;
  }
#undef VRAM_LZMA_BIT
  d.at = at;
  d.range = range;
  d.code = code;
  d.state = state;
  d.rep0 = rep0;
  d.rep1 = rep1;
  d.rep2 = rep2;
  d.rep3 = rep3;
  d.pos = pos;
  if (d.done && pos < size) return kTruncated;
  return static_cast<int>(pos);
}
