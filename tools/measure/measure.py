#!/usr/bin/env python3
"""Measure real GPU memory and write validation cases.

Builds models from config with random weights (nothing is downloaded),
measures on one GPU what the calculator predicts, and writes the cases to
tests/validation/cases/measured-*.json in the set's format: the calculator
request that reproduces the run, the measured quantities and where the
prediction lives in the calculator's answer.

Fine-tuning runs take several steps (3 by default) and report the steady
state, the largest figure of steps 2 onwards, once the optimizer's states
exist. Each run gives two cases:
  -allocated  torch.cuda.max_memory_allocated() per step (the allocator's
              peak, no CUDA context; the request sets overhead_gb: 0);
  -device     torch.cuda.mem_get_info() total - free after each step (CUDA
              context, cuBLAS workspace and the caching allocator's cached
              blocks included: what nvidia-smi shows and what runs out).
Inference runs measure the weights resident after building the model, and
per context and batch transformers' own cache after one prefill (the bytes
of the cache tensors' storage) with the allocator's peak over that prefill
(logits_to_keep=1, as generate() does).

The runs go in a fixed order, the most informative first; a wall-clock
budget (--budget-s, 480 s by default) stops the script from starting a run
its estimate (scaled up when the runs so far took longer than theirs) would
carry past the budget, and the runs left are listed as skipped. --plan
prints every planned run, its cases and their requests as JSON without
importing torch. See tools/measure/README.md.
"""

import argparse
import datetime
import gc
import json
import time
from contextlib import nullcontext
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "validation" / "cases"
GiB = 2**30
PREFIX = "measured"
ENGINE_NAME = "transformers + PyTorch (single GPU)"

# Startup before the first run: importing torch, transformers and PEFT, and
# the CUDA context. Seconds, for the budget's estimates only.
STARTUP_S = 25.0


def load_json(relative):
    with open(ROOT / relative) as f:
        return json.load(f)


def preset(model_id):
    for m in load_json("data/models.json")["models"]:
        if m["id"] == model_id:
            return m
    raise KeyError(f"no preset {model_id} in data/models.json")


# ---------------------------------------------------------------------------
# Models. `preset`: the calculator's preset id (the request names it), or
# None for a config the request carries (config_file + config_overrides, as
# tools/validation.mjs reads them). `config`: the config.json the model is
# built from. `params`: parameter count, only for the time estimates.

MODELS = {
    "llama-3.2-1b": {"preset": "llama-3.2-1b", "tag": "1b", "config_file": "tests/configs/llama-3.2-1b/config.json",
                     "features": []},
    "llama-3.2-3b": {"preset": "llama-3.2-3b", "tag": "3b", "config_file": "tests/configs/llama-3.2-3b/config.json",
                     "features": []},
    "llama-3.1-8b": {"preset": "llama-3.1-8b", "tag": "8b", "config_file": "tests/configs/llama-3.1-8b/config.json",
                     "features": []},
    "qwen2.5-0.5b": {"preset": "qwen2.5-0.5b", "tag": "0.5b", "config_file": "tests/configs/qwen2.5-0.5b/config.json",
                     "features": []},
    "qwen3-8b": {"preset": "qwen3-8b", "tag": "qwen3-8b", "config_file": "tests/configs/qwen3-8b/config.json",
                 "features": []},
    "gemma-3-1b": {"preset": "gemma-3-1b", "tag": "gemma3-1b", "config_file": "tests/configs/gemma-3-1b-it/config.json",
                   "features": ["sliding-window"]},
    # Bamba 9B: no config.json is kept in tests/configs; the preset carries
    # the fields of ibm-ai-platform/Bamba-9B's that shape the model (the
    # wider run built it from them: 9,780,235,392 parameters, the official
    # count), and transformers' BambaConfig defaults the rest.
    "bamba-9b": {"preset": "bamba-9b", "tag": "bamba-9b", "config_from_preset": True,
                 "features": ["hybrid"], "requires": ["mamba_ssm", "causal_conv1d"]},
    "qwen3-moe-6-layers": {"preset": None, "tag": "qwen3-moe-6l", "config_file": "tests/configs/qwen3-30b-a3b/config.json",
                           "config_overrides": {"num_hidden_layers": 6}, "name": "qwen3-30b-a3b (6 of 48 layers)",
                           "features": ["moe"], "params": 4.36e9, "params_active": 0.8e9},
}


def model_config(key):
    m = MODELS[key]
    if m.get("config_from_preset"):
        config = dict(preset(m["preset"])["config"])
    else:
        config = load_json(m["config_file"])
    config.update(m.get("config_overrides", {}))
    return config


def model_params(key):
    m = MODELS[key]
    if "params" in m:
        return m["params"], m.get("params_active", m["params"])
    total = preset(m["preset"])["official_params_total"]
    return total, total


def model_ref(key):
    """The request's model fields and the case-level fields that go with them."""
    m = MODELS[key]
    if m["preset"]:
        return {"model": m["preset"]}, {}
    return {"name": "measured config"}, {"config_file": m["config_file"], "config_overrides": m["config_overrides"]}


def case_model(key):
    m = MODELS[key]
    return m["preset"] or m["name"]


# ---------------------------------------------------------------------------
# Fine-tuning settings.

TARGETS = {
    "qkvo": ["q_proj", "k_proj", "v_proj", "o_proj"],
    "qv": ["q_proj", "v_proj"],
    "all": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
}

# Optimizer key -> (id token, what was constructed, the request's fields).
# The id token is empty for fused AdamW, the wider run's optimizer.
OPTIMIZERS = {
    "adamw-fused": ("", "torch.optim.AdamW(fused=True)", {"optimizer": "adamw-fused"}),
    "adamw": ("adamw-foreach", "torch.optim.AdamW() (foreach, its default on CUDA)", {"optimizer": "adamw"}),
    "sgd": ("sgd", "torch.optim.SGD(momentum=0)", {"optimizer": "sgd"}),
    "sgd-momentum": ("sgdm", "torch.optim.SGD(momentum=0.9)", {"optimizer": "sgd", "momentum": 0.9}),
    "adafactor": ("adafactor",
                  "transformers.optimization.Adafactor(lr=1e-5, scale_parameter=False, relative_step=False, warmup_init=False)",
                  {"optimizer": "adafactor"}),
}

PRECISION_TEXT = {
    "bf16": "pure BF16 parameters, gradients and optimizer states",
    "mixed": "FP32 parameters, gradients and optimizer states; BF16 autocast",
    "lora": "BF16 base; LoRA adapters, their gradients and optimizer states in FP32 (PEFT's autocast_adapter_dtype=True)",
}

BASE = "base"  # a run's seq that --train-seq sets (2048 by default)


def train(model, mode, seq, mb, ckpt, optimizer="adamw-fused", attn="sdpa", precision="bf16", rank=None, targets=None):
    return {"kind": "finetune", "model": model, "mode": mode, "seq": seq, "micro_batch": mb, "checkpointing": ckpt,
            "attn": attn, "precision": precision if mode == "full" else "lora", "optimizer": optimizer,
            "lora_rank": rank, "lora_targets": targets}


def infer(model):
    return {"kind": "inference", "model": model}


# The runs, most informative first. The first reproduces a setting of the
# wider run (h200-full-1b-bf16-2k-mb1-nockpt) so the two can be compared;
# then the optimizers, models and settings no measured case covers yet; the
# settings the wider run measured already come last.
RUNS = [
    train("llama-3.2-1b", "full", BASE, 1, False),
    train("llama-3.2-1b", "full", BASE, 1, False, optimizer="sgd"),
    train("llama-3.2-1b", "full", BASE, 1, False, optimizer="sgd-momentum"),
    train("llama-3.2-1b", "full", BASE, 1, False, optimizer="adafactor"),
    train("llama-3.2-1b", "full", BASE, 1, False, optimizer="adamw"),
    train("gemma-3-1b", "full", BASE, 1, False),
    train("gemma-3-1b", "full", BASE, 1, False, attn="eager"),
    train("bamba-9b", "lora", BASE, 1, True, precision=None, rank=16, targets="all"),
    train("llama-3.2-1b", "full", 8192, 1, True, precision="mixed"),
    train("llama-3.1-8b", "lora", 32768, 1, True, rank=16, targets="qkvo"),
    train("llama-3.2-1b", "full", BASE, 8, True),
    infer("gemma-3-1b"),
    infer("bamba-9b"),
    train("llama-3.2-1b", "full", BASE, 1, True, optimizer="adafactor", precision="mixed"),
    train("llama-3.2-1b", "full", BASE, 1, True, optimizer="sgd-momentum", precision="mixed"),
    train("llama-3.1-8b", "full", BASE, 1, True),
    train("llama-3.1-8b", "full", BASE, 1, True, optimizer="adafactor"),
    train("gemma-3-1b", "lora", 8192, 1, True, rank=16, targets="qkvo"),
    train("gemma-3-1b", "lora", BASE, 4, False, attn="eager", rank=16, targets="all"),
    train("llama-3.1-8b", "lora", BASE, 4, True, attn="eager", rank=16, targets="qkvo"),
    train("llama-3.1-8b", "lora", BASE, 1, True, rank=8, targets="qv"),
    train("llama-3.1-8b", "lora", BASE, 1, True, rank=128, targets="all"),
    train("qwen3-8b", "lora", 4096, 1, False, rank=32, targets="all"),
    train("qwen2.5-0.5b", "full", 1024, 16, False),
    train("qwen2.5-0.5b", "full", 16384, 1, True, precision="mixed"),
    train("llama-3.2-3b", "full", BASE, 2, True, optimizer="adamw", precision="mixed"),
    infer("qwen3-moe-6-layers"),
    infer("llama-3.2-1b"),
    infer("qwen2.5-0.5b"),
    train("bamba-9b", "lora", 8192, 1, True, precision=None, rank=16, targets="qkvo"),
]


def seq_tag(seq):
    return f"{seq // 1024}k" if seq % 1024 == 0 else str(seq)


def train_name(r):
    parts = [r["mode"], MODELS[r["model"]]["tag"]]
    if r["mode"] == "full":
        parts.append(r["precision"])
    else:
        parts += [f"r{r['lora_rank']}", r["lora_targets"]]
    parts += [seq_tag(r["seq"]), f"mb{r['micro_batch']}", "ckpt" if r["checkpointing"] else "nockpt"]
    if r["attn"] == "eager":
        parts.append("eager")
    token = OPTIMIZERS[r["optimizer"]][0]
    if token:
        parts.append(token)
    return "-".join(parts)


def train_request(r):
    ref, _ = model_ref(r["model"])
    request = {**ref, "mode": r["mode"], "seq": r["seq"], "micro_batch": r["micro_batch"],
               # LoRA: a BF16 base with FP32 adapters, their gradients and
               # states, which is the calculator's "mixed".
               "precision": r["precision"] if r["mode"] == "full" else "mixed",
               "checkpointing": r["checkpointing"], "flash_attention": r["attn"] == "sdpa"}
    if r["mode"] == "lora":
        request["lora_rank"] = r["lora_rank"]
        request["lora_targets"] = TARGETS[r["lora_targets"]]
    request.update(OPTIMIZERS[r["optimizer"]][2])
    return request


def train_settings(r, steps):
    s = {"mode": r["mode"], "seq": r["seq"], "micro_batch": r["micro_batch"], "checkpointing": r["checkpointing"],
         "precision": PRECISION_TEXT[r["precision"]]}
    if r["mode"] == "lora":
        s["lora_rank"] = r["lora_rank"]
        s["lora_targets"] = TARGETS[r["lora_targets"]]
    s["attn"] = r["attn"]
    s["optimizer"] = OPTIMIZERS[r["optimizer"]][1]
    s["steps"] = steps
    return s


def train_features(r):
    f = [r["mode"]] + MODELS[r["model"]]["features"]
    if not r["checkpointing"]:
        f.append("no-checkpointing")
    if r["attn"] == "eager":
        f.append("eager")
    if r["micro_batch"] > 1:
        f.append("micro-batch")
    if r["seq"] >= 8192:
        f.append("long-sequence")
    token = OPTIMIZERS[r["optimizer"]][0]
    if token:
        f.append(token)
    return f


def train_notes(r, steps, kind):
    attention = ("PyTorch SDPA (no score matrices kept)" if r["attn"] == "sdpa"
                 else "eager (the score matrices are kept for the backward)")
    text = (f"{steps} training steps; the figure is the largest of steps 2 to {steps} (the optimizer's states exist "
            f"from step 1 on). Attention: {attention}. Loss: transformers' default cross-entropy over all positions. ")
    if r["checkpointing"]:
        text += "Gradient checkpointing: model.gradient_checkpointing_enable() with transformers' defaults. "
    if r["mode"] == "lora":
        text += ("The base is BF16; PEFT keeps the adapters in FP32 (LoraModel autocast_adapter_dtype=True, its "
                 "default), so the request says precision \"mixed\". ")
    if kind == "allocated":
        text += "PyTorch allocator statistics: no CUDA context, no allocator cache."
    else:
        text += ("What the device reports in use (nvidia-smi's view): CUDA context, cuBLAS workspace and the "
                 "allocator's cached blocks included.")
    return text


def plan_train(r, args):
    r = dict(r)
    if r["seq"] == BASE:
        r["seq"] = args.train_seq
    name = train_name(r)
    request = train_request(r)
    _, extra = model_ref(r["model"])
    settings = train_settings(r, args.steps)
    cases = []
    for kind in ("allocated", "device"):
        req = dict(request)
        if kind == "allocated":
            req["overhead_gb"] = 0
        m = ({"quantity": "peak_allocated_gib", "unit": "GiB", "predict": "allocator_peak_gb"} if kind == "allocated"
             else {"quantity": "device_used_gib", "unit": "GiB", "predict": "total_gb"})
        cases.append({"id": f"{PREFIX}-{name}-{kind}", "category": f"finetune-{kind}", "features": train_features(r),
                      "model": case_model(r["model"]), "settings": settings, **extra, "request": req,
                      "measurements": [m], "notes": train_notes(r, args.steps, kind)})
    return {"name": name, "kind": "finetune", "model": r["model"], "run": r, "cases": cases}


def plan_infer(r, args):
    key = r["model"]
    ref, extra = model_ref(key)
    features = MODELS[key]["features"]
    cases = [{"id": f"{PREFIX}-{key}-weights", "category": "inference", "features": ["weights"] + features,
              "model": case_model(key), "settings": {"dtype": "bf16"}, **extra,
              "request": {**ref, "weights": "bf16"},
              "measurements": [{"quantity": "weights_gib", "unit": "GiB", "predict": "term:weights"}],
              "notes": "Random weights; PyTorch allocator; buffers (rotary tables) included."}]
    points = [(c, b) for c in args.contexts for b in args.batches]
    for context, batch in points:
        cases.append({
            "id": f"{PREFIX}-{key}-kv-{context}x{batch}", "category": "inference",
            "features": ["kv-cache", "transformers"] + features, "model": case_model(key),
            "settings": {"context": context, "batch": batch}, **extra,
            "request": {**ref, "weights": "bf16", "kv": "bf16", "context": context, "batch": batch,
                        "engine": "transformers", "engine_options": {"non_torch_gib": 0}},
            "measurements": [{"quantity": "kv_cache_gib", "unit": "GiB", "predict": "kv_cache_gb"},
                             {"quantity": "prefill_peak_allocated_gib", "unit": "GiB", "predict": "total_gb"}],
            "notes": ("transformers' own cache after one prefill, the bytes of its tensors' storage (DynamicCache "
                      "holds every token for sliding-window layers too; a hybrid model's cache holds its Mamba "
                      "states). The peak is what transformers' generate() needs for the prompt; no CUDA context."),
        })
    return {"name": f"inference-{key}", "kind": "inference", "model": key, "run": {**r, "points": points},
            "cases": cases}


# ---------------------------------------------------------------------------
# Time estimates (seconds on an H100/H200-class GPU), for the budget only:
# startup, building the model with random weights on the GPU, and the steps'
# matrix work at 400 TFLOP/s achieved, with a fixed cost per step.

FLOPS = 400e12


def shape(key):
    c = model_config(key)
    text = c.get("text_config", c)
    h = text["hidden_size"]
    heads = text["num_attention_heads"]
    head_dim = text.get("head_dim") or h // heads
    layers = text["num_hidden_layers"]
    attn_layers = len(text.get("attn_layer_indices") or []) or layers
    return {"hidden": h, "heads": heads, "head_dim": head_dim, "layers": layers, "attn_layers": attn_layers,
            "vocab": text["vocab_size"]}


def estimate_train(r):
    total, active = model_params(r["model"])
    s = shape(r["model"])
    tokens = r["seq"] * r["micro_batch"]
    head = s["vocab"] * s["hidden"]
    body = max(active - 2 * head, active * 0.5)
    passes = 6 if r["mode"] == "full" else 4  # LoRA: no weight gradients for the frozen base
    linear = passes * (body + head) * tokens + (2 * body * tokens if r["checkpointing"] else 0)
    attn_fwd = 2 * tokens * r["seq"] * s["heads"] * s["head_dim"] * s["attn_layers"]  # causal half of 4*s^2*d
    attn = attn_fwd * (3.5 + (1 if r["checkpointing"] else 0)) * (6 if r["attn"] == "eager" else 1)
    step = (linear + attn) / FLOPS + 0.3
    if "hybrid" in MODELS[r["model"]]["features"]:
        step *= 2
    build = 1.5 + 1.0 * total / 1e9 * (2 if r["precision"] == "mixed" else 1)
    return round(build + 2.0 + 3 * step + 1.0, 1)  # + the first step's warm-up, + teardown


def estimate_infer(r):
    total, active = model_params(r["model"])
    s = shape(r["model"])
    work = 0.0
    for context, batch in r["points"]:
        tokens = context * batch
        work += (2 * active * tokens + 2 * tokens * context * s["heads"] * s["head_dim"] * s["attn_layers"]) / FLOPS
        work += 0.5
    return round(1.5 + 1.0 * total / 1e9 + work + 1.0, 1)


def make_plan(args):
    runs = []
    for r in RUNS:
        run = plan_train(r, args) if r["kind"] == "finetune" else plan_infer(r, args)
        run["estimate_s"] = estimate_train(run["run"]) if r["kind"] == "finetune" else estimate_infer(run["run"])
        run["requires"] = MODELS[r["model"]].get("requires", [])
        runs.append(run)
    if args.only:
        runs = [r for r in runs if any(s in r["name"] or any(s in c["id"] for c in r["cases"]) for s in args.only)]
    clock = STARTUP_S
    fits = True
    for order, run in enumerate(runs, 1):
        run["order"] = order
        fits = fits and clock + run["estimate_s"] <= args.budget_s
        clock += run["estimate_s"]
        run["expected_end_s"] = round(clock, 1)
        run["within_budget"] = fits
    return runs


def print_plan(runs, args):
    out = {
        "budget_s": args.budget_s,
        "startup_s": STARTUP_S,
        "estimated_s": round(STARTUP_S + sum(r["estimate_s"] for r in runs), 1),
        "steps": args.steps,
        "runs": [{"order": r["order"], "name": r["name"], "kind": r["kind"], "model": r["model"],
                  "estimate_s": r["estimate_s"], "expected_end_s": r["expected_end_s"],
                  "within_budget": r["within_budget"], "requires": r["requires"], "cases": r["cases"]}
                 for r in runs],
    }
    print(json.dumps(out, indent=1))


# ---------------------------------------------------------------------------
# Measuring: everything below needs torch, imported inside each function.

def hf_config(config_dict):
    from transformers import AutoConfig

    d = {k: v for k, v in config_dict.items() if k not in ("torch_dtype", "dtype", "transformers_version")}
    model_type = d.pop("model_type")
    return AutoConfig.for_model(model_type, **d)


def build(key, attn="sdpa", dtype=None):
    import torch
    from transformers import AutoModelForCausalLM

    dtype = dtype or torch.bfloat16
    config = hf_config(model_config(key))
    config._attn_implementation = attn
    with torch.device("cuda"):
        try:
            model = AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation=attn)  # transformers 5
        except TypeError:
            model = AutoModelForCausalLM.from_config(config, torch_dtype=dtype, attn_implementation=attn)
    return model


def reset():
    """Free what the last run left: cached blocks and cuBLAS workspaces, so each run starts as a fresh process."""
    import torch

    gc.collect()
    torch.cuda.synchronize()
    clear = getattr(torch._C, "_cuda_clearCublasWorkspaces", None)
    if clear is not None:
        clear()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()


def device_used():
    import torch

    free, total = torch.cuda.mem_get_info()
    return total - free


def storage_bytes(obj):
    """Bytes of the distinct CUDA storages reachable from a cache object (layouts differ by version).

    A sliding-window layer's cache is a view of the whole concatenation, so
    its storage, not numel(), is what occupies the device."""
    import torch

    seen_obj, storages = set(), {}
    stack = [obj]
    while stack:
        o = stack.pop()
        if id(o) in seen_obj or o is None:
            continue
        seen_obj.add(id(o))
        if isinstance(o, torch.Tensor):
            if o.is_cuda:
                s = o.untyped_storage()
                storages[s.data_ptr()] = s.nbytes()
        elif isinstance(o, (list, tuple, set)):
            stack.extend(o)
        elif isinstance(o, dict):
            stack.extend(o.values())
        elif hasattr(o, "__dict__"):
            stack.extend(vars(o).values())
    return sum(storages.values())


def missing_modules(names):
    import importlib.util

    return [n for n in names if importlib.util.find_spec(n) is None]


def text_vocab(model):
    config = model.config
    if hasattr(config, "get_text_config"):
        config = config.get_text_config()
    return config.vocab_size


def make_optimizer(name, params):
    import torch

    if name == "adamw-fused":
        return torch.optim.AdamW(params, lr=1e-5, fused=True)
    if name == "adamw":
        return torch.optim.AdamW(params, lr=1e-5)
    if name == "sgd":
        return torch.optim.SGD(params, lr=1e-5)
    if name == "sgd-momentum":
        return torch.optim.SGD(params, lr=1e-5, momentum=0.9)
    if name == "adafactor":
        from transformers.optimization import Adafactor

        return Adafactor(params, lr=1e-5, scale_parameter=False, relative_step=False, warmup_init=False)
    raise ValueError(name)


def measure_train(r, steps):
    """Per step: the allocator's peak and the device's use after it."""
    import torch

    reset()
    lora = r["mode"] == "lora"
    dtype = torch.float32 if r["precision"] == "mixed" else torch.bfloat16
    model = build(r["model"], attn=r["attn"], dtype=dtype)
    model.config.use_cache = False
    if r["checkpointing"]:
        model.gradient_checkpointing_enable()
        if lora:
            model.enable_input_require_grads()
    if lora:
        from peft import LoraConfig, get_peft_model

        rank = r["lora_rank"]
        model = get_peft_model(model, LoraConfig(r=rank, lora_alpha=2 * rank, target_modules=TARGETS[r["lora_targets"]]))
    model.train()
    optimizer = make_optimizer(r["optimizer"], [p for p in model.parameters() if p.requires_grad])
    autocast = torch.autocast("cuda", dtype=torch.bfloat16) if r["precision"] == "mixed" else nullcontext()
    ids = torch.randint(0, text_vocab(model), (r["micro_batch"], r["seq"]), device="cuda")
    peaks, used = [], []
    for _ in range(steps):
        torch.cuda.reset_peak_memory_stats()
        with autocast:
            loss = model(input_ids=ids, labels=ids, use_cache=False).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        del loss
        torch.cuda.synchronize()
        peaks.append(torch.cuda.max_memory_allocated())
        used.append(device_used())
    del model, optimizer, ids
    reset()
    return peaks, used


def bamba_cache(model, batch):
    import torch

    try:
        from transformers.models.bamba.modeling_bamba import HybridMambaAttentionDynamicCache
    except ImportError:
        return None
    try:
        return HybridMambaAttentionDynamicCache(model.config, batch, dtype=torch.bfloat16, device="cuda")
    except TypeError:
        return HybridMambaAttentionDynamicCache(model.config, batch, torch.bfloat16, "cuda")


def measure_infer(key, points):
    """Weights, then per point the cache's storage bytes and the allocator's peak over the prefill."""
    import torch

    reset()
    before = torch.cuda.memory_allocated()
    model = build(key)
    model.eval()
    weights = torch.cuda.memory_allocated() - before
    n_params = sum(p.numel() for p in model.parameters())
    vocab = text_vocab(model)
    results = []
    for context, batch in points:
        ids = torch.randint(0, vocab, (batch, context), device="cuda")
        reset()
        kwargs = {"input_ids": ids, "use_cache": True, "logits_to_keep": 1}
        if getattr(model.config, "model_type", "") == "bamba":
            kwargs["past_key_values"] = bamba_cache(model, batch)
        try:
            with torch.no_grad():
                out = model(**kwargs)
            peak = torch.cuda.max_memory_allocated()
            cache = kwargs.get("past_key_values")
            if cache is None:
                cache = out.past_key_values
            size = storage_bytes(cache)
            in_use = device_used()
            results.append((context, batch, size, peak, in_use, None))
            del out, cache
        except torch.cuda.OutOfMemoryError as e:
            results.append((context, batch, None, None, None, f"out of memory: {str(e).splitlines()[0]}"))
        kwargs.clear()
        del ids
        reset()
    del model
    reset()
    return weights, n_params, results


def gib(x):
    return x / GiB


def complete(case, values, quotes, context):
    """A planned case with its measured values: the set's full format."""
    out = {"id": case["id"], "category": case["category"], "features": case["features"], "model": case["model"],
           "engine": {"name": ENGINE_NAME, "version": context["versions"]},
           "hardware": {"gpu": context["gpu"], "count": 1, "total_memory_gib": context["total_gib"]},
           "settings": case["settings"]}
    for key in ("config_file", "config_overrides"):
        if key in case:
            out[key] = case[key]
    out["request"] = case["request"]
    out["measurements"] = [{**m, "value": v, "quote": q} for m, v, q in zip(case["measurements"], values, quotes)]
    out["measurements"] = [{k: m[k] for k in ("quantity", "value", "unit", "predict", "quote")} for m in out["measurements"]]
    out["source"] = {"kind": "measurement", "repo": "this repository",
                     "ref": f"tools/measure/measure.py on {context['gpu']}, {context['today']}, random weights built from the model's config.json",
                     "quote": "; ".join(quotes)}
    out["notes"] = case["notes"]
    return out


def run_train(run, args, context):
    r = run["run"]
    peaks, used = measure_train(r, args.steps)
    allocated = max(peaks[1:])
    device = max(used[1:])
    q_alloc = f"torch.cuda.max_memory_allocated() per step: {peaks} bytes"
    q_dev = (f"torch.cuda.mem_get_info() total - free after each step: {used} bytes "
             f"(CUDA context alone: {context['cuda_context']} bytes)")
    a, d = run["cases"]
    return [complete(a, [gib(allocated)], [q_alloc], context), complete(d, [gib(device)], [q_dev], context)]


def run_infer(run, args, context):
    key = run["model"]
    weights, n_params, results = measure_infer(key, run["run"]["points"])
    cases = [complete(run["cases"][0], [gib(weights)],
                      [f"torch.cuda.memory_allocated() after building the model in BF16: {weights} bytes, {n_params} parameters"],
                      context)]
    for case, (c, b, size, peak, in_use, error) in zip(run["cases"][1:], results):
        if error:
            print(f"  {case['id']}: skipped, {error}")
            continue
        if not size:
            print(f"  {case['id']}: skipped, the forward returned no cache")
            continue
        cases.append(complete(case, [gib(size), gib(peak)], [
            f"bytes of every tensor storage in the cache that a {c}-token prefill at batch {b} returned: {size}",
            f"torch.cuda.max_memory_allocated() over that prefill (logits_to_keep=1): {peak} bytes; device in use: {in_use} bytes",
        ], context))
    return cases


def write_case(case, out_dir):
    path = out_dir / f"{case['id']}.json"
    if path.exists():
        # A re-measured case keeps the known gaps marked on its quantities;
        # tolerances are recorded again (npm run validate -- --tighten).
        try:
            old = {m["quantity"]: m for m in json.loads(path.read_text())["measurements"]}
        except (ValueError, KeyError):
            old = {}
        for m in case["measurements"]:
            if "known_gap" in old.get(m["quantity"], {}):
                m["known_gap"] = old[m["quantity"]]["known_gap"]
    with open(path, "w") as f:
        json.dump(case, f, indent=1)
        f.write("\n")
    print(f"  wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


def measure(runs, args, started):
    try:
        import torch
    except ImportError:
        raise SystemExit("measure.py needs PyTorch with CUDA, transformers and PEFT (--plan needs none of them)")
    if not torch.cuda.is_available():
        raise SystemExit("measure.py needs an NVIDIA GPU (torch.cuda.is_available() is false)")
    import transformers

    versions = f"torch {torch.__version__}, transformers {transformers.__version__}"
    try:
        import peft

        versions += f", peft {peft.__version__}"
    except ImportError:
        pass
    # The CUDA context with cuBLAS loaded, its workspace freed again.
    a = torch.ones(256, 256, device="cuda", dtype=torch.bfloat16)
    (a @ a).sum().item()
    del a
    reset()
    _, total = torch.cuda.mem_get_info()
    context = {"gpu": torch.cuda.get_device_name(0), "total_gib": round(total / GiB, 2),
               "today": datetime.date.today().isoformat(), "versions": versions, "cuda_context": device_used()}
    print(f"{context['gpu']}, {context['total_gib']} GiB; {versions}; CUDA context {context['cuda_context']} bytes")

    out_dir = Path(args.out)
    written, skipped, failed = [], [], []
    # Estimates scaled by how long the runs so far took against theirs, when longer.
    spent, estimated = 0.0, 0.0
    for i, run in enumerate(runs):
        elapsed = time.time() - started
        scale = max(1.0, spent / estimated) if estimated else 1.0
        if elapsed + run["estimate_s"] * scale > args.budget_s:
            skipped = runs[i:]
            break
        missing = missing_modules(run["requires"] + (["peft"] if run["kind"] == "finetune" and run["run"]["mode"] == "lora" else []))
        if missing:
            failed.append((run, f"needs {', '.join(missing)}"))
            print(f"[{elapsed:4.0f} s] {run['name']}: skipped, needs {', '.join(missing)}")
            continue
        print(f"[{elapsed:4.0f} s] {run['name']} (estimate {run['estimate_s'] * scale:.0f} s)", flush=True)
        t0 = time.time()
        try:
            cases = run_train(run, args, context) if run["kind"] == "finetune" else run_infer(run, args, context)
        except torch.cuda.OutOfMemoryError as e:
            cases = None
            failed.append((run, f"out of memory: {str(e).splitlines()[0]}"))
        except Exception as e:  # one broken run must not lose the others
            cases = None
            failed.append((run, f"{type(e).__name__}: {e}"))
        reset()
        spent += time.time() - t0
        estimated += run["estimate_s"]
        if cases is None:
            print(f"  failed: {failed[-1][1]}")
            continue
        for c in cases:
            if args.dry_run:
                print(json.dumps(c, indent=1))
            else:
                write_case(c, out_dir)
            m = c["measurements"]
            print(f"  {c['id']}: " + ", ".join(f"{x['quantity']} {x['value']:.3f} {x['unit']}" for x in m))
        written += cases
        print(f"  {time.time() - t0:.0f} s", flush=True)

    print(f"\n{len(written)} cases from {len(runs) - len(skipped) - len(failed)} runs in {time.time() - started:.0f} s"
          f" (budget {args.budget_s:.0f} s)")
    for run, why in failed:
        print(f"not measured: {run['name']}: {why}")
    if skipped:
        print(f"skipped, over the budget ({len(skipped)} runs): " + ", ".join(r["name"] for r in skipped))
    if written and not args.dry_run:
        print("now run `npm run validate -- --tighten` to record tolerances")


def main(argv=None):
    started = time.time()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plan", action="store_true", help="print the planned runs and their cases as JSON; needs no torch")
    parser.add_argument("--dry-run", action="store_true", help="measure, print the cases, write nothing")
    parser.add_argument("--budget-s", type=float, default=480.0,
                        help="wall-clock budget in seconds: no run starts that its estimate would carry past it (480)")
    parser.add_argument("--contexts", type=int, nargs="+", default=[1024, 4096, 16384], help="inference contexts")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 4], help="inference batches")
    parser.add_argument("--train-seq", type=int, default=2048,
                        help="the sequence of the fine-tuning runs that do not vary it (2048)")
    parser.add_argument("--steps", type=int, default=3, help="training steps per run, at least 2 (3)")
    parser.add_argument("--only", nargs="+", metavar="TEXT", help="only the runs whose name or a case id contains TEXT")
    parser.add_argument("--out", default=str(CASES), help="where to write the cases (tests/validation/cases)")
    args = parser.parse_args(argv)
    if args.steps < 2:
        parser.error("--steps must be at least 2: the figure comes from the steps after the first")
    for name, values in (("--contexts", args.contexts), ("--batches", args.batches), ("--train-seq", [args.train_seq])):
        if any(v < 1 for v in values):
            parser.error(f"{name} takes positive whole numbers")
    runs = make_plan(args)
    if args.plan:
        print_plan(runs, args)
        return
    measure(runs, args, started)


if __name__ == "__main__":
    main()
