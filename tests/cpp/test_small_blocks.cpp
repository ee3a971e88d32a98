// The wasm module's operator new (wasm/small_blocks.hpp, wasm/alloc.cpp):
// freed small blocks come back from their size class's list, large ones and
// those past the cap go back upstream, and every block is aligned.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <vector>

#include "../../wasm/small_blocks.hpp"

namespace {

// Upstream's calls, counted; `refuse` makes it fail as a full heap does.
struct Upstream {
  static inline int allocations = 0;
  static inline int frees = 0;
  static inline bool refuse = false;
  static void* allocate(std::size_t size) {
    if (refuse) return nullptr;
    ++allocations;
    return std::malloc(size);
  }
  static void release(void* pointer) {
    ++frees;
    std::free(pointer);
  }
  static void reset() { allocations = frees = 0, refuse = false; }
};

using Blocks = vram_wasm::SmallBlocks<Upstream::allocate, Upstream::release>;
constexpr std::size_t kUnit = Blocks::kUnit;

bool aligned(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % kUnit == 0; }

}  // namespace

TEST_CASE("a freed small block is the next one of its size class, without upstream") {
  Upstream::reset();
  Blocks blocks;
  void* a = blocks.allocate(40);
  REQUIRE(a != nullptr);
  CHECK(aligned(a));
  CHECK(Upstream::allocations == 1);
  std::memset(a, 0xAB, 40);
  blocks.release(a);
  CHECK(Upstream::frees == 0);
  CHECK(blocks.cached() == 40 + (kUnit - 40 % kUnit) % kUnit);
  // The smallest size that rounds to the same class takes it back.
  void* b = blocks.allocate((40 + kUnit - 1) / kUnit * kUnit - kUnit + 1);
  CHECK(b == a);
  CHECK(Upstream::allocations == 1);
  CHECK(blocks.cached() == 0);
  // Another class does not.
  void* c = blocks.allocate(200);
  CHECK(c != a);
  CHECK(Upstream::allocations == 2);
  blocks.release(b);
  blocks.release(c);
  blocks.trim();
  CHECK(blocks.cached() == 0);
  CHECK(Upstream::frees == 2);
}

TEST_CASE("the lists are last in, first out, and a block is never handed out twice") {
  Upstream::reset();
  Blocks blocks;
  std::vector<void*> live;
  for (int i = 0; i < 100; ++i) live.push_back(blocks.allocate(24));
  CHECK(std::set<void*>(live.begin(), live.end()).size() == live.size());
  for (void* p : live) blocks.release(p);
  std::vector<void*> again;
  for (int i = 0; i < 100; ++i) again.push_back(blocks.allocate(24));
  CHECK(Upstream::allocations == 100);
  CHECK(again.front() == live.back());
  CHECK(std::set<void*>(again.begin(), again.end()) == std::set<void*>(live.begin(), live.end()));
  for (void* p : again) blocks.release(p);
  blocks.trim();
  CHECK(Upstream::frees == 100);
}

TEST_CASE("blocks past kMaxSmall are upstream's: freed at once, never cached") {
  Upstream::reset();
  Blocks blocks;
  void* big = blocks.allocate(Blocks::kMaxSmall + 1);
  REQUIRE(big != nullptr);
  CHECK(aligned(big));
  std::memset(big, 0, Blocks::kMaxSmall + 1);
  blocks.release(big);
  CHECK(Upstream::frees == 1);
  CHECK(blocks.cached() == 0);
  void* edge = blocks.allocate(Blocks::kMaxSmall);
  blocks.release(edge);
  CHECK(Upstream::frees == 1);
  CHECK(blocks.cached() == Blocks::kMaxSmall);
  blocks.trim();
}

TEST_CASE("at most kMaxCached bytes wait on the lists; the rest go back upstream") {
  Upstream::reset();
  Blocks blocks;
  const std::size_t count = Blocks::kMaxCached / Blocks::kMaxSmall + 10;
  std::vector<void*> live;
  for (std::size_t i = 0; i < count; ++i) live.push_back(blocks.allocate(Blocks::kMaxSmall));
  for (void* p : live) blocks.release(p);
  CHECK(blocks.cached() == Blocks::kMaxCached);
  CHECK(Upstream::frees == 10);
  // Drained again, nothing is left waiting.
  for (std::size_t i = 0; i < count - 10; ++i) live[i] = blocks.allocate(Blocks::kMaxSmall);
  CHECK(blocks.cached() == 0);
  for (std::size_t i = 0; i < count - 10; ++i) blocks.release(live[i]);
  blocks.trim();
  CHECK(Upstream::frees == static_cast<int>(count));
}

TEST_CASE("zero bytes, null, an impossible size and a full heap") {
  Upstream::reset();
  Blocks blocks;
  void* a = blocks.allocate(0);
  void* b = blocks.allocate(0);
  CHECK(a != nullptr);
  CHECK(a != b);
  blocks.release(a);
  blocks.release(b);
  blocks.release(nullptr);
  blocks.trim();
  CHECK(Upstream::frees == 2);
  CHECK(blocks.allocate(SIZE_MAX) == nullptr);
  CHECK(blocks.allocate(SIZE_MAX - kUnit + 1) == nullptr);
  void* kept = blocks.allocate(1);
  blocks.release(kept);
  Upstream::refuse = true;
  CHECK(blocks.allocate(Blocks::kMaxSmall + 1) == nullptr);
  // A cached block is still there for its class.
  CHECK(blocks.allocate(1) == kept);
  CHECK(blocks.allocate(100) == nullptr);
  Upstream::reset();
  blocks.release(kept);
  blocks.trim();
}

TEST_CASE("every size up to kMaxSmall gets an aligned block it can fill") {
  Upstream::reset();
  Blocks blocks;
  std::vector<void*> live;
  for (std::size_t size = 1; size <= Blocks::kMaxSmall + 8; ++size) {
    void* p = blocks.allocate(size);
    REQUIRE(p != nullptr);
    CHECK(aligned(p));
    std::memset(p, static_cast<int>(size & 0xFF), size);
    live.push_back(p);
  }
  // Filling each did not write over another.
  for (std::size_t i = 0; i < live.size(); ++i) {
    const auto* bytes = static_cast<const unsigned char*>(live[i]);
    for (std::size_t k = 0; k <= i; ++k)
      REQUIRE(bytes[k] == static_cast<unsigned char>((i + 1) & 0xFF));
  }
  for (void* p : live) blocks.release(p);
  blocks.trim();
}
