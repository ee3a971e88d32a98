#!/usr/bin/env python3
"""Measure real GPU memory and write validation cases.

Builds models from config with random weights (nothing is downloaded),
measures on the GPU what the calculator predicts, and writes one case per
configuration to tests/validation/cases/measured-*.json in the set's format:
the calculator request that reproduces the run, the measured quantities and
where the prediction lives in the calculator's answer.

Measured (PyTorch allocator statistics: the CUDA context is not included, so
each request sets overhead_gb to 0 for fine-tuning):
  - weights resident after loading, per model;
  - the KV cache after a prefill, at several contexts and batches (the
    tensors of the returned cache, summed);
  - the peak of one LoRA training step (PEFT, rank 16 on q/k/v/o, gradient
    checkpointing, SDPA attention, AdamW);
  - the peak of one full fine-tuning step with AdamW (pure BF16).

Needs an NVIDIA GPU with about 40 GB free, PyTorch and transformers (PEFT
for the LoRA step, skipped without it). Runs in about five minutes on an
H100/H200. See tools/measure/README.md.
"""

import argparse
import datetime
import gc
import json
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "validation" / "cases"
GiB = 2**30


def load_config(relative):
    with open(ROOT / relative) as f:
        return json.load(f)


# Models to measure: (name, preset id or None, config source, features).
# Real configs from tests/configs; a small MoE cut from Qwen3-30B-A3B.
def models():
    qwen_moe = load_config("tests/configs/qwen3-30b-a3b/config.json")
    qwen_moe.update({"num_hidden_layers": 6})
    return [
        ("llama-3.2-1b", "llama-3.2-1b", load_config("tests/configs/llama-3.2-1b/config.json"), ["gqa"]),
        ("qwen2.5-0.5b", "qwen2.5-0.5b", load_config("tests/configs/qwen2.5-0.5b/config.json"), ["gqa"]),
        ("gemma-3-1b", "gemma-3-1b", load_config("tests/configs/gemma-3-1b-it/config.json"), ["sliding-window", "gqa"]),
        ("qwen3-moe-6-layers", None, qwen_moe, ["moe", "gqa"]),
    ]


def hf_config(config_dict):
    from transformers import AutoConfig

    d = dict(config_dict)
    model_type = d.pop("model_type")
    return AutoConfig.for_model(model_type, **d)


def build(config_dict, attn="sdpa"):
    from transformers import AutoModelForCausalLM

    config = hf_config(config_dict)
    config._attn_implementation = attn
    with torch.device("cuda"):
        try:
            model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)  # transformers 5
        except TypeError:
            model = AutoModelForCausalLM.from_config(config, torch_dtype=torch.bfloat16)
    model.eval()
    return model


def tensors_in(obj, seen=None):
    """Every tensor reachable from a cache object (layouts differ by version)."""
    seen = seen if seen is not None else set()
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from tensors_in(item, seen)
    elif isinstance(obj, dict):
        for item in obj.values():
            yield from tensors_in(item, seen)
    elif hasattr(obj, "__dict__"):
        for item in vars(obj).values():
            yield from tensors_in(item, seen)


def kv_bytes(cache):
    return sum(t.numel() * t.element_size() for t in tensors_in(cache) if t.is_cuda)


def reset():
    gc.collect()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()


def model_ref(preset, config):
    return {"model": preset} if preset else {"config": config, "name": "measured config"}


def measure_inference(name, preset, config, features, contexts, batches):
    reset()
    before = torch.cuda.memory_allocated()
    model = build(config)
    weights = torch.cuda.memory_allocated() - before
    measurements = [{
        "quantity": "weights_gib", "value": weights / GiB, "unit": "GiB", "predict": "term:weights",
        "quote": f"torch.cuda.memory_allocated() after building the model: {weights} bytes",
    }]
    vocab = model.config.get_text_config().vocab_size if hasattr(model.config, "get_text_config") else model.config.vocab_size
    cases = []
    for context in contexts:
        for batch in batches:
            ids = torch.randint(0, vocab, (batch, context), device="cuda")
            with torch.no_grad():
                out = model(input_ids=ids, use_cache=True)
            size = kv_bytes(out.past_key_values)
            del out, ids
            reset()
            request = {**model_ref(preset, config), "weights": "bf16", "kv": "bf16", "context": context, "batch": batch}
            cases.append((context, batch, size, request))
    del model
    reset()
    return measurements, cases, features


def train_step(model, seq):
    """Peak allocated memory over one forward, backward and AdamW step."""
    model.train()
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-5)
    ids = torch.randint(0, model.config.vocab_size, (1, seq), device="cuda")
    reset()
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    peak = torch.cuda.max_memory_allocated()
    del model, optimizer, loss, ids
    reset()
    return peak


def lora_step(config, seq, rank=16):
    from peft import LoraConfig, get_peft_model

    model = build(config)
    model.gradient_checkpointing_enable()
    model.enable_input_require_grads()
    targets = ["q_proj", "k_proj", "v_proj", "o_proj"]
    return train_step(get_peft_model(model, LoraConfig(r=rank, lora_alpha=2 * rank, target_modules=targets)), seq)


def full_step(config, seq):
    # torch's AdamW keeps its states in the parameters' dtype: BF16 here.
    return train_step(build(config), seq)


def write_case(case):
    path = OUT / f"{case['id']}.json"
    with open(path, "w") as f:
        json.dump(case, f, indent=1)
        f.write("\n")
    print(f"wrote {path.relative_to(ROOT)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--contexts", type=int, nargs="+", default=[1024, 4096, 16384])
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--train-seq", type=int, default=1024)
    parser.add_argument("--dry-run", action="store_true", help="print the cases, write nothing")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("measure.py needs an NVIDIA GPU (torch.cuda.is_available() is false)")

    import transformers

    gpu = torch.cuda.get_device_name(0)
    total_gib = torch.cuda.get_device_properties(0).total_memory / GiB
    today = datetime.date.today().isoformat()
    versions = f"torch {torch.__version__}, transformers {transformers.__version__}"
    started = time.time()

    def case(case_id, category, features, request, measurements, settings):
        return {
            "id": case_id,
            "category": category,
            "features": features,
            "model": case_id,
            "engine": {"name": "transformers (PyTorch allocator)", "version": versions},
            "hardware": {"gpu": gpu, "count": 1, "total_memory_gib": round(total_gib, 2)},
            "settings": settings,
            "request": request,
            "measurements": measurements,
            "source": {"kind": "measurement", "repo": "this repository", "ref": f"tools/measure/measure.py on {gpu}, {today}",
                       "quote": "; ".join(m["quote"] for m in measurements)},
            "notes": "Measured by this project with random weights built from config; PyTorch allocator statistics, no CUDA context.",
        }

    cases = []
    for name, preset, config, features in models():
        weights, kv_cases, features = measure_inference(name, preset, config, features, args.contexts, args.batches)
        measurements = list(weights)
        for context, batch, size, request in kv_cases:
            measurements.append({
                "quantity": f"kv_cache_gib_{context}x{batch}", "value": size / GiB, "unit": "GiB",
                "predict": "kv_cache_gb", "quote": f"KV cache tensors after a {context}-token prefill, batch {batch}: {size} bytes",
            })
        # One request per KV point would repeat the model; the weights and the
        # first KV point share a case, the others get their own.
        first = kv_cases[0]
        cases.append(case(f"measured-{name}-inference", "inference", features, first[3],
                          [measurements[0], measurements[1]], {"contexts": args.contexts, "batches": args.batches}))
        for (context, batch, size, request), m in zip(kv_cases[1:], measurements[2:]):
            cases.append(case(f"measured-{name}-kv-{context}x{batch}", "inference", features, request, [m],
                              {"context": context, "batch": batch}))
        print(f"{name}: inference measured ({time.time() - started:.0f} s)")

    seq = args.train_seq
    llama = load_config("tests/configs/llama-3.2-1b/config.json")
    try:
        peak = lora_step(llama, seq)
        cases.append(case("measured-llama-3.2-1b-lora-step", "finetune", ["lora", "gqa"],
                          {"model": "llama-3.2-1b", "mode": "lora", "lora_rank": 16, "seq": seq, "micro_batch": 1,
                           "checkpointing": True, "flash_attention": True, "overhead_gb": 0},
                          [{"quantity": "peak_allocated_gib", "value": peak / GiB, "unit": "GiB", "predict": "total_gb",
                            "quote": f"torch.cuda.max_memory_allocated() over one LoRA step: {peak} bytes"}],
                          {"method": "lora", "lora_rank": 16, "targets": ["q_proj", "k_proj", "v_proj", "o_proj"],
                           "seq": seq, "micro_batch": 1, "gradient_checkpointing": True, "attention": "sdpa", "optimizer": "AdamW"}))
        print(f"LoRA step measured ({time.time() - started:.0f} s)")
    except ImportError:
        print("peft is not installed: the LoRA step is skipped")
    peak = full_step(llama, seq)
    cases.append(case("measured-llama-3.2-1b-full-step", "finetune", ["full", "gqa"],
                      {"model": "llama-3.2-1b", "mode": "full", "precision": "bf16", "seq": seq, "micro_batch": 1,
                       "checkpointing": False, "flash_attention": True, "overhead_gb": 0},
                      [{"quantity": "peak_allocated_gib", "value": peak / GiB, "unit": "GiB", "predict": "total_gb",
                        "quote": f"torch.cuda.max_memory_allocated() over one full AdamW step: {peak} bytes"}],
                      {"method": "full", "precision": "bf16", "seq": seq, "micro_batch": 1, "gradient_checkpointing": False,
                       "attention": "sdpa", "optimizer": "AdamW (BF16 states)"}))
    print(f"full step measured ({time.time() - started:.0f} s)")

    for c in cases:
        if args.dry_run:
            print(json.dumps(c, indent=1))
        else:
            write_case(c)
    print(f"{len(cases)} cases in {time.time() - started:.0f} s; now run `npm run validate -- --tighten` to record tolerances")


if __name__ == "__main__":
    main()
