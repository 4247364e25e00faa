// The module resolve hook of node20-bridge.mjs: the conformance suite's
// import of 'fs' resolves to ./fs-glob.mjs; every other import, that
// module's own import of node:fs included, resolves as usual.
const SUITE = '/node_modules/@modelcontextprotocol/conformance/';
const GLOB_FS = new URL('./fs-glob.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes(SUITE)) return { url: GLOB_FS, shortCircuit: true };
  return nextResolve(specifier, context);
}
