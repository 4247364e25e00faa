// Prompt assembly: the block order (the stable blocks first, the cacheable
// prefix apart from the changing rest), the budget, and the documented
// deterministic trim policy.
import { describe, expect, it } from 'vitest';
import { BLOCK_ORDER, DIRECTIVE_MAX, PromptBlocks, type BlockName } from '../../../src/prompt/blocks.ts';
import { utf8Length } from '../../../src/util/utf8.ts';

const input = { chat: 'c', person: null, text: 'hi', memQueries: [], unattended: false };

function blocksWith(texts: Partial<Record<BlockName, string>>, floors: Partial<Record<BlockName, number>> = {}): PromptBlocks {
  const b = new PromptBlocks();
  for (const [name, text] of Object.entries(texts) as Array<[BlockName, string]>) b.register({ name, text: () => text, ...(floors[name] !== undefined ? { floor: floors[name] } : {}) });
  return b;
}

const lines = (head: string, n: number, width = 40): string => [head, ...Array.from({ length: n }, (_, i) => `${i} ${'x'.repeat(width)}`)].join('\n');

describe('prompt blocks', () => {
  it('assembles the blocks in order, the stable ones first, skipping empty ones; the stable part and the rest apart', async () => {
    const names = [...BLOCK_ORDER].reverse();
    const b = blocksWith(Object.fromEntries(names.map((n) => [n, `[${n}]`])));
    const a = await b.assemble(input, 32 * 1024, 0);
    expect(a.text.split('\n\n')).toEqual(BLOCK_ORDER.map((n) => `[${n}]`));
    expect(BLOCK_ORDER).toEqual(['directive', 'capabilities', 'subagent-capabilities', 'providers', 'now', 'scratchpad', 'sessions', 'memories', 'conversation', 'spawn-capacity', 'fresh-results']);
    expect(a.stable).toBe('[directive]\n\n[capabilities]\n\n[subagent-capabilities]\n\n[providers]');
    expect(a.volatile).toBe('[now]\n\n[scratchpad]\n\n[sessions]\n\n[memories]\n\n[conversation]\n\n[spawn-capacity]\n\n[fresh-results]');
    expect(a.text).toBe(`${a.stable}\n\n${a.volatile}`);
    const sparse = await blocksWith({ providers: 'P', directive: 'D', memories: 'M' }).assemble(input, 1000, 0);
    expect(sparse.text).toBe('D\n\nP\n\nM');
    expect([sparse.stable, sparse.volatile]).toEqual(['D\n\nP', 'M']);
  });

  it('the stable part stays the same from turn to turn while the changing part changes (the prefix a provider caches)', async () => {
    let minute = 0;
    const b = new PromptBlocks();
    b.register({ name: 'directive', text: () => 'Be kind.' });
    b.register({ name: 'capabilities', text: () => '[CAPABILITIES]\nTools: a, b' });
    b.register({ name: 'now', text: () => `Now: 09:0${minute}` });
    b.register({ name: 'conversation', text: (i) => `[RECENT CONVERSATION]\nuser: ${i.text}` });
    const first = await b.assemble(input, 32 * 1024, 0);
    minute = 1;
    const second = await b.assemble({ ...input, text: 'and now?' }, 32 * 1024, 0);
    expect(second.stable).toBe(first.stable);
    expect(second.volatile).not.toBe(first.volatile);
    expect(second.text.startsWith(first.stable)).toBe(true);
  });

  it('caps the directive at 1500 bytes without splitting a character', async () => {
    const a = await blocksWith({ directive: 'é'.repeat(1000) }).assemble(input, 32 * 1024, 0);
    expect(utf8Length(a.sections[0]!.text)).toBe(DIRECTIVE_MAX);
  });

  it('trims the recent conversation first, oldest lines first, keeping its heading and floor', async () => {
    const b = blocksWith({ directive: 'D', conversation: lines('[RECENT CONVERSATION]', 50), memories: lines('[MEMORIES]', 5) }, { conversation: 200 });
    const a = await b.assemble(input, 1500, 0);
    const conv = a.sections.find((s) => s.name === 'conversation')!;
    expect(conv.text.startsWith('[RECENT CONVERSATION]\n')).toBe(true);
    expect(conv.text).toContain('49 x');
    expect(conv.text).not.toContain('\n0 x');
    expect(a.sections.find((s) => s.name === 'memories')!.sent).toBe(a.sections.find((s) => s.name === 'memories')!.offered);
    expect(a.bytes).toBeLessThanOrEqual(1500);
    expect(a.overBudget).toBe(false);
  });

  it('then memories from the end, and so on down the policy; the directive never', async () => {
    const b = blocksWith(
      { directive: 'D'.repeat(1400), conversation: lines('[C]', 10), memories: lines('[M]', 10), capabilities: lines('[CAP]', 10) },
      { conversation: 0, memories: 0, capabilities: 0 },
    );
    const a = await b.assemble(input, 2100, 0);
    const by = (n: BlockName) => a.sections.find((s) => s.name === n)!;
    expect(by('directive').sent).toBe(1400);
    expect(by('conversation').text).toBe('');
    expect(by('memories').text.startsWith('[M]\n0 x')).toBe(true);
    expect(by('memories').text).not.toContain('\n9 x');
    expect(by('capabilities').sent).toBe(by('capabilities').offered);
    expect(a.bytes).toBeLessThanOrEqual(2100);
  });

  it('reports going over budget when floors alone do not fit, and is deterministic', async () => {
    const mk = () => blocksWith({ directive: 'D'.repeat(1500), scratchpad: lines('[S]', 20) }, { scratchpad: 800 });
    const a = await mk().assemble(input, 1000, 0);
    const b = await mk().assemble(input, 1000, 0);
    expect(a.overBudget).toBe(true);
    expect(a.text).toBe(b.text);
    expect(a.sections.find((s) => s.name === 'scratchpad')!.sent).toBeGreaterThanOrEqual(800 - 50);
  });

  it('keeps the last assembly for GET /api/mem/working', async () => {
    const b = blocksWith({ providers: '[P]' });
    expect(b.lastAssembled()).toBeNull();
    await b.assemble(input, 100, 42);
    expect(b.lastAssembled()).toMatchObject({ at: 42, bytes: 3 });
  });
});
