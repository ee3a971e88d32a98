// Small blocks for operator new in the wasm module (wasm/alloc.cpp).
//
// An estimate builds and drops ~2,000 small objects (nlohmann's std::map
// nodes, strings past libc++'s short-string limit, which is 10 characters in
// wasm32). emmalloc, which the module uses for its size, walks its free
// regions on each of them. Here a freed block of at most kMaxSmall bytes
// goes on a list of its size class and the next request of that class takes
// it back at once: two loads and a store each way.
//
// Bounded: at most kMaxCached bytes wait on the lists; past that a freed
// block goes back to the upstream allocator, so a hostile request that built
// a huge tree of one size cannot keep its memory from every other size.
// Every block carries a header of one alignment unit with its class (0: a
// large block, upstream's own), so the pointer returned is aligned as
// `upstream` aligns and any block can be released without its size.

#ifndef VRAM_WASM_SMALL_BLOCKS_HPP
#define VRAM_WASM_SMALL_BLOCKS_HPP

#include <cstddef>
#include <cstdint>

namespace vram_wasm {

template <void* (*Upstream)(std::size_t), void (*UpstreamFree)(void*)>
class SmallBlocks {
 public:
  // The alignment operator new promises (8 in wasm32, 16 on x86-64).
  static constexpr std::size_t kUnit = __STDCPP_DEFAULT_NEW_ALIGNMENT__;
  static constexpr std::size_t kMaxSmall = 256;
  static constexpr std::size_t kClasses = kMaxSmall / kUnit;
  static constexpr std::size_t kMaxCached = std::size_t{4} << 20;

  constexpr SmallBlocks() = default;

  /** A block of at least `size` bytes, or null when upstream has none. */
  void* allocate(std::size_t size) {
    if (size == 0) size = 1;
    if (size <= kMaxSmall) {
      const std::size_t c = (size + kUnit - 1) / kUnit;
      if (Free* block = lists_[c]) {
        lists_[c] = block->next;
        cached_ -= c * kUnit;
        return block;
      }
      return carve(c * kUnit, c);
    }
    if (size > SIZE_MAX - kUnit) return nullptr;
    return carve(size, 0);
  }

  /** Gives back a block from allocate (null is ignored). */
  void release(void* pointer) {
    if (pointer == nullptr) return;
    char* base = static_cast<char*>(pointer) - kUnit;
    const std::size_t c = *reinterpret_cast<std::size_t*>(base);
    if (c == 0 || cached_ + c * kUnit > kMaxCached) {
      UpstreamFree(base);
      return;
    }
    Free* block = static_cast<Free*>(pointer);
    block->next = lists_[c];
    lists_[c] = block;
    cached_ += c * kUnit;
  }

  /** Gives every block waiting on the lists back upstream. */
  void trim() {
    for (Free*& list : lists_) {
      while (Free* block = list) {
        list = block->next;
        UpstreamFree(reinterpret_cast<char*>(block) - kUnit);
      }
    }
    cached_ = 0;
  }

  /** Bytes waiting on the lists. */
  std::size_t cached() const { return cached_; }

 private:
  struct Free {
    Free* next;
  };

  void* carve(std::size_t bytes, std::size_t c) {
    char* base = static_cast<char*>(Upstream(bytes + kUnit));
    if (base == nullptr) return nullptr;
    *reinterpret_cast<std::size_t*>(base) = c;
    return base + kUnit;
  }

  Free* lists_[kClasses + 1] = {};
  std::size_t cached_ = 0;
};

}  // namespace vram_wasm

#endif  // VRAM_WASM_SMALL_BLOCKS_HPP
