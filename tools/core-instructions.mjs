// The core's cost in instructions, not milliseconds: a clock on a shared
// machine moves by half within an hour, an instruction count does not.
// Runs `count` estimates of the page's first request (context varied as the
// bench's recomputes vary it) through the built module under Node; run it
// under callgrind twice, with two counts, and the difference divided by
// theirs is one estimate's instructions, start-up left out:
//
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//     node --liftoff --no-wasm-tier-up --single-threaded tools/core-instructions.mjs 10
//   ... the same with 110
//
// (Over 50 estimates the figure moves by a few percent from run to run, the
// first calls' lazy compilation and the collector's timing in it; over 100
// by one to four: 2,611 M and 2,724 M for one module at 110 on 2026-12-03.
// Count each side several times in turn, and take a gain of a few percent
// as unmeasured.)
// --liftoff --no-wasm-tier-up: V8's baseline code, what a page's first
// changes run; --no-liftoff: its optimised code, what they run later.
// docs/performance.md has the figures. Prints the answers' total length,
// so two builds that must answer alike can be compared by it too.
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const count = Number(process.argv[2] ?? 10);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { default: createVramModule } = await import(join(root, 'build/wasm/module/vram.js'));
const module = await createVramModule();
module.call('presets', '{}');
module.call('schema', '{}');
const request = { model: 'guide-70b', weights: 'fp8', gpu: 'h100-sxm', gpu_count: 1, kv: 'fp16', batch: 1, engine: 'guide', min_tokens_per_s: 10 };
let length = 0;
for (let i = 0; i < count; i++) length += module.call('estimate', JSON.stringify({ ...request, context: 4096 << (i % 4) })).length;
console.log(`${count} estimates, ${length} characters of answers`);
