// Fixes this project applies to the Moddable SDK 8.2.3 it extracts from the
// archive (tools/sdk.mjs), each a bug in the SDK's own sources that the
// firmware hits, with the evidence. An engineer's own SDK (MODDABLE) is never
// edited: tools/sdk.mjs says which fixes it lacks.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SDK_PATCHES = [
  {
    id: 'xsre-regexp-data',
    file: 'xs/sources/xsre.c',
    // fxAllocateRegExpData allocates a RegExp's match data from the XS heap as a
    // chunk and then, the `else` missing, overwrites it with a c_malloc block.
    // RegExp.prototype.exec calls it for a regular expression that has no data
    // yet, which is every regular expression xsl PRELOADED (created at a
    // module's top level), and keeps the block in a stack slot of the RegExp
    // kind: the next garbage collection marks and sweeps it as a chunk (valgrind:
    // "Invalid read of size 4 at fxMarkValue ... 16 bytes before a block of size
    // 20 alloc'd by fxAllocateRegExpData") and the runtime dies with SIGSEGV in
    // fx_RegExp_prototype_exec. The firmware crashed at boot in the SDK's lin
    // runtime whenever the heap's layout put a collection there (a device folder
    // named /tmp/desk-lin-XXXXXX did). fxCompileRegExp in the same file has the
    // `else`; so does this function's mxRun twin in XS's history.
    before: '\tif (the)\n\t\tdata = fxNewChunk(the, size);\n#endif\n\t{\n\t\tdata = c_malloc(size);',
    after: '\tif (the)\n\t\tdata = fxNewChunk(the, size);\n\telse\n#endif\n\t{\n\t\tdata = c_malloc(size);',
  },
];

/** One string naming the fixes, kept in the extracted SDK's stamp: a new fix re-extracts. */
export const SDK_PATCHES_ID = SDK_PATCHES.map((p) => p.id).join(',');

/** The fixes an SDK folder still lacks (their `before` text is there). */
export function missingPatches(moddable) {
  return SDK_PATCHES.filter((p) => {
    const file = join(moddable, p.file);
    return existsSync(file) && readFileSync(file, 'utf8').includes(p.before);
  });
}

/** Applies every fix to an SDK folder this project extracted; throws when a fix finds neither its before nor its after text. */
export function applySdkPatches(moddable, log = () => {}) {
  for (const p of SDK_PATCHES) {
    const file = join(moddable, p.file);
    const text = readFileSync(file, 'utf8');
    if (text.includes(p.after)) continue;
    if (!text.includes(p.before)) throw new Error(`SDK fix ${p.id}: ${p.file} has neither the text it fixes nor the fix`);
    writeFileSync(file, text.replace(p.before, p.after));
    log(`sdk: applied fix ${p.id} to ${p.file}`);
  }
}
