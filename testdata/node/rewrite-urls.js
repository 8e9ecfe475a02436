'use strict';
// Post-processing for gen.sh: read a .cpuprofile written by `node --cpu-prof`,
// replace the absolute file:// URL prefix of this directory (which depends on
// where the repository is checked out) with the stable prefix
// file:///jsprof/testdata/node/, and write the result compactly (same layout as
// Node's own output: JSON.stringify without indentation). Nothing else changes.
//
// Usage: node rewrite-urls.js IN.cpuprofile OUT.cpuprofile SRC_DIR

const fs = require('fs');
const path = require('path');
const {pathToFileURL} = require('url');

const [inFile, outFile, srcDir] = process.argv.slice(2);
if (!inFile || !outFile || !srcDir) {
  console.error('usage: node rewrite-urls.js IN.cpuprofile OUT.cpuprofile SRC_DIR');
  process.exit(2);
}

const STABLE = 'file:///jsprof/testdata/node/';
const prefixes = [
  pathToFileURL(path.resolve(srcDir)).href + '/',
  pathToFileURL(fs.realpathSync(srcDir)).href + '/',
];

const profile = JSON.parse(fs.readFileSync(inFile, 'utf8'));
let rewritten = 0;
for (const node of profile.nodes) {
  const cf = node.callFrame;
  if (!cf || typeof cf.url !== 'string') continue;
  for (const p of prefixes) {
    if (cf.url.startsWith(p)) {
      cf.url = STABLE + cf.url.slice(p.length);
      rewritten++;
      break;
    }
  }
}
const leftover = profile.nodes.filter(n => /^file:\/\//.test(n.callFrame?.url ?? '') &&
                                          !n.callFrame.url.startsWith(STABLE));
if (leftover.length) {
  console.error(`rewrite-urls: ${leftover.length} file:// URLs outside ${srcDir}, e.g. ${leftover[0].callFrame.url}`);
  process.exit(1);
}
fs.writeFileSync(outFile, JSON.stringify(profile));
console.error(`rewrite-urls: ${path.basename(outFile)}: ${rewritten} URLs rewritten`);
