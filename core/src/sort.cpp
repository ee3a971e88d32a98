#include "vram/sort.hpp"

namespace vram {

std::vector<std::size_t> stable_order(std::size_t n,
                                      bool (*less)(const void* context, std::size_t a,
                                                   std::size_t b),
                                      const void* context) {
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::vector<std::size_t> merged(n);
  // Bottom-up: runs of 1, 2, 4... merged pairwise; from the right run only
  // when strictly less, so equal elements keep their order.
  for (std::size_t width = 1; width < n; width *= 2) {
    for (std::size_t low = 0; low < n; low += 2 * width) {
      const std::size_t middle = low + width < n ? low + width : n;
      const std::size_t high = middle + width < n ? middle + width : n;
      std::size_t i = low;
      std::size_t j = middle;
      std::size_t k = low;
      while (i < middle && j < high)
        merged[k++] = less(context, order[j], order[i]) ? order[j++] : order[i++];
      while (i < middle) merged[k++] = order[i++];
      while (j < high) merged[k++] = order[j++];
    }
    order.swap(merged);
  }
  return order;
}

}  // namespace vram
