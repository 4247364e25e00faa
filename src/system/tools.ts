// The system subsystem's tools: system.health (hardware and subsystem
// health), device.status (the live state snapshot), device.selftest,
// device.control (one device action, through the validator, the allow-list
// of the caller's role (src/device/action-roles.ts) and the applier)
// and ota.status (read from the snapshot's update fields, so it needs no
// update engine to exist: absent fields read as null).

import type { Kernel } from '../core/kernel.ts';
import { fail, ok, type ToolSpec } from '../core/tools/types.ts';
import { validateAction } from '../contracts/index.ts';
import { actingRole, actionRefusal } from '../device/index.ts';
import { isPlainObject, stringify } from '../util/json.ts';
import type { SystemOptions } from './options.ts';
import { HEAP_FLOOR_BLOCK, HEAP_FLOOR_FREE, formatSelftest, runSelftest, type SelftestParts } from './selftest.ts';

/** The spec's update fields, in the order ota.status reports them. */
export const OTA_FIELDS = ['ota', 'otaResult', 'otaLatest', 'otaNotes', 'otaPct', 'otaErr', 'otaSlot', 'lastOta', 'autoUpd'] as const;

/** Keys never handed to a tool, whatever a subsystem puts in the snapshot (as the tunnel strips them). */
const SECRET_KEYS = ['token', 'apPass'];

function withoutSecrets(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutSecrets);
  if (!isPlainObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (SECRET_KEYS.indexOf(k) < 0) out[k] = withoutSecrets(x);
  return out;
}

const NO_ARGS = { type: 'object', properties: {}, additionalProperties: false };

function health(k: Kernel, card: SystemOptions['card'], battery: SystemOptions['power']): Record<string, unknown> {
  const { hal } = k;
  const heap = hal.system.heap();
  let nvs = 'ok';
  try {
    hal.nvs.keys('sys');
  } catch (e) {
    nvs = `error: ${String(e)}`;
  }
  const sd = card.get();
  const station = hal.wifi.station();
  const running = hal.flash.runningSlot();
  return {
    firmware: { version: hal.build.version, build: hal.build.buildId, board: hal.board.type, mode: k.mode, uptimeS: Math.floor(hal.clock.monoMs() / 1000), resetReason: hal.system.resetReason() },
    heap: { ...heap, aboveFloor: heap.freeInternal >= HEAP_FLOOR_FREE && heap.largestBlock >= HEAP_FLOOR_BLOCK },
    storage: {
      nvs,
      sd: { tier: sd.tier, totalBytes: sd.totalBytes, freeBytes: sd.freeBytes, quota: sd.quota },
      flash: { runningSlot: running, bootSlot: hal.flash.bootSlot(), runningState: hal.flash.slotState(running) },
    },
    hardware: {
      display: { width: hal.display.width, height: hal.display.height, controller: hal.board.display.controller },
      ring: { leds: hal.ring.count },
      touch: hal.touch.present,
      // The battery model (calibrated level, health estimate), as the update gate reads it.
      battery: battery.reading(),
      speaker: hal.audio.present,
      microphone: hal.mic.present,
    },
    network: { wifi: hal.wifi.enabled(), station: { state: station.state, ssid: station.ssid, rssi: station.rssi }, setupNetwork: hal.wifi.apActive(), http: k.mode === 1 },
    subsystems: { tools: k.tools.all().length, console: hal.build.testBuild ? 'test build' : 'release build' },
  };
}

/** The live state: the snapshot, with usage.budget per provider ({} until providers report one). */
function status(k: Kernel): Record<string, unknown> {
  const snap = k.status.snapshot();
  const usage = isPlainObject(snap.usage) ? snap.usage : {};
  return withoutSecrets({ ...snap, usage: { ...usage, budget: isPlainObject(usage.budget) ? usage.budget : {} } }) as Record<string, unknown>;
}

function otaStatus(k: Kernel): Record<string, unknown> {
  const snap = k.status.snapshot();
  const out: Record<string, unknown> = {};
  for (const k of OTA_FIELDS) out[k] = k in snap ? snap[k] : null;
  out.engine = OTA_FIELDS.some((k) => k in snap) ? 'present' : 'absent (no update engine reports yet)';
  out.note = 'Read-only: installing an update is the owner\'s (web page, chat /update, POST /api/ota/apply); no tool installs.';
  return out;
}

export function systemTools(k: Kernel, o: Pick<SystemOptions, 'card' | 'power' | 'actions' | 'people'>, selftest: SelftestParts): ToolSpec[] {
  return [
    {
      name: 'system.health',
      description: 'Hardware and subsystem health: firmware, heap against the floor, NVS, SD card, flash slots, display, ring, touch, battery, audio, Wi-Fi. JSON.',
      schema: NO_ARGS,
      access: 'open',
      where: 'both',
      handler: () => ok(stringify(health(k, o.card, o.power))),
    },
    {
      name: 'device.status',
      description: 'The full live state of the device (the state snapshot), including usage.budget per provider. JSON.',
      schema: NO_ARGS,
      access: 'open',
      where: 'both',
      handler: () => ok(stringify(status(k))),
    },
    {
      name: 'device.selftest',
      description:
        'Run the self-test: NVS read/write, SD card, flash partitions, heap floor, display, ring, touch, battery, audio. ' +
        'One PASS, FAIL or SKIP line per item. audible: true also plays a test tone, refused while the device is silent.',
      schema: {
        type: 'object',
        properties: { audible: { type: 'boolean', description: 'also run audible items (a test tone); default false', default: false } },
        additionalProperties: false,
      },
      access: 'open',
      where: 'both',
      handler: (args) => ok(formatSelftest(runSelftest(selftest, { audible: args.audible === true }))),
    },
    {
      name: 'device.control',
      description:
        'Apply one device action now, the same object as one element of the turn\'s device[] array, e.g. ' +
        '{"led":{"mode":"pulse","color":{"r":0,"g":80,"b":255},"brightness":null}}, {"lights":{"value":"off"}}, ' +
        '{"config":{"sfxVol":30}}, {"orch_model":{"provider":"openai","model":"<id>"}}, {"tts":{"text":"..."}}. ' +
        'reboot is refused here; protected settings are refused whole. config and orch_model change the device for everyone: admins only.',
      schema: {
        type: 'object',
        properties: { action: { type: 'object', description: 'one device action: exactly one kind (led, lights, config, orch_model, tts)' } },
        required: ['action'],
        additionalProperties: false,
      },
      access: 'open',
      where: 'both',
      handler: (args, caller) => {
        const v = validateAction(args.action);
        if (!v.ok) return fail('refused', `refused: ${v.reason}${v.key ? ` (${v.key})` : ''}; nothing was changed.`);
        if (v.action.kind === 'reboot') return fail('refused', 'refused: reboot is not available from device.control; nothing was changed.');
        const refusal = actionRefusal(v.action.kind, actingRole(caller, (p) => o.people.roleOf(p)));
        if (refusal) return fail('forbidden', `refused: ${refusal}; nothing was changed.`);
        const r = o.actions.apply(v.action, { unattended: caller.unattended || caller.scheduled });
        return r.ok ? ok(r.note) : fail(r.reason, r.note);
      },
    },
    {
      name: 'ota.status',
      description: 'Firmware update state (ota, otaResult, otaLatest, otaNotes, otaPct, otaErr, otaSlot, lastOta, autoUpd); null when not reported. The model cannot install updates. JSON.',
      schema: NO_ARGS,
      access: 'open',
      where: 'both',
      handler: () => ok(stringify(otaStatus(k))),
    },
  ];
}
