// The firmware's layers and the subsystems' ranks (docs/architecture.md): what
// the architecture test holds every import to, and the boot order test holds
// the order the boot computes to.

/**
 * Layers, low to high: a file may import its own folder and lower layers only.
 * Subsystems rank by SUBSYSTEMS' order: what the device starts first, and
 * what others build on, comes first.
 */
export const LAYERS: Record<string, number> = { modules: 0, util: 1, hal: 1, version: 1, net: 2, log: 2, core: 3, contracts: 4, main: 1000 };
export const SUBSYSTEMS = [
  'timeline', 'outbox', 'storage', 'faults', 'device', 'power', 'auth', 'wifi', 'clock', 'cloud', 'ota', 'web', 'docs',
  'connectors', 'providers', 'memory', 'files', 'search', 'stt', 'audio', 'music', 'system', 'prompt', 'turn',
  'agents', 'skills', 'models', 'images', 'voice', 'chat', 'schedule', 'mcp', 'ui', 'notifier', 'api', 'console',
];
SUBSYSTEMS.forEach((s, i) => (LAYERS[s] = 10 + i));
