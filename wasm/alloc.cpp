// The module's operator new and delete, over small_blocks.hpp: an estimate's
// ~2,000 small allocations no longer each walk emmalloc's free regions
// (README, size and speed). Only the page's module has it; the native CLI
// keeps glibc's malloc, which caches small blocks itself.
//
// Mutable state of the module's, as the binding's answer buffer is, and the
// allocator's, not the core's: constant-initialised, so it exists before any
// static constructor allocates.

#include <cstdlib>
#include <new>

#include "small_blocks.hpp"

namespace {

void* upstream(std::size_t size) { return std::malloc(size); }
void upstream_free(void* pointer) { std::free(pointer); }

vram_wasm::SmallBlocks<upstream, upstream_free> blocks;

void* allocate(std::size_t size) {
  void* pointer = blocks.allocate(size);
  if (pointer == nullptr) throw std::bad_alloc();
  return pointer;
}

}  // namespace

// The plain forms; libc++'s nothrow forms call these. Aligned new (over 8
// bytes) keeps libc++'s own pair, which never reaches this heap.
void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void operator delete(void* pointer) noexcept { blocks.release(pointer); }
void operator delete[](void* pointer) noexcept { blocks.release(pointer); }
void operator delete(void* pointer, std::size_t) noexcept { blocks.release(pointer); }
void operator delete[](void* pointer, std::size_t) noexcept { blocks.release(pointer); }
