// The release as its users get it: `tools/release.mjs` packs the tarball,
// and npm installs it into an empty folder (offline: it has no
// dependencies, so no registry is asked). Shared by tests/js and
// tests/browser; one release and one install per test file.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { release } from '../../tools/release.mjs';

let pending = null;

/**
 * Resolves to { version, tarball, files, dir (the folder it is installed
 * in), pkg (its installed folder), bin (node_modules/.bin/vram-calculator),
 * integrity (the installed integrity.json) }.
 */
export function installRelease() {
  if (!pending) {
    pending = release().then((packed) => {
      const dir = mkdtempSync(join(tmpdir(), 'vram-release-'));
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
      writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
      execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', packed.tarball], {
        cwd: dir,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      const pkg = join(dir, 'node_modules/vram-calculator');
      const integrity = JSON.parse(readFileSync(join(pkg, 'integrity.json'), 'utf8'));
      return { ...packed, dir, pkg, bin: join(dir, 'node_modules/.bin/vram-calculator'), integrity };
    });
  }
  return pending;
}
