// Lint: typescript-eslint's recommended rules everywhere, plus the house rule
// that src/ (the firmware) stays host-independent and runs on XS.
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'assert', 'buffer', 'child_process', 'cluster', 'crypto', 'dgram', 'dns', 'events', 'fs', 'fs/promises', 'http', 'http2',
  'https', 'net', 'os', 'path', 'perf_hooks', 'process', 'readline', 'stream', 'string_decoder', 'timers', 'tls', 'tty',
  'url', 'util', 'v8', 'vm', 'worker_threads', 'zlib',
];
const moddableNames = ['preference', 'flash', 'timer', 'time', 'wifi', 'mdns', 'gap', 'gatt', 'files', 'ssl', 'instrumentation', 'debug', 'system', 'socket', 'securesocket', 'sntp', 'resource'];

export default tseslint.config(
  // XS scripts for the runtime's own tests include deliberately broken ones.
  { ignores: ['node_modules/**', 'build/**', '.sim/**', 'test-results/**', 'hosts/sim/runtime/tests/**', 'hosts/esp32/native/*.js'] },
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
  // The device host runs on XS too: Moddable modules are its business, Node's are not.
  {
    files: ['hosts/esp32/**/*.ts', 'hosts/esp32/**/*.js'],
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
);
