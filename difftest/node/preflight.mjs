// Preflight of the reference arm: node is new enough, and every vendor SDK imports at exactly the
// version package-lock.json pins. Any failure here makes the harness run DARK (exit 1): a
// reference from a missing or different SDK is no reference. Prints the versions as JSON.
//   node preflight.mjs <difftest dir>
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const MIN_NODE_MAJOR = 20; // the SDKs' oldest supported runtime we test on (peers-probe.md)
const SDKS = ['@anthropic-ai/sdk', 'openai', '@google/genai', 'ollama'];

const source = process.argv[2];
if (!source) { console.error('usage: node preflight.mjs <difftest dir>'); process.exit(2); }
const problems = [];
const major = Number(process.versions.node.split('.')[0]);
if (major < MIN_NODE_MAJOR) problems.push(`node ${process.versions.node} is older than ${MIN_NODE_MAJOR}`);

let lock = {};
try { lock = JSON.parse(readFileSync(path.join(source, 'package-lock.json'), 'utf8')); }
catch (e) { problems.push(`cannot read ${source}/package-lock.json: ${e.message}`); }

const require = createRequire(import.meta.url);
const versions = {};
for (const sdk of SDKS) {
  const pinned = lock.packages?.[`node_modules/${sdk}`]?.version;
  if (!pinned) { problems.push(`${sdk} is not pinned in package-lock.json`); continue; }
  try {
    await import(sdk);
    // The installed version, read from the package the import resolved to.
    let dir = path.dirname(require.resolve(sdk));
    let installed;
    while (dir !== path.dirname(dir)) {
      try {
        const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
        if (pkg.name === sdk) { installed = pkg.version; break; }
      } catch { /* keep walking up */ }
      dir = path.dirname(dir);
    }
    versions[sdk] = installed;
    if (installed !== pinned) problems.push(`${sdk} ${installed} is installed but ${pinned} is pinned (run npm ci)`);
  } catch (e) {
    problems.push(`${sdk} does not import (${e.code ?? e.name}): run npm ci in difftest/`);
  }
}
if (problems.length) { console.error(problems.join('\n')); process.exit(1); }
console.log(JSON.stringify({ node: process.versions.node, sdks: versions }));
