// Types for the vram-calculator package: the <vram-calculator> element
// (vram-calculator.js, or defineVramCalculator() from the ES module) and the
// core's `call` API. Requests and results are the JSON of docs/cli.md, the
// same the CLI prints with --json. Results name the keys docs/cli.md
// documents and may carry more; sizes are decimal GB (10^9 bytes), unrounded.

/** An error the core returns as data: the field it concerns and why. */
export interface CoreErrorData {
  /** Stable code: invalid_value, wrong_type, missing_field, unknown_field, unknown_model, unknown_gpu, parse_error, internal... */
  code: string;
  /** The request field ("context", "catalog.gpus[1].vram_gb"), or "" when none. */
  field: string;
  message: string;
}

/** Thrown (rejected) by `call` and its shorthands when the core refuses a request. */
export declare class CoreError extends Error implements CoreErrorData {
  constructor(error: CoreErrorData);
  code: string;
  field: string;
}

/** A message id with its parameters, rendered from messages/<lang>.json (docs/i18n.md). */
export interface Message {
  id: string;
  params?: Record<string, unknown>;
}

/** A GPU catalog shaped like data/gpus.json ("Replacing the catalog" in docs/cli.md). */
export interface GpuCatalog {
  gpus: Array<{
    id: string;
    name?: string;
    vendor?: string;
    vram_gb: number;
    bandwidth_gbps: number;
    monthly_usd?: number | null;
    hourly_usd?: number | null;
    fp8?: boolean;
    interconnect?: { kind: string; gbps: number; topology: string };
    stock?: number;
    min_order?: number;
    usable_gib?: number;
    [key: string]: unknown;
  }>;
  currency?: string;
  hours_per_month?: number;
  discounts?: unknown[];
  node_size?: number;
  [key: string]: unknown;
}

export type Mode = 'inference' | 'full' | 'lora' | 'qlora';
export type Optimizer = 'adamw' | 'adamw-8bit' | 'sgd' | 'adafactor';

/** An `estimate` request: one field per `vramcalc estimate` flag (docs/cli.md). */
export interface EstimateRequest {
  /** A preset id (`presets().models`); or `config` instead. */
  model?: string;
  /** A Hugging Face config.json, as an object. */
  config?: Record<string, unknown>;
  params_total?: number;
  params_active?: number;
  /** A weight format id, or 'native' (the checkpoint's own storage, the default). */
  weights?: string;
  /** KV cache format id (inference); default 'fp16'. */
  kv?: string;
  /** Tokens per sequence (inference); default 8192. */
  context?: number;
  /** Concurrent sequences (inference); default 1. */
  batch?: number;
  /** The service floor: each user's expected decode speed, tokens/s (inference); default 10, 0 for none. */
  min_tokens_per_s?: number;
  /**
   * Images in each request (inference), 0 to 64; default 0. Only a model with
   * a vision tower takes more (else error.no_vision; a config that does not
   * say how many tokens an image becomes: error.vision_tokens). Each image's
   * tokens join the context; vLLM adds the terms encoder_cache and
   * vision_peak, llama.cpp mmproj and mmproj_compute.
   */
  images?: number;
  /**
   * Speculative decoding's draft (inference): a preset id, or absent for none.
   * Its terms are draft_weights and draft_kv (llama.cpp adds draft_compute).
   */
  draft_model?: string;
  /** Tokens the draft (or the MTP layers) drafts a step, 1 to 32 (inference); default 5. */
  draft_tokens?: number;
  /**
   * Who drafts (inference): 'draft' (default), the draft model when draft_model
   * names one; 'mtp', the model's own multi-token-prediction layers (a model
   * whose config has num_nextn_predict_layers, such as DeepSeek V3 or
   * GLM-4.5; else error.no_mtp; beside a draft_model: error.mtp_draft). Its
   * terms are mtp_weights and mtp_kv; under vLLM and SGLang only
   * (llama.cpp and transformers: warning.mtp_engine).
   */
  speculative?: 'draft' | 'mtp';
  overhead_gb?: number;
  overhead_pct?: number;
  /** 'guide' (default), 'percent', 'vllm', 'sglang', 'llamacpp'. */
  engine?: string;
  /** Engine knobs (data/engines.json), e.g. { gpu_memory_utilization: 0.95, tensor_parallel_size: 2 }. */
  engine_options?: Record<string, number | boolean>;
  gpu?: string;
  gpu_count?: number;
  budget_gb?: number;
  /** Memory other processes already hold on each card, GB (inference); default 0. */
  gpu_used_gb?: number;
  /**
   * A second model served on the same card, such as an embedding or reranker
   * model (inference): a preset id, or absent for none. Its term is
   * `companion`; its server's command is `launch.companion`.
   */
  companion_model?: string;
  /** Tokens of one request to the companion (inference); default 512. */
  companion_context?: number;
  catalog?: GpuCatalog;
  mode?: Mode;
  finetune_profile?: 'physical' | 'guide';
  seq?: number;
  micro_batch?: number;
  optimizer?: Optimizer;
  precision?: 'mixed' | 'bf16';
  loss?: 'standard' | 'chunked' | 'fused';
  upcast_unquantized?: boolean;
  lora_rank?: number;
  lora_targets?: string[];
  checkpointing?: boolean;
  flash_attention?: boolean;
  zero?: 0 | 1 | 2 | 3;
  offload_optimizer?: boolean;
}

/** One term of the answer with the formula and inputs it was computed from. */
export interface Term {
  id: string;
  gb: number;
  /** term.<id> or a variant, rendered from data/messages (docs/i18n.md). */
  label: Message;
  /** formula.<kind>: its params are the numbers `gb` is computed from. */
  formula: Message | null;
  inputs?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface Fit {
  capacity_gb: number;
  basis: Message;
  spare_gb: number;
  fits: boolean;
  /** SPEC section 3: under 5 GB spare on one card, under 2 GB per card on a set. */
  tight: boolean;
}

export interface Layout {
  tensor_parallel: number;
  pipeline_stages: number;
  servers: number;
  devices: number;
}

/** The result of `estimate` (docs/cli.md, "JSON output of estimate"). */
/** One program's command for a plan. */
export interface Launch {
  engine: 'vllm' | 'sglang' | 'llamacpp' | 'ollama' | 'trl';
  /** The engine version the flags were read from, and where (data/engines.json). */
  version: string;
  source: string;
  /** The model as the command names it: the preset's hub repository, or a placeholder; absent when the server names none (Ollama). */
  model?: string;
  /** Only the flags the plan needs; each listed for the engine in data/engines.json (env: a variable set before the program; switch: written alone; model: one of the model's own flags, its preset's `launch` in data/models.json, written first; call: the Python call it belongs to). */
  args: { flag: string; value: unknown; env?: boolean; switch?: boolean; model?: boolean; call?: string }[];
  command: string;
}

/** A card, or a set of one card, that holds the answer: its price and room. */
export interface CardOption {
  gpu: string;
  name: string;
  count: number;
  monthly_usd: number | null;
  list_monthly_usd: number | null;
  discount_percent: number;
  capacity_gb: number;
  spare_gb: number;
  tight: boolean;
  layout: Layout;
}

export interface EstimateResult {
  params_total: number;
  params_active: number;
  params_active_excluding_embedding?: number;
  weights_gb: number;
  weights_storage?: Array<{ component: string; params: number; format: string; bits_per_weight: number; gb: number }>;
  /** The error the validation set measures for answers of this kind, outside its named known gaps (data/accuracy.json). */
  measured_error: {
    category: string;
    low_pct: number;
    high_pct: number;
    median_abs_pct: number;
    cases: number;
    measurements: number;
    /** Terms no measured case of this kind checked: the range is wider by their share of the total at each end. */
    outside?: { terms: string[]; gb: number; share_pct: number };
    note: Message;
  } | null;
  kv_cache_gb?: number;
  kv_bytes_per_token?: number;
  kv_groups?: Array<{
    attention: string;
    layers: number;
    bytes_per_token_per_layer: number;
    tokens_held: number;
    state_bytes_per_layer: number;
    gb: number;
  }>;
  overhead_gb?: number;
  /** The sum of the terms (one card's under vLLM, SGLang and llama.cpp over several cards). */
  total_gb: number;
  terms: Term[];
  assumptions: Message[];
  warnings: Message[];
  model: Record<string, unknown>;
  engine?: { id: string; name: string; kind: string; options: Record<string, number | boolean> };
  budget?: {
    usable_gib: number;
    usable_estimated: boolean;
    reserved_gb: number;
    kv_budget_gb: number;
    kv_budget_gib: number;
    kv_blocks: number;
    kv_tokens: number;
    max_concurrency: number;
    fits: boolean;
    [key: string]: unknown;
  };
  kv_budget_gb?: number;
  kv_blocks?: number;
  max_concurrency?: number;
  fit?: Fit;
  /** Apple silicon: macOS's default GPU wired limit, the need, and the sysctl that raises it (docs/cli.md). */
  unified_memory?: {
    memory_gib: number;
    limit_gib: number;
    ceiling_gib: number;
    need_gib: number;
    sysctl: string;
    wired_limit_mb: number | null;
    command: string | null;
  };
  /** With a gpu (inference): gpu_count cards serving one model under the engine (docs/cli.md). */
  serving?: {
    gpus: number;
    tensor_parallel: number;
    pipeline_parallel: number;
    nodes: number;
    split: 'single' | 'tensor' | 'pipeline' | 'tensor_pipeline' | 'layer' | 'sum';
    layout: Message;
    kv_heads_replicated: boolean;
    per_gpu_gb: number;
    total_gb: number;
    capacity_per_gpu_gb: number;
    capacity_gb: number;
    kv_budget_gb: number;
    kv_budget_total_gb: number;
    kv_tokens: number;
    max_concurrency: number;
    users: number;
    max_users: number;
    fits: boolean;
    /** The fewest cards of this type that hold the load; null when none up to cards_searched does. */
    cards_needed: number | null;
    cards_searched: number;
    /**
     * llama.cpp only, when the cards cannot hold the whole model (the most
     * that fits on them and the rest in host RAM), or when the user set the
     * placement (engine_options gpu_layers, n_cpu_moe): exactly that one
     * (docs/cli.md, "Partial offload").
     */
    offload?: {
      /** "none": the user's placement keeps everything on the GPU (and does not fit). */
      kind: 'layers' | 'experts' | 'none';
      /** "user": the engine options set it; "auto": the calculator picked it. */
      placement: 'user' | 'auto';
      /** Whether per_gpu_gb holds capacity_per_gpu_gb. */
      fits: boolean;
      layers: number;
      /** Repeating layers on the GPU. */
      gpu_layers: number;
      /** -ngl as the command carries it: gpu_layers + 1 (the output layer), or the number typed. */
      ngl: number;
      /** --n-cpu-moe: layers whose routed experts stay in host RAM. */
      n_cpu_moe: number;
      per_gpu_gb: number;
      capacity_per_gpu_gb: number;
      gpu_weights_gb: number;
      host_weights_gb: number;
      host_kv_gb: number;
      host_compute_gb: number;
      /** Host RAM needed: host weights + host KV cache + host compute buffer. */
      host_gb: number;
      host_read_gb: number;
      host_bandwidth_gbps: number;
      host_efficiency: number;
      /** null when the placement does not fit (no speed for a setup that does not run). */
      decode: {
        ceiling_tokens_per_s: number;
        expected_tokens_per_s: number;
        expected_batch_tokens_per_s: number;
        step_ms: { gpu: number; host: number; fixed: number; hops: number; total: number };
        min_tokens_per_s: number;
        meets_floor: boolean;
      } | null;
      /** A user's placement that does not fit: the calculator's own pick; null otherwise or when nothing fits. */
      suggested: { ngl: number; n_cpu_moe: number; per_gpu_gb: number; host_gb: number } | null;
      /** The placement as the command writes it (offload.flags_layers, offload.flags_experts). */
      flags: Message;
      /** offload.layers, offload.experts, offload.all, or offload.short (does not fit): what the page's fit line says. */
      headline: Message;
    };
  };
  /**
   * The command that runs the plan (docs/cli.md): under vLLM, SGLang or
   * llama.cpp (not the conventions), or, for fine-tuning, the transformers,
   * PEFT and TRL calls as Python lines.
   */
  launch?: Launch & {
    /** Other programs that run the same plan (Ollama under llama.cpp). */
    also?: Array<Launch & { name: string; notes?: Message[] }>;
    /** Fine-tuning: the library stack's name, the launcher on several GPUs, and what the calls cannot say. */
    name?: string;
    launcher?: string;
    launcher_gpus?: number;
    notes?: Message[];
    /**
     * The companion's server (`companion_model`) on its own port; under vLLM
     * and SGLang only with a card, whose share it carries.
     */
    companion?: Launch;
  };
  /** Only when the setup fits. */
  decode?: {
    guide_tokens_per_s: number;
    stream_tokens_per_s: number;
    batch_tokens_per_s: number;
    active_weight_gb: number;
    kv_read_gb: number;
    step_gb: number;
    experts_touched: number;
    bandwidth_gbps: number;
    gpus: number;
    /** Groups that run one after another (pipeline stages, llama.cpp's layer split). */
    stages: number;
    /** Per user: bandwidth over the bytes one step reads (the same as stream_tokens_per_s). */
    ceiling_tokens_per_s: number;
    /** Per user: the step at the engine's measured bandwidth share, fixed costs and communication (data/speed.json). */
    expected_tokens_per_s: number;
    expected_batch_tokens_per_s: number;
    efficiency: number;
    step_ms: { memory: number; compute: number | null; fixed: number; allreduce: number; hops: number; total: number };
    compute_bound: boolean;
    min_tokens_per_s: number;
    meets_floor: boolean;
  };
  /** Time to first token for the context; only when the setup fits. */
  prefill?: {
    prompt_tokens: number;
    /** False when the card states no dense TFLOP/s. */
    known: boolean;
    tflops: number | null;
    fp8: boolean;
    utilisation: number;
    tflop: number;
    ttft_s: number | null;
    tokens_per_s: number | null;
  };
  inverse?: {
    max_context?: number;
    context_limited_by_model?: boolean;
    max_batch?: number;
    best_format?: string | null;
    formats?: Array<{ format: string; total_gb: number; fits: boolean; supported: boolean }>;
    max_seq?: number;
    max_micro_batch?: number;
    [key: string]: unknown;
  };
  fits?: Array<CardOption & {
    /** The bandwidth ceiling per user. */
    decode_tokens_per_s?: number;
    decode_expected_tokens_per_s?: number;
    ttft_s?: number | null;
  }>;
  /** Options that hold the answer but miss min_tokens_per_s, with the reason (floor.below). */
  below_floor?: Array<CardOption & {
    decode_tokens_per_s: number;
    decode_expected_tokens_per_s: number;
    ttft_s: number | null;
    reason: Message;
  }>;
  /** Fine-tuning (mode full, lora, qlora). `total_gb` is what the device
   * holds ("device") or the guide's sum ("guide"). */
  total_basis?: 'device' | 'guide';
  /** torch.cuda.max_memory_allocated: no CUDA context, no cached blocks. */
  allocator_peak_gb?: number;
  /** The caching allocator's blocks beyond its peak. */
  allocator_reserve_gb?: number;
  /** The two together: torch.cuda.max_memory_reserved. */
  allocator_reserved_gb?: number;
  gradients_gb?: number;
  optimizer_gb?: number;
  activations_gb?: number;
  adapter_params?: number;
  trainable_params?: number;
  host_ram_gb?: number;
  [key: string]: unknown;
}

export interface GridRequest {
  models?: string[];
  methods?: Array<'bf16' | 'fp8' | 'int4' | 'qlora' | 'lora' | 'full'>;
  context?: number;
  batch?: number;
  usable_fraction?: number;
  catalog?: GpuCatalog;
}

export interface GridResult {
  context: number;
  batch: number;
  currency: string;
  rules: Record<string, unknown>;
  conventions: Message;
  rows: Array<{
    model: string;
    name: string;
    cells: Array<{
      method: string;
      vram_gb: number;
      needs_fast_link: boolean;
      pick: {
        gpu: string;
        name: string;
        count: number;
        nodes: number;
        monthly_usd: number | null;
        list_monthly_usd: number | null;
        discount_percent: number;
        tight: boolean;
        by_quote: boolean;
        capacity_gb: number;
        spare_gb: number;
        layout: Layout;
      } | null;
      excluded: Array<{ gpu: string; name: string; count: number; monthly_usd: number | null; rule: string; reason: Message }>;
    }>;
  }>;
  [key: string]: unknown;
}

export interface DevicesRequest {
  model?: string;
  accelerators?: string[];
  formats?: string[];
  usable_fraction?: number;
  context?: number;
  batch?: number;
  kv?: string;
  catalog?: GpuCatalog;
}

export interface DevicesResult {
  model: string;
  params_total: number;
  usable_fraction: number;
  context: number;
  kv: string;
  kv_bytes_per_token: number;
  placeholders: string[];
  rows: Array<{
    accelerator: string;
    name: string;
    vram_gb: number;
    cells: Array<{
      format: string;
      weights_gb: number;
      min_devices: number;
      layout: Layout;
      kv_room_gb: number;
      kv_room_min_devices_gb: number;
      kv_cache_gb: number;
      kv_fits: boolean;
      kv_fits_min_devices: boolean;
      [key: string]: unknown;
    }>;
    [key: string]: unknown;
  }>;
  [key: string]: unknown;
}

export interface FleetRequest {
  model?: string;
  weights?: string;
  context?: number;
  batch?: number;
  catalog?: GpuCatalog;
}

/** One row per priced card. */
export type FleetResult = Array<{
  id: string;
  name: string;
  vram_gb: number;
  bandwidth_gbps: number;
  monthly_usd: number;
  usd_per_gb_month: number;
  gbps_per_usd_month: number;
  usd_per_hour: number;
  vram_needed_gb?: number;
  fit?: Record<string, unknown>;
  /** Bandwidth ceiling over the resident weights, per stream. */
  decode_tokens_per_s?: number;
  /** Expected decode per user at the request's batch, as estimate gives it for this card and count. */
  decode_expected_tokens_per_s?: number;
  /** At the expected speed of all the batch's streams; null when it is zero. */
  usd_per_million_tokens?: number | null;
  [key: string]: unknown;
}>;

/** The date of one data file the core carries (its "updated" field). */
export interface DataVersion {
  /** YYYY-MM-DD */
  updated: string;
}

/** Which data the figures come from: one entry per data/*.json file. */
export interface DataVersions {
  models: DataVersion;
  formats: DataVersion;
  gpus: DataVersion;
  engines: DataVersion;
  presets: DataVersion;
}

/** The result of `presets`: what the pickers offer, and the data's dates. */
export interface PresetsResult {
  /** family and aliases: the names the page's model search matches ("deepseek r1", "r1"). */
  /**
   * task: what the model serves ('embed', 'rerank': a pooling model, which holds no output head);
   * image_tokens: the tokens one image becomes, for a model with a vision tower (none otherwise);
   * mtp_layers: its own multi-token-prediction modules, for a model that carries them (speculative 'mtp').
   */
  models: Array<{ id: string; name: string; group: string; task: 'generate' | 'embed' | 'rerank'; family: string; aliases: string[]; source: string; placeholders: string[]; image_tokens?: number; mtp_layers?: number }>;
  weight_formats: Array<{ id: string; name: string; bits_per_weight: number; requires: string[]; gguf: boolean; covers: 'all' | 'linear'; covers_source?: string; source: string }>;
  kv_formats: Array<{ id: string; name: string; bits_per_element: number; source: string }>;
  gpus: GpuCatalog['gpus'];
  engines: Array<{ id: string; name: string; kind: string; source: string; defaults: Record<string, unknown>; option_sources: Record<string, string> }>;
  /** Named links (data/presets.json), for the `preset` attribute. */
  links: Array<{ id: string; name: string; state: Record<string, unknown> }>;
  data_versions: DataVersions;
  [key: string]: unknown;
}

export interface Methods {
  estimate: [EstimateRequest, EstimateResult];
  grid: [GridRequest, GridResult];
  devices: [DevicesRequest, DevicesResult];
  fleet: [FleetRequest, FleetResult];
  presets: [Record<string, never>, PresetsResult];
  schema: [Record<string, never>, SchemaResult];
}

/** One request field or engine knob (docs/cli.md, "One schema for flags, requests and the page"). */
export interface SchemaField {
  name: string;
  type: 'int' | 'number' | 'bool' | 'string' | 'enum' | 'list' | 'object';
  default?: unknown;
  min?: number;
  max?: number;
  min_exclusive?: boolean;
  max_exclusive?: boolean;
  choices?: string[];
  choices_from?: 'catalog';
  unit?: string;
  modes: Array<'inference' | 'finetune'>;
  /** A message id: help.<field>. */
  help: string;
}

/** The result of `schema`: every request's fields and every engine's knobs. */
export interface SchemaResult {
  requests: { estimate: SchemaField[]; grid: SchemaField[]; devices: SchemaField[]; fleet: SchemaField[] };
  engines: Record<string, SchemaField[]>;
}

/** The package version (package.json), e.g. "0.1.0". */
export declare const version: string;

/** Registers <vram-calculator>; later calls do nothing. Browsers only. */
export declare function defineVramCalculator(): void;

/**
 * One request to the core. The core is created on first use and shared with
 * every element on the page. Rejects with CoreError.
 */
export declare function call<M extends keyof Methods>(method: M, request?: Methods[M][0]): Promise<Methods[M][1]>;
export declare function estimate(request: EstimateRequest): Promise<EstimateResult>;
export declare function grid(request?: GridRequest): Promise<GridResult>;
export declare function devices(request?: DevicesRequest): Promise<DevicesResult>;
export declare function fleet(request?: FleetRequest): Promise<FleetResult>;
export declare function presets(): Promise<PresetsResult>;
/** Every request's fields and every engine's knobs: types, defaults, ranges, choices, help ids. */
export declare function schema(): Promise<SchemaResult>;

/** The element's attributes (docs/embedding.md, "Attributes"). */
export interface VramCalculatorAttributes {
  /** 'calculator' (default), 'grid', 'devices' or 'fleet'. */
  view?: 'calculator' | 'grid' | 'devices' | 'fleet';
  /** A model preset id. */
  model?: string;
  /** A named link from data/presets.json. */
  preset?: string;
  /**
   * The interface language: 'en', 'ar' or 'fa' ('fa-IR' is fa; any other is
   * English). Without it, the nearest lang above the element (the host's
   * <html lang> at the last). ar and fa lay it out right to left.
   */
  lang?: string;
  /** Force 'ltr' or 'rtl' regardless of the language. */
  dir?: 'ltr' | 'rtl';
  /** 'latn' or 'native' digits; by default Arabic writes Latin digits, Persian its own. */
  digits?: 'latn' | 'native';
  /** Your own fleet and prices: inline JSON (a GpuCatalog) or a URL to fetch. */
  catalog?: string;
  /** Bind the inputs to the page's address (at most one element per page). */
  /** 'off' removes the Hugging Face model-id field: the element then never fetches a model. */
  network?: 'off' | string;
  'url-state'?: boolean | '';
  /** 'off': with url-state, a catalog in the address (#catalog=) is ignored. */
  'link-catalog'?: 'off' | string;
  /**
   * Which inputs show: 'none', or a space-separated list of model, weights,
   * kv, context, batch, mode, engine, gpu, usable_fraction (each view shows
   * only the inputs that change it, and of those only these).
   */
  inputs?: string;
  /** The answer only: total, fit and the cheapest card that holds it (a table view: its table). */
  compact?: boolean | '';
  /** 'header', 'tabs' or 'header tabs': parts to take away. */
  hide?: string;
  /**
   * A "Rent this" link on every pick: an absolute http(s) URL with {gpu},
   * {count} and {name} placeholders past the host, each value URL-encoded.
   */
  'rent-url'?: string;
}

/** A pick: the cheapest card set that holds the answer, or a "Rent this" link followed. */
export interface VramPickDetail {
  /** The card's catalog id. */
  gpu: string;
  count: number;
  name: string;
  /** The set's monthly price; null when the catalog has none. */
  monthly_usd: number | null;
  /** Where it was shown: 'answer', 'cards' (the cheapest cards table) or 'grid'. */
  source: 'answer' | 'cards' | 'grid';
  /** The rent-url link, when one was followed (the event is then cancelable). */
  href?: string;
}

export interface VramReadyDetail {
  version: string;
  dataVersions: DataVersions;
}

export interface VramChangeDetail {
  /** The inputs, named like the core's request fields. */
  state: Record<string, unknown>;
  /** The link's query string for that state. */
  query: string;
}

export interface VramCalculatorEventMap extends HTMLElementEventMap {
  /** Once, when the core has loaded. */
  'vram-ready': CustomEvent<VramReadyDetail>;
  /** Every input change. */
  'vram-change': CustomEvent<VramChangeDetail>;
  /** Every new calculator answer: the core's estimate. */
  'vram-result': CustomEvent<EstimateResult>;
  /**
   * The answer's pick when it changes (null: no card holds it), and, cancelable,
   * a "Rent this" link followed: preventDefault() keeps the page.
   */
  'vram-pick': CustomEvent<VramPickDetail | null>;
}

/** <vram-calculator>: attributes in, events out, rendered in a shadow root. */
export interface VramCalculatorElement extends HTMLElement {
  /** The package version this element was built from. */
  readonly version: string;
  /** The data's dates; null until the core has loaded (vram-ready). */
  readonly dataVersions: DataVersions | null;
  /** How long one checkpoint header may take to read, in milliseconds (default 20000). */
  readTimeLimit: number;
  addEventListener<K extends keyof VramCalculatorEventMap>(
    type: K,
    listener: (this: VramCalculatorElement, event: VramCalculatorEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof VramCalculatorEventMap>(
    type: K,
    listener: (this: VramCalculatorElement, event: VramCalculatorEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}

declare global {
  interface HTMLElementTagNameMap {
    'vram-calculator': VramCalculatorElement;
  }
}
