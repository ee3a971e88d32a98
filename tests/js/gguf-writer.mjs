// A small GGUF writer for the node tests (ggml/docs/gguf.md): key-values,
// tensor infos, alignment padding and zero-filled tensor data. Written
// independently of the C++ reader so the two can be checked against each
// other and against @huggingface/gguf.

// ggml types: [id, elements per block, bytes per block] (gguf-py GGML_QUANT_SIZES).
export const GGML = {
  F32: [0, 1, 4], F16: [1, 1, 2], Q4_0: [2, 32, 18], Q8_0: [8, 32, 34],
  Q4_K: [12, 256, 144], Q5_K: [13, 256, 176], Q6_K: [14, 256, 210], IQ2_XXS: [16, 256, 66],
  IQ4_XS: [23, 256, 136], BF16: [30, 1, 2], TQ2_0: [35, 256, 66], MXFP4: [39, 32, 17],
};

const enc = new TextEncoder();

export class GgufWriter {
  constructor(version = 3) {
    this.version = version;
    this.kv = [];
    this.tensors = [];
  }

  add(key, type, bytes) {
    this.kv.push([key, type, bytes]);
    return this;
  }
  u32(key, v) { return this.add(key, 4, le(v, 4)); }
  u64(key, v) { return this.add(key, 10, le(v, 8)); }
  f32(key, v) { const b = new Uint8Array(4); new DataView(b.buffer).setFloat32(0, v, true); return this.add(key, 6, b); }
  bool(key, v) { return this.add(key, 7, Uint8Array.of(v ? 1 : 0)); }
  str(key, v) { return this.add(key, 8, string(v)); }
  u32s(key, values) { return this.add(key, 9, concat([le(4, 4), le(values.length, 8), ...values.map((v) => le(v, 4))])); }
  bools(key, values) { return this.add(key, 9, concat([le(7, 4), le(values.length, 8), Uint8Array.from(values, (v) => (v ? 1 : 0))])); }
  strs(key, values) { return this.add(key, 9, concat([le(8, 4), le(values.length, 8), ...values.map(string)])); }
  tensor(name, shape, type) {
    this.tensors.push({ name, shape, type });
    return this;
  }

  /** The file's bytes; with `data` false, the header and its padding only. */
  build({ data = true, alignment = 32 } = {}) {
    const parts = [le(0x46554747, 4), le(this.version, 4), le(this.tensors.length, 8), le(this.kv.length, 8)];
    for (const [key, type, bytes] of this.kv) parts.push(string(key), le(type, 4), bytes);
    let offset = 0;
    for (const t of this.tensors) {
      const [id, block, size] = GGML[t.type];
      parts.push(string(t.name), le(t.shape.length, 4), ...t.shape.map((d) => le(d, 8)), le(id, 4), le(offset, 8));
      const bytes = (t.shape[0] / block) * size * t.shape.slice(1).reduce((a, b) => a * b, 1);
      t.bytes = bytes;
      offset += Math.ceil(bytes / alignment) * alignment;
    }
    let header = concat(parts);
    const padded = Math.ceil(header.length / alignment) * alignment;
    const out = new Uint8Array(padded + (data ? offset : 0));
    out.set(header);
    return out;
  }
}

function le(value, bytes) {
  const out = new Uint8Array(bytes);
  let v = BigInt(value);
  for (let k = 0; k < bytes; k++) {
    out[k] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

function string(s) {
  const b = enc.encode(s);
  return concat([le(b.length, 8), b]);
}

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function layers(w, n, types, { experts = 0, width = 512, kvWidth = 128 } = {}) {
  for (let i = 0; i < n; i++) {
    const b = `blk.${i}.`;
    w.tensor(`${b}attn_norm.weight`, [256], 'F32')
      .tensor(`${b}attn_q.weight`, [256, 256], types.attn)
      .tensor(`${b}attn_k.weight`, [256, kvWidth], types.attn)
      .tensor(`${b}attn_v.weight`, [256, kvWidth], types.v)
      .tensor(`${b}attn_output.weight`, [256, 256], types.attn)
      .tensor(`${b}ffn_norm.weight`, [256], 'F32');
    if (experts) {
      w.tensor(`${b}ffn_gate_inp.weight`, [256, experts], 'F32')
        .tensor(`${b}ffn_gate_exps.weight`, [256, width, experts], types.ffn)
        .tensor(`${b}ffn_up_exps.weight`, [256, width, experts], types.ffn)
        .tensor(`${b}ffn_down_exps.weight`, [width, 256, experts], types.down);
    } else {
      w.tensor(`${b}ffn_gate.weight`, [256, width], types.ffn)
        .tensor(`${b}ffn_up.weight`, [256, width], types.ffn)
        .tensor(`${b}ffn_down.weight`, [width, 256], types.down);
    }
  }
  return w;
}

function base(arch, extra = (w) => w, version = 3, blocks = 2) {
  const w = new GgufWriter(version)
    .str('general.architecture', arch)
    .str('general.name', `tiny ${arch}`)
    .u32(`${arch}.block_count`, blocks)
    .u32(`${arch}.context_length`, 4096)
    .u32(`${arch}.embedding_length`, 256)
    .u32(`${arch}.feed_forward_length`, 512)
    .u32(`${arch}.attention.head_count`, 4)
    .u32(`${arch}.attention.head_count_kv`, 2)
    .f32(`${arch}.rope.freq_base`, 10000.5);
  return extra(w);
}

/** Several architectures and type mixes; each returns a GgufWriter. */
export const fixtures = {
  'llama-q4_k_m': () => {
    const vocab = Array.from({ length: 5000 }, (_, i) => `tok${i}`);
    const w = base('llama', (x) => x.strs('tokenizer.ggml.tokens', vocab).u32('general.file_type', 15));
    w.tensor('token_embd.weight', [256, 5000], 'Q4_K');
    layers(w, 2, { attn: 'Q4_K', v: 'Q6_K', ffn: 'Q4_K', down: 'Q6_K' });
    return w.tensor('output_norm.weight', [256], 'F32').tensor('output.weight', [256, 5000], 'Q6_K');
  },
  'qwen3moe-q8_0': () => {
    const w = base('qwen3moe', (x) =>
      x.u32('qwen3moe.expert_count', 8).u32('qwen3moe.expert_used_count', 2)
        .u32('qwen3moe.expert_feed_forward_length', 256).u32('qwen3moe.attention.key_length', 64)
        .u32('qwen3moe.vocab_size', 1000), 2);
    w.tensor('token_embd.weight', [256, 1000], 'Q8_0');
    layers(w, 2, { attn: 'Q8_0', v: 'Q8_0', ffn: 'Q8_0', down: 'Q8_0' }, { experts: 8, width: 256 });
    return w.tensor('output_norm.weight', [256], 'F32').tensor('output.weight', [256, 1000], 'Q8_0');
  },
  'gemma2-iq': () => {
    const w = base('gemma2', (x) =>
      x.u32('gemma2.attention.sliding_window', 1024).u32('gemma2.attention.key_length', 64)
        .u32('gemma2.vocab_size', 1000).bools('a.flags', [true, false]).u32s('a.list', [1, 2, 3]).bool('a.bool', true));
    w.tensor('token_embd.weight', [256, 1000], 'IQ4_XS');
    return layers(w, 2, { attn: 'IQ2_XXS', v: 'IQ4_XS', ffn: 'IQ2_XXS', down: 'TQ2_0' }).tensor('output_norm.weight', [256], 'F32');
  },
  'deepseek2-mla': () => {
    const w = base('deepseek2', (x) =>
      x.u32('deepseek2.attention.key_length', 576).u32('deepseek2.attention.value_length', 512)
        .u32('deepseek2.attention.key_length_mla', 192).u32('deepseek2.attention.value_length_mla', 128)
        .u32('deepseek2.attention.kv_lora_rank', 512).u32('deepseek2.attention.q_lora_rank', 256)
        .u32('deepseek2.rope.dimension_count', 64).u32('deepseek2.expert_count', 8)
        .u32('deepseek2.expert_used_count', 2).u32('deepseek2.expert_shared_count', 1)
        .u32('deepseek2.expert_feed_forward_length', 256).u32('deepseek2.leading_dense_block_count', 1)
        .u32('deepseek2.expert_gating_func', 2).u32('deepseek2.vocab_size', 1000).u64('a.big', 2n ** 40n));
    w.tensor('token_embd.weight', [256, 1000], 'Q5_K');
    return layers(w, 2, { attn: 'Q5_K', v: 'Q5_K', ffn: 'Q4_K', down: 'Q6_K' }, { experts: 8, width: 256 }).tensor('output.weight', [256, 1000], 'Q6_K');
  },
  // Qwen3.5 MoE as llama.cpp's converter writes it (conversion/qwen.py): Gated DeltaNet keys
  // under ssm.*, and an MTP layer after the model's two in block_count (nextn_predict_layers).
  'qwen35moe-mtp': () => {
    const w = base('qwen35moe', (x) =>
      x.u32('qwen35moe.nextn_predict_layers', 1).u32('qwen35moe.full_attention_interval', 2)
        .u32('qwen35moe.ssm.conv_kernel', 4).u32('qwen35moe.ssm.state_size', 16)
        .u32('qwen35moe.ssm.group_count', 2).u32('qwen35moe.ssm.time_step_rank', 4)
        .u32('qwen35moe.ssm.inner_size', 128).u32('qwen35moe.expert_count', 8)
        .u32('qwen35moe.expert_used_count', 2).u32('qwen35moe.expert_feed_forward_length', 128)
        .u32('qwen35moe.expert_shared_feed_forward_length', 128)
        .u32('qwen35moe.attention.key_length', 64).u32('qwen35moe.vocab_size', 1000), 3, 3);
    w.tensor('token_embd.weight', [256, 1000], 'Q4_K');
    layers(w, 3, { attn: 'Q4_K', v: 'Q6_K', ffn: 'Q4_K', down: 'Q8_0' }, { experts: 8, width: 128 });
    return w.tensor('output_norm.weight', [256], 'F32').tensor('output.weight', [256, 1000], 'Q6_K');
  },
  'gpt-oss-mxfp4': () => {
    const w = base('gpt-oss', (x) =>
      x.u32('gpt-oss.expert_count', 4).u32('gpt-oss.expert_used_count', 2)
        .u32('gpt-oss.expert_feed_forward_length', 256).u32('gpt-oss.attention.key_length', 64)
        .u32('gpt-oss.attention.sliding_window', 128).u32('gpt-oss.vocab_size', 1000));
    w.tensor('token_embd.weight', [256, 1000], 'F16');
    return layers(w, 2, { attn: 'BF16', v: 'BF16', ffn: 'MXFP4', down: 'MXFP4' }, { experts: 4, width: 256 }).tensor('output.weight', [256, 1000], 'F16');
  },
};

/** A split model: `count` parts, the first with the metadata. */
export function splitParts(count = 2) {
  return Array.from({ length: count }, (_, no) => {
    const w = no === 0 ? base('llama', (x) => x.u32('llama.vocab_size', 1000)) : new GgufWriter();
    w.u32('split.no', no).u32('split.count', count).u32('split.tensors.count', count);
    w.tensor(no === 0 ? 'token_embd.weight' : `blk.${no - 1}.attn_q.weight`, [256, no === 0 ? 1000 : 256], 'Q8_0');
    return w.build();
  });
}

/** A safetensors file: 8-byte length, JSON header, zero data. */
export function safetensorsFile(header) {
  const text = enc.encode(JSON.stringify(header));
  let end = 0;
  for (const [name, t] of Object.entries(header)) if (name !== '__metadata__') end = Math.max(end, t.data_offsets[1]);
  const out = new Uint8Array(8 + text.length + end);
  out.set(le(text.length, 8));
  out.set(text, 8);
  return out;
}
