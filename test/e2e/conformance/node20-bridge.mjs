// Loaded with `node --import` into the MCP conformance suite's own process
// (test/e2e/mcp-conformance.test.ts), never into the project's: the suite
// (@modelcontextprotocol/conformance 0.1.16) imports `globSync` from 'fs',
// which Node has only since 22, while this project runs on Node 20.19 and
// later. On a Node without it, a resolve hook hands the suite's import of
// 'fs' a module that is node:fs plus globSync (./fs-glob.mjs); on Node 22
// and later nothing is registered and the suite runs untouched.
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') register('./fs-hooks.mjs', import.meta.url);
