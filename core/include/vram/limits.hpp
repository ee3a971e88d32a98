#pragma once

#include <cstddef>
#include <cstdint>

// Bounds on everything read from untrusted input (a request, a config.json,
// a GPU catalog), checked where the value is read and before any loop or
// allocation depends on it. Each is far above any published model or card
// (the largest in parentheses), and together they keep every integer
// product the core forms within int64 and every double sum finite:
// heads x head_dim <= 2^32, experts x hidden x expert width <= 2^60, a
// layer's state elements <= 2^44. docs/cli.md lists them.

namespace vram::limits {

// --- JSON text ---------------------------------------------------------------
/** Bytes of one request (a config.json is ~2 KB, the built-in catalog ~12 KB). */
inline constexpr std::size_t kMaxRequestBytes = 4'000'000;
/** Nesting of objects and lists (real configs: 4). */
inline constexpr std::size_t kMaxJsonDepth = 64;

// --- a request ------------------------------------------------------------------
/**
 * Tokens per sequence a request may ask for (the schema's `context`), and the
 * largest context the inverse search tries when the model states none.
 */
inline constexpr std::int64_t kMaxRequestContext = 100'000'000;
/** Sequences a request may ask for (the schema's `batch`): the inverse search's ceiling. */
inline constexpr std::int64_t kMaxRequestBatch = 1'000'000;

// --- a model's shape (config.json) ----------------------------------------
inline constexpr std::int64_t kMaxLayers = 10'000;            // (126, Llama 3.1 405B)
inline constexpr std::int64_t kMaxHidden = 1'048'576;         // 2^20 (16,384)
inline constexpr std::int64_t kMaxIntermediate = 16'777'216;  // 2^24 (59,392, Falcon 180B)
inline constexpr std::int64_t kMaxHeads = 65'536;             // 2^16 (128)
inline constexpr std::int64_t kMaxHeadDim = 65'536;           // 2^16 (256)
inline constexpr std::int64_t kMaxVocab = 16'777'216;         // 2^24 (262,144)
inline constexpr std::int64_t kMaxExperts = 65'536;           // 2^16 (384, Kimi K2)
inline constexpr std::int64_t kMaxRank = kMaxHidden;          // MLA ranks, Mamba dt_rank (1,536)
inline constexpr std::int64_t kMaxMambaExpand = 64;           // (2)
inline constexpr std::int64_t kMaxMambaState = 65'536;        // d_state (128)
inline constexpr std::int64_t kMaxMambaConv = 1'024;          // d_conv (4)
inline constexpr std::int64_t kMaxImageSize = 65'536;         // vision image_size (896)
inline constexpr std::int64_t kMaxImageChannels = 64;         // (3)
inline constexpr std::int64_t kMaxImageTokens = 1'048'576;    // mm_tokens_per_image (256)
inline constexpr std::int64_t kMaxImagesPerRequest = 64;      // the request's images
inline constexpr std::int64_t kMaxImageSide = 4096;           // the request's image_size (1024)
/** A config's max_position_embeddings and sliding_window: 2^30 tokens (10M, Llama 4 Scout). */
inline constexpr std::int64_t kMaxModelContext = 1'073'741'824;
/** Parameters of one model, counted or stated (about 2e12 published). */
inline constexpr double kMaxParams = 1e15;

// --- a GPU catalog ------------------------------------------------------------
// Unequal cards split by layers (estimate "gpus"): every order is tried, 4! = 24.
inline constexpr std::size_t kMaxSplitCards = 4;
inline constexpr std::size_t kMaxCatalogGpus = 1'000;    // (33 built in)
inline constexpr std::size_t kMaxDiscounts = 100;        // (3)
inline constexpr std::size_t kMaxTextChars = 2'000;      // any string in a catalog
inline constexpr std::int64_t kMaxNodeSize = 1'024;      // cards per server (8; NVL72: 72)
inline constexpr double kMinVramGb = 0.1;                // (16)
inline constexpr double kMaxVramGb = 100'000;            // (288, MI355X)
inline constexpr double kMinBandwidthGbps = 0.1;         // (8,000)
inline constexpr double kMaxBandwidthGbps = 10'000'000;  // GB/s, memory and links
inline constexpr double kMaxTflops = 1'000'000;          // dense TFLOP/s of one card
inline constexpr double kMaxMonthlyUsd = 1e9;            // per card
inline constexpr double kMaxHourlyUsd = 1e6;             // per card
inline constexpr double kMinHoursPerMonth = 1;
inline constexpr double kMaxHoursPerMonth = 744;      // 31 days x 24
inline constexpr std::int64_t kMaxCards = 1'000'000;  // stock, min_order, discount tiers
/** Cards any answer may count (min_devices, a cluster quote): int-safe. */
inline constexpr double kMaxDevices = 1e8;

// --- checkpoint files (GGUF, safetensors, model.safetensors.index.json) ------
// Read from a user's files or the Hub: each is checked before the work it
// bounds, so any file is answered or refused by name in time and memory
// linear in these bounds (docs/cli.md, "Limits"), never in its own counts.
/** Bytes of one header (safetensors' own MAX_HEADER_SIZE; GGUF vocabularies ~15 MB). */
inline constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;
/** Tensors in one file (DeepSeek V3's 91,000 per-expert tensors would fit in one). */
inline constexpr std::uint64_t kMaxTensors = 131'072;
/** Metadata kept for the answer: each value 16 bytes plus its text (chat templates ~10 KB). */
inline constexpr std::uint64_t kMaxMetadataBytes = 4'194'304;
/** Bytes of a metadata key or a safetensors tensor name (the longest seen ~100). */
inline constexpr std::uint64_t kMaxNameBytes = 1'024;
/** Bytes of one tensor's entry in a safetensors header ({dtype, shape, data_offsets}: ~80). */
inline constexpr std::uint64_t kMaxEntryBytes = 4'096;
/** Files of one checkpoint: split parts or safetensors shards (DeepSeek V3: 163). */
inline constexpr std::uint64_t kMaxShards = 4'096;
/** Bytes of a model.safetensors.index.json (DeepSeek V3's ~9 MB), CLI and page alike. */
inline constexpr std::uint64_t kMaxIndexBytes = 50'000'000;
/** Tensors an inspect answer lists when asked to (its summary covers them all). */
inline constexpr std::uint64_t kMaxListedTensors = 10'000;

}  // namespace vram::limits
