// big-bundle.mjs: writes a synthetic bundle shaped like esbuild's IIFE output of a large
// firmware (about 1.2 MB: 6000 declarations in one function scope, 12000+ distinct
// property names, a 300 KB string literal) to the path given, for run.sh.
import { writeFileSync } from 'node:fs';

const out = process.argv[2];
let s = '"use strict";\n(() => {\n';
for (let i = 0; i < 6000; i++) {
  s += `  function f${i}(a, b) { const o = { k${i}: a, ["m" + ${i}]: b, text: "string literal number ${i} with some words" }; return o.k${i} + (b ? f${(i + 1) % 6000}.length : 0); }\n`;
}
s += '  let total = 0;\n  for (let i = 0; i < 6000; i += 10) total += f0(i, 0) >= 0 ? 1 : 0;\n';
s += `  const BIG = "${'x'.repeat(300000)}";\n`;
s += '  __sim.print("big bundle ok " + total + " " + BIG.length + " keys>4096 " + (__sim.heap().keys > 4096));\n})();\n';
writeFileSync(out, s);
