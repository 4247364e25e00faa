import { describe, expect, it } from 'vitest';
import { isProtectedConfigKey, validateAction, validateActions, type ActionResult } from '../../../src/contracts/device-actions.ts';
import { ACTION_KINDS, CONFIG_KEY_NAMES, PROTECTED_CONFIG_KEYS } from '../../../src/contracts/device-contract.ts';

/** A strict-output element: every kind key present, all but the given one null. */
function el(kind: string, params: unknown): Record<string, unknown> {
  const o: Record<string, unknown> = Object.fromEntries(ACTION_KINDS.map((k) => [k, null]));
  o[kind] = params;
  return o;
}
/** A strict-output config: every allow-listed key null except those given. */
function cfg(values: Record<string, unknown>): Record<string, unknown> {
  return { ...Object.fromEntries(CONFIG_KEY_NAMES.map((k) => [k, null])), ...values };
}
const refused = (r: ActionResult) => (r.ok ? null : r.reason);

describe('element shape', () => {
  it('refuses non-objects', () => {
    for (const v of [null, 1, 'led', [], [{ reboot: true }], true]) expect(refused(validateAction(v))).toBe('not-object');
  });

  it('refuses an element with no kind set', () => {
    expect(refused(validateAction({}))).toBe('no-kind');
    expect(refused(validateAction(Object.fromEntries(ACTION_KINDS.map((k) => [k, null]))))).toBe('no-kind');
    expect(refused(validateAction({ reboot: false }))).toBe('no-kind');
  });

  it('refuses an element with several kinds', () => {
    expect(refused(validateAction({ reboot: true, lights: { value: 'off' } }))).toBe('several-kinds');
    expect(refused(validateAction({ led: { mode: 'solid' }, tts: { text: 'hi' } }))).toBe('several-kinds');
  });

  it('refuses an unknown kind, alone or beside a valid one', () => {
    expect(refused(validateAction({ dance: { speed: 3 } }))).toBe('unknown-kind');
    expect(refused(validateAction({ lights: { value: 'off' }, dance: true }))).toBe('unknown-kind');
  });

  it('ignores unknown keys that are null', () => {
    expect(validateAction({ lights: { value: 'off' }, dance: null }).ok).toBe(true);
  });

  it('accepts the compact form (only the kind key) and the strict form (all kinds, others null)', () => {
    expect(validateAction({ lights: { value: 'full' } })).toEqual({ ok: true, action: { kind: 'lights', value: 'full' } });
    expect(validateAction(el('lights', { value: 'full' }))).toEqual({ ok: true, action: { kind: 'lights', value: 'full' } });
  });
});

describe('led', () => {
  const led = (p: unknown) => validateAction(el('led', p));

  for (const mode of ['solid', 'spinner', 'pulse', 'flash', 'rainbow']) {
    it(`mode ${mode}`, () => {
      expect(led({ mode, color: { r: 0, g: 128, b: 255 }, brightness: 200 })).toEqual({
        ok: true,
        action: { kind: 'led', mode, color: { r: 0, g: 128, b: 255 }, brightness: 200 },
      });
    });
  }

  it('null or absent color and brightness keep the current ones', () => {
    expect(led({ mode: 'rainbow', color: null, brightness: null })).toEqual({ ok: true, action: { kind: 'led', mode: 'rainbow', color: null, brightness: null } });
    expect(led({ mode: 'rainbow' })).toEqual({ ok: true, action: { kind: 'led', mode: 'rainbow', color: null, brightness: null } });
    expect(led({ mode: 'solid', color: { r: null, g: null, b: null } })).toMatchObject({ ok: true, action: { color: null } });
  });

  it('a null component reads as 0', () => {
    expect(led({ mode: 'solid', color: { r: 255, g: null, b: null } })).toMatchObject({ ok: true, action: { color: { r: 255, g: 0, b: 0 } } });
    expect(led({ mode: 'solid', color: { r: 255 } })).toMatchObject({ ok: true, action: { color: { r: 255, g: 0, b: 0 } } });
  });

  it('accepts the edges 0 and 255', () => {
    expect(led({ mode: 'flash', color: { r: 0, g: 255, b: 0 }, brightness: 0 }).ok).toBe(true);
    expect(led({ mode: 'flash', brightness: 255 }).ok).toBe(true);
  });

  it('reads mode without case or padding', () => {
    expect(led({ mode: ' Pulse ' })).toMatchObject({ ok: true, action: { mode: 'pulse' } });
  });

  const bad: [string, unknown, string][] = [
    ['params not an object', 'pulse', 'bad-params'],
    ['params true', true, 'bad-params'],
    ['missing mode', {}, 'bad-mode'],
    ['unknown mode', { mode: 'strobe' }, 'bad-mode'],
    ['non-string mode', { mode: 1 }, 'bad-mode'],
    ['component above 255', { mode: 'solid', color: { r: 256, g: 0, b: 0 } }, 'bad-color'],
    ['negative component', { mode: 'solid', color: { r: 0, g: -1, b: 0 } }, 'bad-color'],
    ['fractional component', { mode: 'solid', color: { r: 0.5, g: 0, b: 0 } }, 'bad-color'],
    ['string component', { mode: 'solid', color: { r: '255', g: 0, b: 0 } }, 'bad-color'],
    ['color as an array', { mode: 'solid', color: [255, 0, 0] }, 'bad-color'],
    ['color as a string', { mode: 'solid', color: '#ff0000' }, 'bad-color'],
    ['brightness above 255', { mode: 'solid', brightness: 300 }, 'bad-brightness'],
    ['negative brightness', { mode: 'solid', brightness: -1 }, 'bad-brightness'],
    ['fractional brightness', { mode: 'solid', brightness: 12.5 }, 'bad-brightness'],
    ['string brightness', { mode: 'solid', brightness: 'max' }, 'bad-brightness'],
  ];
  for (const [name, p, reason] of bad) {
    it(`refuses ${name}`, () => expect(led(p)).toEqual({ ok: false, reason, kind: 'led' }));
  }
});

describe('lights', () => {
  it('off and full', () => {
    expect(validateAction(el('lights', { value: 'off' }))).toEqual({ ok: true, action: { kind: 'lights', value: 'off' } });
    expect(validateAction(el('lights', { value: 'FULL' }))).toEqual({ ok: true, action: { kind: 'lights', value: 'full' } });
  });
  for (const v of ['on', 'dim', '', null, 1, true]) {
    it(`refuses value ${JSON.stringify(v)}`, () => expect(refused(validateAction(el('lights', { value: v })))).toBe('bad-value'));
  }
  it('refuses non-object params', () => expect(refused(validateAction(el('lights', 'off')))).toBe('bad-params'));
});

describe('config', () => {
  const config = (values: Record<string, unknown>) => validateAction(el('config', cfg(values)));

  const good: [string, unknown, unknown][] = [
    ['ledBrightness', 0, 0],
    ['ledBrightness', 255, 255],
    ['ledBrightness', '128', 128],
    ['priority', 'high', 'high'],
    ['posture', 'quiet', 'quiet'],
    ['profile', 2, 2],
    ['theme', 'dark-blue', 'dark-blue'],
    ['attnHoldMs', 600000, 600000],
    ['sfxLvlN', 0, 0],
    ['sfxLvlO', 100, 100],
    ['sfxVol', 55, 55],
    ['sfxTheme', 'retro_8bit', 'retro_8bit'],
    ['sttProv', 'openai', 'openai'],
    ['ttsProv', 'local', 'local'],
    ['ttsVoice', 'en-GB.alloy', 'en-GB.alloy'],
    ['ttsOn', true, true],
    ['ttsOn', 'false', false],
    ['sleepOvr', -1, -1],
    ['sleepOvr', 1440, 1440],
    ['brightOvr', -1, -1],
    ['brightOvr', 255, 255],
    ['devName', '  Desk Büddy 😀 ', 'Desk Büddy 😀'],
  ];
  for (const [key, value, expected] of good) {
    it(`sets ${key} = ${JSON.stringify(value)}`, () => {
      expect(config({ [key]: value })).toEqual({ ok: true, action: { kind: 'config', values: { [key]: expected } } });
    });
  }

  it('covers every allow-listed key in the table above', () => {
    expect(new Set(good.map((g) => g[0]))).toEqual(new Set(CONFIG_KEY_NAMES));
  });

  it('sets several keys in one action', () => {
    expect(config({ sfxVol: 10, ttsOn: false, theme: 'night' })).toEqual({
      ok: true,
      action: { kind: 'config', values: { sfxVol: 10, ttsOn: false, theme: 'night' } },
    });
  });

  const bad: [string, unknown][] = [
    ['ledBrightness', 256],
    ['ledBrightness', -1],
    ['ledBrightness', 1.5],
    ['ledBrightness', 'bright'],
    ['ledBrightness', true],
    ['profile', 3],
    ['attnHoldMs', 600001],
    ['sfxLvlN', 101],
    ['sfxVol', '1e2'],
    ['sleepOvr', -2],
    ['brightOvr', 256],
    ['ttsOn', 1],
    ['ttsOn', 'yes'],
    ['theme', ''],
    ['theme', 'has space'],
    ['theme', 'x'.repeat(24)],
    ['priority', 'x'.repeat(16)],
    ['ttsVoice', 'v'.repeat(40)],
    ['sttProv', 'ünïcode'],
    ['posture', 5],
    ['devName', '   '],
    ['devName', 'bad\u0007name'],
    ['devName', 'é'.repeat(16)],
    ['devName', { name: 'x' }],
  ];
  for (const [key, value] of bad) {
    it(`refuses ${key} = ${JSON.stringify(value)} with bad-value naming the key`, () => {
      expect(config({ [key]: value })).toEqual({ ok: false, reason: 'bad-value', kind: 'config', key });
    });
  }

  it('refuses a config that sets nothing', () => {
    expect(refused(config({}))).toBe('empty-config');
    expect(refused(validateAction({ config: {} }))).toBe('empty-config');
  });

  it('refuses non-object params', () => {
    expect(refused(validateAction({ config: 'ledBrightness=3' }))).toBe('bad-params');
    expect(refused(validateAction({ config: [['ledBrightness', 3]] }))).toBe('bad-params');
  });

  it('refuses an unknown key, without echoing it', () => {
    const r = config({ volumeBoost: 11 });
    expect(r).toEqual({ ok: false, reason: 'unknown-key', kind: 'config' });
    expect(JSON.stringify(r)).not.toContain('volumeBoost');
  });

  it('ignores unknown keys that are null', () => {
    expect(config({ sfxVol: 3, volumeBoost: null }).ok).toBe(true);
  });
});

describe('config: protected keys', () => {
  const SECRET = 'sk-live-5up3r-s3cr3t-VALUE';
  const protectedKeys = [...PROTECTED_CONFIG_KEYS, 'budgetDaily', 'budgetA', 'APIKEYA', 'TgToken', 'customApiKey', 'webhookSecret', 'wifiPass', 'chatAllowlist'];

  for (const key of protectedKeys) {
    it(`${key} is refused whole with protected-BLOCKED, never echoing the value`, () => {
      for (const value of [SECRET, 12345, true, { nested: SECRET }, [SECRET]]) {
        const r = validateAction(el('config', cfg({ [key]: value, sfxVol: 40 })));
        expect(r).toEqual({ ok: false, reason: 'protected-BLOCKED', kind: 'config' });
        const text = JSON.stringify(r);
        expect(text).not.toContain(SECRET);
        expect(text).not.toContain('12345');
        expect(text).not.toContain(key);
      }
      expect(isProtectedConfigKey(key)).toBe(true);
    });
  }

  it('a protected key is refused even with a null value', () => {
    expect(refused(validateAction({ config: { sfxVol: 40, apiKeyA: null } }))).toBe('protected-BLOCKED');
  });

  it('protected-BLOCKED takes precedence over every other refusal', () => {
    expect(refused(validateAction({ config: { apiKeyB: SECRET, volumeBoost: 1 } }))).toBe('protected-BLOCKED');
    expect(refused(validateAction({ config: { tgToken: SECRET, ledBrightness: 999 } }))).toBe('protected-BLOCKED');
    expect(refused(validateAction({ config: { orchHost: SECRET }, reboot: true }))).toBe('protected-BLOCKED');
    expect(refused(validateAction({ config: { fabric: SECRET }, dance: 1 }))).toBe('protected-BLOCKED');
  });

  it('the whole list of actions keeps the refusal value-free', () => {
    const r = validateActions([{ lights: { value: 'off' } }, { config: { allowlist: [SECRET] } }, { reboot: true }]);
    expect(r.actions).toEqual([{ kind: 'lights', value: 'off' }, { kind: 'reboot' }]);
    expect(r.refused).toEqual([{ index: 1, reason: 'protected-BLOCKED', kind: 'config' }]);
    expect(JSON.stringify(r)).not.toContain(SECRET);
  });

  it('no allow-listed key reads as protected', () => {
    for (const k of CONFIG_KEY_NAMES) expect(isProtectedConfigKey(k)).toBe(false);
  });

  it('orch_model is the one way to change the orchestrator model (config orchModel is protected)', () => {
    expect(refused(validateAction({ config: { orchModel: 'gpt-x' } }))).toBe('protected-BLOCKED');
    expect(validateAction({ orch_model: { provider: 'openai', model: 'gpt-x' } }).ok).toBe(true);
  });
});

describe('orch_model', () => {
  const om = (p: unknown) => validateAction(el('orch_model', p));
  for (const provider of ['openai', 'anthropic', 'mistral']) {
    it(`provider ${provider}`, () => {
      expect(om({ provider, model: 'some-model-1' })).toEqual({ ok: true, action: { kind: 'orch_model', provider, model: 'some-model-1' } });
    });
  }
  it('reads provider without case; trims the model', () => {
    expect(om({ provider: 'Anthropic', model: ' claude-x ' })).toEqual({ ok: true, action: { kind: 'orch_model', provider: 'anthropic', model: 'claude-x' } });
  });
  it('accepts a model id of exactly 39 bytes', () => {
    expect(om({ provider: 'mistral', model: 'm'.repeat(39) }).ok).toBe(true);
  });
  const bad: [string, unknown, string][] = [
    ['unknown provider', { provider: 'acme', model: 'x' }, 'bad-provider'],
    ['missing provider', { model: 'x' }, 'bad-provider'],
    ['null provider', { provider: null, model: 'x' }, 'bad-provider'],
    ['missing model', { provider: 'openai' }, 'bad-model'],
    ['empty model', { provider: 'openai', model: '  ' }, 'bad-model'],
    ['non-string model', { provider: 'openai', model: 4 }, 'bad-model'],
    ['model over 39 bytes', { provider: 'openai', model: 'm'.repeat(40) }, 'bad-model'],
    ['model of 38 bytes plus a 2-byte char', { provider: 'openai', model: 'm'.repeat(38) + 'é' }, 'bad-model'],
    ['model with a space', { provider: 'openai', model: 'gpt 4' }, 'bad-model'],
    ['params not an object', 'openai/gpt', 'bad-params'],
  ];
  for (const [name, p, reason] of bad) it(`refuses ${name}`, () => expect(om(p)).toEqual({ ok: false, reason, kind: 'orch_model' }));
});

describe('reboot', () => {
  it('true or an object reboots', () => {
    expect(validateAction(el('reboot', true))).toEqual({ ok: true, action: { kind: 'reboot' } });
    expect(validateAction({ reboot: {} })).toEqual({ ok: true, action: { kind: 'reboot' } });
  });
  it('false is no action at all', () => expect(refused(validateAction(el('reboot', false)))).toBe('no-kind'));
  for (const v of [1, 'now', [true]]) {
    it(`refuses reboot ${JSON.stringify(v)}`, () => expect(refused(validateAction({ reboot: v }))).toBe('bad-params'));
  }
});

describe('tts', () => {
  const tts = (p: unknown) => validateAction(el('tts', p));
  it('speaks trimmed text', () => expect(tts({ text: ' Hello there ' })).toEqual({ ok: true, action: { kind: 'tts', text: 'Hello there' } }));
  it('cuts long text at 1024 bytes on a character boundary', () => {
    const r = tts({ text: '€'.repeat(400) });
    expect(r.ok && r.action.kind === 'tts' && r.action.text).toBe('€'.repeat(341));
  });
  for (const [name, p] of [
    ['empty text', { text: '' }],
    ['blank text', { text: '  ' }],
    ['missing text', {}],
    ['non-string text', { text: 5 }],
  ] as const) {
    it(`refuses ${name}`, () => expect(tts(p)).toEqual({ ok: false, reason: 'empty-text', kind: 'tts' }));
  }
  it('refuses non-object params', () => expect(refused(tts('hello'))).toBe('bad-params'));
});

describe('validateActions', () => {
  it('validates in order and indexes refusals', () => {
    const r = validateActions([{ tts: { text: 'a' } }, 5, { lights: { value: 'full' }, reboot: true }, { config: { sfxVol: 500 } }]);
    expect(r.actions).toEqual([{ kind: 'tts', text: 'a' }]);
    expect(r.refused).toEqual([
      { index: 1, reason: 'not-object' },
      { index: 2, reason: 'several-kinds' },
      { index: 3, reason: 'bad-value', kind: 'config', key: 'sfxVol' },
    ]);
  });
});
