// Lint: typescript-eslint's recommended rules everywhere, plus the house rule
// that src/ (the firmware) stays host-independent and runs on XS.
import { relative, sep } from 'node:path';
import { builtinRules } from 'eslint/use-at-your-own-risk';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'assert', 'buffer', 'child_process', 'cluster', 'crypto', 'dgram', 'dns', 'events', 'fs', 'fs/promises', 'http', 'http2',
  'https', 'net', 'os', 'path', 'perf_hooks', 'process', 'readline', 'stream', 'string_decoder', 'timers', 'tls', 'tty',
  'url', 'util', 'v8', 'vm', 'worker_threads', 'zlib',
];
const moddableNames = ['preference', 'flash', 'timer', 'time', 'wifi', 'mdns', 'gap', 'gatt', 'files', 'ssl', 'instrumentation', 'debug', 'system', 'socket', 'securesocket', 'sntp', 'resource'];

/**
 * desk/no-module-binding-writes: the firmware module is preloaded on the device (xsl), which
 * freezes every module-level binding of it once its top level has run: assigning one from a
 * function (after boot) throws "TypeError: set <name>: const" on the device and in the SDK's
 * desktop runtime, while the simulator, which does not preload, runs on. Top-level code runs
 * during the preload and may assign; everything else keeps its state in objects made at boot.
 * (Objects made at the top level stay writable: XS gives each an alias it copies on write.)
 */
const noModuleBindingWrites = {
  meta: {
    type: 'problem',
    docs: { description: 'no assignment to a module-level binding from a function: preloading freezes them' },
    messages: {
      frozen:
        "'{{name}}' is a module-level binding: the device preloads this module and freezes its bindings, so assigning it from a function throws (TypeError: set {{name}}: const). Keep the state in an object made at boot (or a property of a module-level object).",
    },
    schema: [],
  },
  create(context) {
    return {
      'Program:exit'(program) {
        const global = context.sourceCode.getScope(program);
        const top = global.childScopes.find((s) => s.type === 'module') ?? global;
        for (const variable of top.variables) {
          for (const ref of variable.references) {
            if (!ref.isWrite() || ref.init || ref.from.variableScope === top) continue;
            context.report({ node: ref.identifier, messageId: 'frozen', data: { name: variable.name } });
          }
        }
      },
    };
  },
};

/**
 * desk/no-module-global-regexp: a RegExp made at the top level of a preloaded module is frozen
 * with it, so its lastIndex cannot be written; with the g or y flag every replace, match, exec or
 * test writes it and throws ("xsSet lastIndex: not writable") on the device and in the SDK's
 * desktop runtime. Module-level expressions go without those flags (src/util/replace.ts replaces
 * every match without writing lastIndex).
 */
const FUNCTION_NODES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression', 'PropertyDefinition']);
const noModuleGlobalRegexp = {
  meta: {
    type: 'problem',
    docs: { description: 'no g or y flag on a module-level regular expression: preloading freezes it' },
    messages: {
      frozen:
        'A module-level regular expression is frozen by the preload: with the {{flag}} flag every use writes its lastIndex and throws on the device. Drop the flag (src/util/replace.ts replaces every match without it).',
    },
    schema: [],
  },
  create(context) {
    const check = (node, flags) => {
      const flag = /[gy]/.exec(flags ?? '')?.[0];
      if (!flag) return;
      if (context.sourceCode.getAncestors(node).some((a) => FUNCTION_NODES.has(a.type) && !(a.type === 'PropertyDefinition' && a.static))) return;
      context.report({ node, messageId: 'frozen', data: { flag } });
    };
    return {
      'Literal[regex]'(node) {
        check(node, node.regex.flags);
      },
      'NewExpression[callee.name="RegExp"], CallExpression[callee.name="RegExp"]'(node) {
        const flags = node.arguments[1];
        if (flags?.type === 'Literal' && typeof flags.value === 'string') check(node, flags.value);
      },
    };
  },
};

/**
 * desk/no-module-frozen-object-writes: preloading freezes the instances a module's top level made
 * that XS cannot copy on write: Map, Set, WeakMap, WeakSet, Date, ArrayBuffer and the views on
 * one. Changing one from a function (set, add, delete, clear, fill, an element assignment ...)
 * throws on the device ("this: read-only Map instance", "read-only buffer"). Filling a table at
 * the top level is fine; a cache or a scratch buffer is made at boot. (Passing such a buffer to a
 * function that writes it is not seen here.)
 */
const FROZEN_KINDS = /^(Map|Set|WeakMap|WeakSet|Date|ArrayBuffer|SharedArrayBuffer|DataView|(Big)?(Int|Uint|Float)(8|16|32|64)(Clamped)?Array)$/;
const MUTATING_METHODS = new Set(['add', 'delete', 'clear', 'fill', 'copyWithin', 'reverse', 'sort', 'transfer', 'resize']);
/** The constructor a top-level initializer makes its value with (new X(...), or new X(...).fill(...)), or null. */
function constructedKind(init) {
  let node = init;
  while (node) {
    if (node.type === 'NewExpression') return node.callee.type === 'Identifier' && FROZEN_KINDS.test(node.callee.name) ? node.callee.name : null;
    if (node.type === 'CallExpression') node = node.callee.type === 'MemberExpression' ? node.callee.object : null;
    else if (node.type === 'TSAsExpression' || node.type === 'TSNonNullExpression') node = node.expression;
    else return null;
  }
  return null;
}
const noModuleFrozenObjectWrites = {
  meta: {
    type: 'problem',
    docs: { description: 'no change from a function to a Map, Set, Date or buffer made at the top level: preloading freezes them' },
    messages: {
      frozen:
        "'{{name}}' is a {{kind}} made at the top level: the device preloads it read-only (XS cannot copy a {{kind}} on write), so changing it from a function throws. Make it at boot (or fill it at the top level only).",
    },
    schema: [],
  },
  create(context) {
    return {
      'Program:exit'(program) {
        const global = context.sourceCode.getScope(program);
        const top = global.childScopes.find((s) => s.type === 'module') ?? global;
        for (const variable of top.variables) {
          const def = variable.defs[0];
          const kind = def?.type === 'Variable' && def.node.init ? constructedKind(def.node.init) : null;
          if (!kind) continue;
          for (const ref of variable.references) {
            if (ref.from.variableScope === top) continue;
            const id = ref.identifier;
            const member = id.parent;
            if (member?.type !== 'MemberExpression' || member.object !== id) continue;
            const name = member.computed ? null : member.property.name;
            const called = member.parent?.type === 'CallExpression' && member.parent.callee === member;
            const assigned = (member.parent?.type === 'AssignmentExpression' && member.parent.left === member) || member.parent?.type === 'UpdateExpression';
            if ((called && name && (MUTATING_METHODS.has(name) || name.startsWith('set'))) || (member.computed && assigned)) {
              context.report({ node: member, messageId: 'frozen', data: { name: variable.name, kind } });
            }
          }
        }
      },
    };
  },
};

/**
 * Sizes (docs/architecture.md, "Sizes"): no file in src/ over 500 lines, counted raw as
 * test/unit/repo-checks.test.ts counts them, and no function over 80 lines (blank lines and
 * comments not counted), except the functions named below. An exception names its file and its
 * function: a declarative table (a function that returns the array of a subsystem's tools,
 * routes or console commands: one entry after another, each short) may be as long as its
 * table; anything else is split into named steps. The temporary ones wait for work under way
 * elsewhere. A named function that is no longer over the limit (or no longer there) fails the
 * lint too, so the list only shrinks to what is true.
 */
const FILE_MAX_LINES = 500;
const FUNCTION_MAX_LINES = 80;
const DECLARATIVE_TABLES = {
  'src/agents/tools.ts': ['fabricTools'],
  'src/chat/tools.ts': ['chatTools'],
  'src/files/routes.ts': ['fileRoutes'],
  'src/files/tools.ts': ['fileTools'],
  'src/mcp/fixtures.ts': ['fixtureTools'],
  'src/memory/console.ts': ['memoryCommands'],
  'src/memory/routes.ts': ['memoryRoutes'],
  'src/providers/console.ts': ['wireCommands'],
  'src/schedule/tools.ts': ['scheduleTools'],
  'src/wifi/console.ts': ['wifiCommands'],
};

/** The name a function goes by: its own, its variable's, or its method's or property's key. */
function functionName(node) {
  const fn = node.type === 'MethodDefinition' || node.type === 'Property' ? node.value : node;
  if (fn.id?.name) return fn.id.name;
  const p = fn.parent;
  if (p?.type === 'VariableDeclarator' && p.id.type === 'Identifier') return p.id.name;
  if ((p?.type === 'MethodDefinition' || p?.type === 'Property' || p?.type === 'PropertyDefinition') && p.key.type === 'Identifier') return p.key.name;
  return null;
}

/**
 * desk/max-lines-per-function: ESLint's own max-lines-per-function (it counts), quiet for the
 * functions its options name by file ({ allow: { 'src/x.ts': ['name'] } }), and failing a named
 * function that is no longer over the limit.
 */
const coreMaxLinesPerFunction = builtinRules.get('max-lines-per-function');
const maxLinesPerFunction = {
  meta: {
    type: 'suggestion',
    docs: { description: 'max-lines-per-function, with its exceptions named by file and function' },
    messages: {
      ...coreMaxLinesPerFunction.meta.messages,
      stale: "'{{name}}' is named in eslint.config.js as an exception to the {{max}}-line limit, but no function of that name here is over it: take it off the list.",
    },
    schema: [
      {
        type: 'object',
        properties: {
          max: { type: 'integer', minimum: 0 },
          skipBlankLines: { type: 'boolean' },
          skipComments: { type: 'boolean' },
          allow: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
        },
        additionalProperties: false,
      },
    ],
  },
  create(context) {
    const { allow = {}, ...options } = context.options[0] ?? {};
    const file = relative(context.cwd, context.filename).split(sep).join('/');
    const allowed = new Set(allow[file] ?? []);
    const used = new Set();
    const counting = Object.create(context, {
      options: { value: [options] },
      report: {
        value: (descriptor) => {
          const name = functionName(descriptor.node);
          if (name !== null && allowed.has(name)) used.add(name);
          else context.report(descriptor);
        },
      },
    });
    const listeners = coreMaxLinesPerFunction.create(counting);
    return {
      ...listeners,
      'Program:exit'(program) {
        listeners['Program:exit']?.(program);
        for (const name of allowed) if (!used.has(name)) context.report({ node: program, messageId: 'stale', data: { name, max: options.max } });
      },
    };
  },
};

export default tseslint.config(
  // XS scripts for the runtime's own tests include deliberately broken ones.
  { ignores: ['node_modules/**', 'build/**', '.sim/**', 'test-results/**', 'hosts/sim/runtime/tests/**', 'hosts/esp32/native/*.js', 'hosts/lin/native/*.js'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { disallowTypeAnnotations: false }],
      // Closures over a named `this` read more plainly than arrow gymnastics in host fakes.
      '@typescript-eslint/no-this-alias': 'off',
    },
  },
  {
    files: ['src/**/*.ts', 'modules/**/*.ts', 'hosts/sim/hal/**/*.ts'],
    ignores: ['src/web/page/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltins.map((name) => ({ name, message: 'src/ is host-independent: Node built-ins live in hosts/ only.' })),
            ...moddableNames.map((name) => ({ name, message: 'src/ is host-independent: Moddable modules live in hosts/esp32 only.' })),
          ],
          patterns: [
            { regex: '^node:', message: 'src/ is host-independent: Node built-ins live in hosts/ only.' },
            { regex: '^(embedded:|pins/|piu/|commodetto/|bluetoothle/)', message: 'src/ is host-independent: Moddable modules live in hosts/esp32 only.' },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'No Node globals in src/: go through the HAL.' },
        { name: 'Buffer', message: 'No Node globals in src/: use Uint8Array and src/util.' },
        { name: 'require', message: 'ES modules only.' },
        { name: 'Intl', message: 'XS has no Intl.' },
        { name: 'TextEncoder', message: 'XS has no TextEncoder: use src/util/utf8.ts.' },
        { name: 'TextDecoder', message: 'XS has no TextDecoder: use src/util/utf8.ts.' },
        { name: 'setTimeout', message: 'Time goes through the HAL clock (virtual in tests).' },
        { name: 'setInterval', message: 'Time goes through the HAL clock (virtual in tests).' },
        { name: 'Date', message: 'Time goes through the HAL clock; format with src/util.' },
        { name: 'console', message: 'Log through the firmware log (src/log), not console.' },
        { name: 'window', message: 'No DOM in the firmware.' },
        { name: 'document', message: 'No DOM in the firmware.' },
        { name: 'fetch', message: 'Network goes through the HAL sockets.' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: ':function Literal[regex]',
          message: 'Make this regular expression a module constant: XS compiles a literal every time it is evaluated (about 40 us).',
        },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'String', property: 'prototype', message: 'Do not extend built-ins.' },
        { property: 'toLocaleString', message: 'XS has no Intl: format by hand.' },
        { property: 'localeCompare', message: 'XS has no Intl: compare code units.' },
      ],
    },
  },
  // Everything bundled into a preloaded firmware module (the device's, the SDK desktop runtime's).
  {
    files: ['src/**/*.ts', 'modules/**/*.ts', 'boards/**/*.ts', 'hosts/esp32/**/*.ts', 'hosts/lin/**/*.ts'],
    ignores: ['src/web/page/**', 'modules/*/test/**'],
    plugins: {
      desk: { rules: { 'no-module-binding-writes': noModuleBindingWrites, 'no-module-global-regexp': noModuleGlobalRegexp, 'no-module-frozen-object-writes': noModuleFrozenObjectWrites } },
    },
    rules: {
      'desk/no-module-binding-writes': 'error',
      'desk/no-module-global-regexp': 'error',
      'desk/no-module-frozen-object-writes': 'error',
    },
  },
  // XS's JSON.stringify refuses an object a preloaded module keeps in flash ("read only value"): src/util/json.ts's stringify takes them.
  {
    files: ['src/**/*.ts', 'modules/**/*.ts', 'boards/**/*.ts', 'hosts/esp32/**/*.ts', 'hosts/lin/**/*.ts'],
    ignores: ['src/web/page/**', 'modules/*/test/**', 'src/util/json.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'JSON', property: 'stringify', message: "Use stringify() from src/util/json.ts: on the device XS's JSON.stringify throws on the objects a preloaded module made at its top level." },
        { object: 'String', property: 'prototype', message: 'Do not extend built-ins.' },
        { property: 'toLocaleString', message: 'XS has no Intl: format by hand.' },
        { property: 'localeCompare', message: 'XS has no Intl: compare code units.' },
      ],
    },
  },
  // The device host (and the lin host of the SDK's desktop runtime) runs on XS too: Moddable modules are its business, Node's are not.
  {
    files: ['hosts/esp32/**/*.ts', 'hosts/esp32/**/*.js', 'hosts/lin/**/*.ts', 'hosts/lin/**/*.js'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          // 'net' is also the Moddable SDK's network module, which this host uses.
          paths: nodeBuiltins.filter((name) => name !== 'net').map((name) => ({ name, message: 'hosts/esp32 runs on XS: no Node built-ins.' })),
          patterns: [{ regex: '^node:', message: 'hosts/esp32 runs on XS: no Node built-ins.' }],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'hosts/esp32 runs on XS: no Node globals.' },
        { name: 'Buffer', message: 'hosts/esp32 runs on XS: no Node globals.' },
        { name: 'require', message: 'ES modules only.' },
        { name: 'Intl', message: 'XS has no Intl.' },
        { name: 'TextEncoder', message: 'XS has no TextEncoder: use src/util/utf8.ts.' },
        { name: 'TextDecoder', message: 'XS has no TextDecoder: use src/util/utf8.ts.' },
        { name: 'console', message: 'Log through the HAL (trace), not console.' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: ':function Literal[regex]',
          message: 'Make this regular expression a module constant: XS compiles a literal every time it is evaluated (about 40 us).',
        },
      ],
    },
  },
  // Sizes: the limits and their named exceptions (above, and docs/architecture.md "Sizes").
  {
    files: ['src/**/*.ts'],
    plugins: { sizes: { rules: { 'max-lines-per-function': maxLinesPerFunction } } },
    rules: {
      'max-lines': ['error', { max: FILE_MAX_LINES, skipBlankLines: false, skipComments: false }],
      'sizes/max-lines-per-function': [
        'error',
        { max: FUNCTION_MAX_LINES, skipBlankLines: true, skipComments: true, allow: DECLARATIVE_TABLES },
      ],
    },
  },
);
