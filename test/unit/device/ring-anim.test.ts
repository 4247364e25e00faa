// The LED ring's animations (spec: device action led with modes solid,
// spinner, pulse, flash, rainbow, colour and brightness; lights off and full;
// RINGANIM 0-4; the attention hold attnHoldMs; the update's progress on the
// ring): frames as pure functions of time, and the engine on the ring-tft
// board drawing them on the virtual clock at the profile's frame rate.
import { describe, expect, it } from 'vitest';
import { MCP_CALLER } from '../../../src/mcp/server.ts';
import { ANIMATIONS, animFrame, hue, modeFrame, parseAnim, progressFrame, pulseLevel, PULSE_FLOOR, SPINNER_PERIOD_MS } from '../../../src/device/ring-anim.ts';
import { DEFAULT_ATTN_HOLD_MS } from '../../../src/device/ring-engine.ts';
import { ringFrame } from '../../../src/device/ring.ts';
import { flushJobs } from '../../support/clock.ts';
import { mountSystem, testKernel } from '../../support/kernel.ts';
import { createMemHal } from '../../support/memhal.ts';

const RED = { r: 255, g: 0, b: 0 };
const px = (f: Uint8Array, i: number): number[] => [f[i * 3]!, f[i * 3 + 1]!, f[i * 3 + 2]!];
const sum = (f: Uint8Array): number => f.reduce((a, b) => a + b, 0);
/** The index of the brightest LED. */
const brightest = (f: Uint8Array): number => {
  let best = 0;
  for (let i = 1; i < f.length / 3; i++) if (sum(f.subarray(i * 3, i * 3 + 3)) > sum(f.subarray(best * 3, best * 3 + 3))) best = i;
  return best;
};

describe('frames as functions of time', () => {
  it('solid is the colour at the brightness, unchanged over time', () => {
    expect(px(modeFrame('solid', RED, 24, 0, 128), 5)).toEqual([128, 0, 0]);
    expect(modeFrame('solid', RED, 24, 12345, 128)).toEqual(modeFrame('solid', RED, 24, 0, 128));
    expect(sum(modeFrame('off', RED, 24, 500, 255))).toBe(0);
  });

  it('spinner: the comet head goes round the ring once in 1.2 s, its tail fading behind', () => {
    expect(brightest(modeFrame('spinner', RED, 24, 0, 255))).toBe(0);
    expect(brightest(modeFrame('spinner', RED, 24, SPINNER_PERIOD_MS / 4, 255))).toBe(6);
    expect(brightest(modeFrame('spinner', RED, 24, SPINNER_PERIOD_MS / 2, 255))).toBe(12);
    expect(brightest(modeFrame('spinner', RED, 24, SPINNER_PERIOD_MS, 255))).toBe(0);
    const f = modeFrame('spinner', RED, 24, 600, 255);
    // behind the head (lower indices) it fades; ahead of it the ring is dark
    expect(f[12 * 3]!).toBeGreaterThan(f[10 * 3]!);
    expect(f[10 * 3]!).toBeGreaterThan(f[6 * 3]!);
    expect(f[16 * 3]!).toBe(0);
  });

  it('pulse breathes from dim to full and back every 2 s; flash is on for 250 ms, off for 250 ms', () => {
    expect(pulseLevel(0)).toBeCloseTo(PULSE_FLOOR);
    expect(pulseLevel(1000)).toBeCloseTo(1);
    expect(pulseLevel(2000)).toBeCloseTo(PULSE_FLOOR);
    expect(px(modeFrame('pulse', RED, 24, 1000, 200), 3)).toEqual([200, 0, 0]);
    expect(px(modeFrame('pulse', RED, 24, 0, 200), 3)).toEqual([20, 0, 0]);
    expect(px(modeFrame('flash', RED, 24, 100, 200), 0)).toEqual([200, 0, 0]);
    expect(px(modeFrame('flash', RED, 24, 300, 200), 0)).toEqual([0, 0, 0]);
    expect(px(modeFrame('flash', RED, 24, 600, 200), 0)).toEqual([200, 0, 0]);
  });

  it('rainbow spreads the colour wheel over the ring and turns it once in 4 s', () => {
    const f0 = modeFrame('rainbow', RED, 24, 0, 255);
    expect(px(f0, 0)).toEqual([255, 0, 0]);
    expect(px(f0, 8)).toEqual(Object.values(hue(1 / 3)));
    // a quarter turn later LED 0 shows what LED 6 showed
    expect(px(modeFrame('rainbow', RED, 24, 1000, 255), 0)).toEqual(px(f0, 6));
  });

  it('the five built-in animations: boot fills white, thinking spins blue, listening breathes cyan, success blinks green twice, error red three times', () => {
    expect(ANIMATIONS.map((a) => a.name)).toEqual(['boot', 'thinking', 'listening', 'success', 'error']);
    const boot = animFrame(0, 24, 500, 255);
    expect(px(boot, 0)).toEqual([255, 255, 255]);
    expect(px(boot, 12)).toEqual([0, 0, 0]);
    expect(sum(animFrame(0, 24, 1100, 255))).toBe(24 * 3 * 255);
    expect(brightest(animFrame(1, 24, 300, 255))).toBe(6);
    expect(px(animFrame(1, 24, 0, 255), 0)).toEqual([0, 90, 255]);
    expect(px(animFrame(2, 24, 1000, 255), 0)).toEqual([0, 200, 180]);
    const success = [0, 200, 400, 1000].map((t) => px(animFrame(3, 24, t, 255), 0));
    expect(success).toEqual([[0, 220, 60], [0, 0, 0], [0, 220, 60], [0, 220, 60]]);
    const error = [0, 150, 250, 500, 800].map((t) => px(animFrame(4, 24, t, 255), 0)[0]);
    expect(error).toEqual([255, 0, 255, 255, 0]);
    expect(parseAnim('3')).toBe(3);
    expect(parseAnim('Listening')).toBe(2);
    expect(parseAnim('5')).toBeNull();
  });

  it('the progress arc lights LEDs from LED 0 as the download goes, the edge LED partly, the rest a dim track', () => {
    const f = progressFrame(50, 24, 255);
    expect(px(f, 0)).toEqual([0, 40, 160]);
    expect(px(f, 11)).toEqual([0, 40, 160]);
    expect(px(f, 12)).toEqual([0, 3, 13]); // the track
    const edge = progressFrame(52, 24, 255);
    expect(px(edge, 12)[2]).toBeGreaterThan(13); // 0.48 of an LED
    expect(px(edge, 12)[2]).toBeLessThan(160);
    expect(sum(progressFrame(100, 24, 255))).toBe(24 * (40 + 160));
  });

  it('ringFrame keeps its meaning: the state at a time, off dark', () => {
    expect(px(ringFrame({ mode: 'solid', color: RED, brightness: null }, 24, undefined), 0)).toEqual([128, 0, 0]);
    expect(ringFrame({ mode: 'spinner', color: RED, brightness: 255 }, 24, undefined, 600)).toEqual(modeFrame('spinner', RED, 24, 600, 255));
  });
});

function ringDevice(board: 'ring-tft' | 'panel-35' = 'ring-tft') {
  const mem = createMemHal({ board });
  // The ring engine on a test kernel: the system (device.control) and the device subsystem over one set of device actions.
  const { kernel } = testKernel({ mem });
  const { actions, ring } = mountSystem(kernel);
  kernel.console.start();
  const device = { ctx: { ...kernel, actions, ring } };
  const led = (params: Record<string, unknown>) => device.ctx.tools.call('device.control', { action: { led: params } }, MCP_CALLER);
  const cmd = async (line: string): Promise<string> => {
    mem.serial.take();
    mem.serial.type(line + '\r\n');
    for (let i = 0; i < 4; i++) await flushJobs();
    return mem.serial.take().replace(/\r/g, '');
  };
  return { mem, device, led, cmd, ring: device.ctx.ring };
}

describe('the engine on the ring board', () => {
  it('draws a led action and animates it on the frame grid of the virtual clock', async () => {
    const { mem, led, ring } = ringDevice();
    await mem.clock.advance(10);
    const t0 = mem.clock.monoMs();
    expect((await led({ mode: 'spinner', color: { r: 0, g: 0, b: 255 }, brightness: 255 })).output).toBe('led spinner: shown on the ring');
    expect(brightest(mem.ring.last()!)).toBe(0);
    await mem.clock.advance(300);
    expect(mem.ring.last()).toEqual(modeFrame('spinner', { r: 0, g: 0, b: 255 }, 24, 300, 255));
    expect(brightest(mem.ring.last()!)).toBe(6);
    await mem.clock.advance(300);
    expect(brightest(mem.ring.last()!)).toBe(12);
    // the frame at any time is the pure function at the time since the action, rounded down to the 50 ms grid
    expect(ring.frameAt(t0 + 1234)).toEqual(modeFrame('spinner', { r: 0, g: 0, b: 255 }, 24, 1200, 255));
  });

  it('never draws faster than the profile frame rate (20 fps balanced, 30 performance, 10 saver) and not at all for a static state', async () => {
    const { mem, led, device } = ringDevice();
    await led({ mode: 'rainbow', color: null, brightness: 255 });
    let before = mem.ring.frames.length;
    await mem.clock.advance(1000);
    expect(mem.ring.frames.length - before).toBe(20);
    device.ctx.actions.apply({ kind: 'config', values: { profile: 0 } });
    before = mem.ring.frames.length;
    await mem.clock.advance(1000);
    expect(mem.ring.frames.length - before).toBeGreaterThanOrEqual(29);
    expect(mem.ring.frames.length - before).toBeLessThanOrEqual(30);
    device.ctx.actions.apply({ kind: 'config', values: { profile: 2 } });
    before = mem.ring.frames.length;
    await mem.clock.advance(1000);
    expect(mem.ring.frames.length - before).toBe(10);
    await led({ mode: 'solid', color: { r: 10, g: 20, b: 30 }, brightness: null });
    before = mem.ring.frames.length;
    await mem.clock.advance(5000);
    expect(mem.ring.frames.length).toBe(before);
  });

  it('the saver profile caps the brightness at 64 whatever the action asks', async () => {
    const { mem, led, device } = ringDevice();
    await led({ mode: 'solid', color: RED, brightness: 255 });
    expect(px(mem.ring.last()!, 0)).toEqual([255, 0, 0]);
    device.ctx.actions.apply({ kind: 'config', values: { profile: 2 } });
    expect(px(mem.ring.last()!, 0)).toEqual([64, 0, 0]);
    device.ctx.actions.apply({ kind: 'config', values: { profile: 1 } });
    expect(px(mem.ring.last()!, 0)).toEqual([255, 0, 0]);
  });

  it('lights full is white at full brightness, lights off is dark', async () => {
    const { mem, device } = ringDevice();
    await device.ctx.tools.call('device.control', { action: { lights: { value: 'full' } } }, MCP_CALLER);
    expect(px(mem.ring.last()!, 23)).toEqual([255, 255, 255]);
    await device.ctx.tools.call('device.control', { action: { lights: { value: 'off' } } }, MCP_CALLER);
    expect(sum(mem.ring.last()!)).toBe(0);
  });

  it('RINGANIM holds an animation for attnHoldMs, then returns to the led state as it was', async () => {
    const { mem, led, cmd, device, ring } = ringDevice();
    await led({ mode: 'solid', color: RED, brightness: 100 });
    expect(await cmd('RINGANIM 1')).toBe(`anim=1 thinking: a blue comet circles the ring\nhold=${DEFAULT_ATTN_HOLD_MS} ms (default)\nOK\n`);
    const t0 = mem.clock.monoMs();
    await mem.clock.advance(300);
    expect(mem.ring.last()).toEqual(animFrame(1, 24, 300, 128));
    expect(ring.view().layer).toBe('attention');
    await mem.clock.advance(DEFAULT_ATTN_HOLD_MS);
    expect(ring.view().layer).toBe('led');
    expect(mem.ring.last()).toEqual(modeFrame('solid', RED, 24, 0, 100));
    // attnHoldMs from a config action sets the hold
    device.ctx.actions.apply({ kind: 'config', values: { attnHoldMs: 1000 } });
    expect(await cmd('RINGANIM error')).toBe('anim=4 error: red blinks three times, then a pause\nhold=1000 ms (attnHoldMs)\nOK\n');
    await mem.clock.advance(999);
    expect(ring.view().name).toBe('error');
    await mem.clock.advance(2);
    expect(ring.view().name).toBe('solid');
    expect(mem.clock.monoMs() - t0).toBeGreaterThan(DEFAULT_ATTN_HOLD_MS);
    expect(await cmd('RINGANIM 9')).toMatch(/^ERR usage: RINGANIM <0-4> \(0 boot, 1 thinking, 2 listening, 3 success, 4 error\) or RINGANIM off\n$/);
  });

  it('attnHoldMs 0 holds until the ring changes; a led action ends an attention at once', async () => {
    const { mem, led, cmd, device, ring } = ringDevice();
    device.ctx.actions.apply({ kind: 'config', values: { attnHoldMs: 0 } });
    expect(await cmd('RINGANIM 2')).toMatch(/\nhold=until the ring changes \(attnHoldMs\)\nOK\n$/);
    await mem.clock.advance(60_000);
    expect(ring.view()).toMatchObject({ layer: 'attention', name: 'listening', holdLeftMs: null });
    await led({ mode: 'flash', color: RED, brightness: 200 });
    expect(ring.view()).toMatchObject({ layer: 'led', name: 'flash' });
    expect(px(mem.ring.last()!, 0)).toEqual([200, 0, 0]);
    await mem.clock.advance(250);
    expect(px(mem.ring.last()!, 0)).toEqual([0, 0, 0]);
    expect(await cmd('RINGANIM 0')).toMatch(/^anim=0 boot/);
    expect(await cmd('RINGANIM off')).toBe('attention ended: back to the LED state\nOK\n');
    expect(ring.view().name).toBe('flash');
  });

  it('LEDSTATE shows the layer, the animation, its time and the frame on the ring', async () => {
    const { mem, cmd, ring } = ringDevice();
    expect(await cmd('RINGANIM 3')).toMatch(/^anim=3 success/);
    await mem.clock.advance(175); // lands on the 150-300 ms dark blink (on the 50 ms grid: 150)
    const out = await cmd('LEDSTATE');
    expect(out).toBe(`mode=off color=255,255,255 brightness=128 (default) ring=24\nshowing=attention name=success t=150 level=128 fps=20 hold=${DEFAULT_ATTN_HOLD_MS - 175}\nframe=${'000000'.repeat(24)}\nOK\n`);
    await mem.clock.advance(200);
    expect((await cmd('LEDSTATE')).split('\n')[2]).toBe(`frame=${'006e1e'.repeat(24)}`);
    expect(Buffer.from(mem.ring.last()!).toString('hex')).toBe('006e1e'.repeat(24));
    expect(ring.shows).toBe(mem.ring.frames.length);
  });

  it('LEDTEST suspends the animation so its test colours stay up, then the animation goes on', async () => {
    const { mem, led } = ringDevice();
    await led({ mode: 'pulse', color: RED, brightness: 255 });
    mem.serial.take();
    mem.serial.type('LEDTEST\r\n');
    await mem.clock.advance(1100);
    expect(mem.serial.take()).toMatch(/back to the LED state\r\nOK\r\n$/);
    const colours = mem.ring.frames.map((f) => Buffer.from(f.subarray(0, 3)).toString('hex'));
    const i = colours.indexOf('ff0000', colours.indexOf('00ff00') - 1);
    expect(colours.slice(i, i + 4)).toEqual(['ff0000', '00ff00', '0000ff', 'ffffff']);
    const after = mem.ring.frames.length;
    await mem.clock.advance(500);
    expect(mem.ring.frames.length - after).toBe(10);
  });

  it('an activity holds an animation until it releases it', async () => {
    const { mem, ring } = ringDevice();
    const release = ring.hold(2);
    await mem.clock.advance(30_000);
    expect(ring.view().name).toBe('listening');
    release();
    expect(ring.view()).toMatchObject({ layer: 'led', name: 'off' });
    expect(sum(mem.ring.last()!)).toBe(0);
    release(); // twice is harmless
  });

  it('the progress layer wins over everything while an install runs, then the ring returns', async () => {
    const { mem, led, ring } = ringDevice();
    await led({ mode: 'solid', color: RED, brightness: 255 });
    ring.attention(1);
    ring.progress(25);
    expect(mem.ring.last()).toEqual(progressFrame(25, 24, 128));
    ring.progress(75);
    expect(mem.ring.last()).toEqual(progressFrame(75, 24, 128));
    ring.progress(null);
    expect(ring.view().name).toBe('thinking');
  });
});

describe('a board without a ring', () => {
  it('keeps the state for the screen and gives one indicator colour; RINGANIM says the screen shows it', async () => {
    const { mem, led, cmd, ring } = ringDevice('panel-35');
    expect((await led({ mode: 'pulse', color: RED, brightness: 200 })).output).toBe('led pulse: recorded; this board has no LED ring');
    const t0 = mem.clock.monoMs();
    expect(ring.indicator(t0)).toEqual({ r: 20, g: 0, b: 0 });
    expect(ring.indicator(t0 + 1000)).toEqual({ r: 200, g: 0, b: 0 });
    expect(await cmd('RINGANIM 1')).toMatch(/this board has no ring: the screen's indicator shows it\nOK\n$/);
    expect(ring.view().name).toBe('thinking');
    expect(mem.ring.frames).toEqual([]);
  });
});
