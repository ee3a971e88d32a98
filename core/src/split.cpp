#include "vram/split.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace vram {

namespace {

/** Card `c`'s need with layers [first, first + count) and, when `output`, the output layer. */
CardShare share_of(const OffloadParts& p, int first, int count, bool output, double capacity) {
  CardShare s;
  s.first_layer = first;
  s.layers = count;
  s.output = output;
  s.capacity_bytes = capacity;
  for (int l = first; l < first + count; ++l) {
    s.weights_bytes += p.layer_bytes[static_cast<std::size_t>(l)];
    s.kv_bytes += p.kv_bytes[static_cast<std::size_t>(l)];
  }
  if (output) s.weights_bytes += p.head_bytes;
  if (count > 0 || output) {
    s.compute_bytes = p.compute_bytes;
    s.context_bytes = p.context_bytes;
  }
  s.bytes = s.weights_bytes + s.kv_bytes + s.compute_bytes + s.context_bytes;
  return s;
}

/**
 * Each card but the last takes as many layers as fit `fill` of its capacity;
 * the last takes the rest and the output layer. Taking more early never makes
 * a later card fuller, so this finds a split at `fill` whenever one exists.
 */
std::vector<CardShare> greedy(const OffloadParts& p, const std::vector<double>& caps, double fill) {
  const int n = static_cast<int>(p.layer_bytes.size());
  const std::size_t cards = caps.size();
  std::vector<CardShare> out;
  out.reserve(cards);
  int next = 0;
  for (std::size_t c = 0; c + 1 < cards; ++c) {
    const double room = fill * caps[c];
    const double fixed = p.compute_bytes + p.context_bytes;
    double used = fixed;
    int count = 0;
    while (next + count < n) {
      const std::size_t l = static_cast<std::size_t>(next + count);
      const double more = p.layer_bytes[l] + p.kv_bytes[l];
      if (used + more > room) break;
      used += more;
      ++count;
    }
    out.push_back(share_of(p, next, count, false, caps[c]));
    next += count;
  }
  out.push_back(share_of(p, next, n - next, true, caps.back()));
  return out;
}

double fill_of(const std::vector<CardShare>& cards) {
  double fill = 0;
  for (const CardShare& s : cards) {
    if (s.bytes > 0)
      fill = std::max(fill, s.capacity_bytes > 0 ? s.bytes / s.capacity_bytes : 1e300);
  }
  return fill;
}

bool within(const std::vector<CardShare>& cards, double fill) {
  for (const CardShare& s : cards) {
    if (s.bytes > fill * s.capacity_bytes) return false;
  }
  return true;
}

}  // namespace

LayerSplit split_layers(const OffloadParts& p, const std::vector<double>& caps) {
  LayerSplit out;
  if (caps.empty()) return out;
  // The least fill at which the greedy placement holds, by bisection: every
  // layer on the first card is a placement, so its fill bounds the search.
  double hi = std::max(1.0, fill_of(greedy(p, caps, 1e300)));
  double lo = 0;
  for (int i = 0; i < 64 && hi - lo > hi * 1e-9; ++i) {
    const double mid = (lo + hi) / 2;
    if (within(greedy(p, caps, mid), mid)) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  out.cards = greedy(p, caps, hi);
  for (std::size_t c = 0; c < out.cards.size(); ++c) {
    out.cards[c].card = static_cast<int>(c);
    out.tensor_split.push_back(out.cards[c].layers + (out.cards[c].output ? 1 : 0));
  }
  out.fill = fill_of(out.cards);
  out.fits = out.fill <= 1.0;
  return out;
}

bool split_fits(const OffloadParts& p, const std::vector<double>& caps) {
  return !caps.empty() && within(greedy(p, caps, 1.0), 1.0);
}

SplitOrder best_split_order(const PartsAt& parts_at, const std::vector<double>& caps,
                            const std::vector<std::string>& ids, std::int64_t limit) {
  std::map<std::int64_t, OffloadParts> cache;
  auto parts = [&](std::int64_t context) -> const OffloadParts& {
    auto it = cache.find(context);
    if (it == cache.end()) it = cache.emplace(context, parts_at(context)).first;
    return it->second;
  };
  auto most_context = [&](const std::vector<int>& order) -> std::int64_t {
    std::vector<double> in_order;
    for (int c : order) in_order.push_back(caps[static_cast<std::size_t>(c)]);
    if (!split_fits(parts(1), in_order)) return 0;
    std::int64_t lo = 1, hi = limit;  // lo fits
    if (split_fits(parts(hi), in_order)) return hi;
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      (split_fits(parts(mid), in_order) ? lo : hi) = mid;
    }
    return lo;
  };
  SplitOrder best;
  std::vector<int> given(caps.size());
  std::iota(given.begin(), given.end(), 0);
  best.order = given;
  best.max_context = best.given_max_context = most_context(given);
  // Every distinct order of the ids (identical cards once), each mapped to positions.
  std::vector<std::string> names = ids;
  std::sort(names.begin(), names.end());
  do {
    std::vector<int> order;
    std::vector<bool> used(ids.size(), false);
    for (const std::string& name : names) {
      for (std::size_t i = 0; i < ids.size(); ++i) {
        if (!used[i] && ids[i] == name) {
          used[i] = true;
          order.push_back(static_cast<int>(i));
          break;
        }
      }
    }
    if (order == given) continue;
    const std::int64_t context = most_context(order);
    if (context > best.max_context) {
      best.max_context = context;
      best.order = order;
    }
  } while (std::next_permutation(names.begin(), names.end()));
  return best;
}

double split_decode_tokens_per_s(const LayerSplit& split, const std::vector<double>& bandwidth) {
  double seconds = 0;
  for (std::size_t c = 0; c < split.cards.size() && c < bandwidth.size(); ++c) {
    const CardShare& s = split.cards[c];
    if (bandwidth[c] <= 0) return 0;
    seconds += (s.weights_bytes + s.kv_bytes) / (bandwidth[c] * 1e9);
  }
  return seconds > 0 ? 1.0 / seconds : 0;
}

}  // namespace vram
