// The package version (package.json's "version"), written in at build time
// by tools/build-page.mjs, so a host can tell which release it runs.
/* global __VRAM_VERSION__ */
export const VERSION = __VRAM_VERSION__;
