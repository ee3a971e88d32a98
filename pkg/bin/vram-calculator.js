#!/usr/bin/env node
// `npx vram-calculator <command> [flags]`: the vramcalc command line,
// compiled from the same C++ sources as the native program to WebAssembly
// (cli/vramcalc.js and .wasm). The program reads and writes the real files
// and streams itself and exits with its own status: this file only hands it
// the arguments and its bytes.
'use strict';

const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const cli = join(__dirname, '..', 'cli');

let wasmBinary;
try {
  wasmBinary = readFileSync(join(cli, 'vramcalc.wasm'));
} catch (error) {
  process.stderr.write(`vram-calculator: cannot read the program: ${error.message}\n`);
  process.exit(1);
}

require(join(cli, 'vramcalc.js'))({
  arguments: process.argv.slice(2),
  thisProgram: 'vramcalc',
  wasmBinary,
}).catch((error) => {
  // Reached only when the module cannot start (a Node without WebAssembly
  // exceptions, a damaged file); the program's own errors exit with 1 or 2.
  process.stderr.write(`vram-calculator: cannot start the program: ${error && error.message}\n`);
  process.exit(1);
});
