// The firmware side of pipe-test.mjs: calls, sends, events, warps over fd 3.
const results = {};
const events = [];
let inCall = false;
let reentered = false;

function fail(message) {
  __sim.send(JSON.stringify({ op: "fail", message }));
  __sim.exit(1);
}

function call(obj, bin) {
  inCall = true;
  const [json, reply] = __sim.call(JSON.stringify(obj), bin);
  inCall = false;
  return [JSON.parse(json), reply];
}

// a checksum over 32-bit words (pure JS on XS runs about 4 M simple steps a second)
function sum(buffer) {
  const words = new Uint32Array(buffer, 0, buffer.byteLength >> 2);
  let s = 0;
  for (let i = 0; i < words.length; i++) s = ((s ^ words[i]) + i) | 0;
  const tail = new Uint8Array(buffer, words.length * 4);
  for (let i = 0; i < tail.length; i++) s = ((s ^ tail[i]) + i) | 0;
  return s >>> 0;
}

__sim.onEvent = (json, bin) => {
  if (inCall) reentered = true;
  const e = JSON.parse(json);
  events.push({ e, bin, mono: __sim.monoMs() });
  step(e);
};

// 1. binaries of every kind, with offsets
{
  const base = new Uint8Array(16);
  for (let i = 0; i < 16; i++) base[i] = i;
  const [r1, b1] = call({ op: "echo" }, base.subarray(3, 7));
  const [r2, b2] = call({ op: "echo" }, new DataView(base.buffer, 8, 4));
  const [r3, b3] = call({ op: "echo" }, new Int32Array(base.buffer, 4, 2));
  const [r4, b4] = call({ op: "echo" }, base.buffer);
  const [r5, b5] = call({ op: "echo", text: "héllo ✓ 😀" });
  if (!(b1 instanceof ArrayBuffer)) fail("reply binary is not an ArrayBuffer");
  results.views = [
    Array.from(new Uint8Array(b1)).join(","),
    Array.from(new Uint8Array(b2)).join(","),
    Array.from(new Uint8Array(b3)).join(","),
    new Uint8Array(b4).length,
    b5 === undefined,
    r5.echo.text,
  ];
}

// 2. a call made while events are pending does not deliver them
__sim.send(JSON.stringify({ op: "fire-events", count: 3 }));
{
  const [r] = call({ op: "slow" });
  results.slow = r.ok;
  results.eventsDuringCall = events.length;
}

let stage = 0;
function step(e) {
  if (e.type === "tick" && e.n === 3 && stage === 0) {
    stage = 1;
    results.ticks = events.map((x) => x.e.type + x.e.n).join(" ");
    bigRoundTrip();
  } else if (e.type === "big" && stage === 1) {
    stage = 2;
    const bin = events[events.length - 1].bin;
    results.bigEvent = [bin.byteLength, sum(bin)];
    warpTest();
  } else if (e.type === "after-warp" && stage === 2) {
    stage = 3;
    results.warpLog = warpLog.join(" ");
    results.warpMono = Math.round(__sim.monoMs() - warpStart);
    results.reentered = reentered;
    timing();
  }
}

// 3. a 4 MB binary both ways
function bigRoundTrip() {
  const big = new Uint32Array(1024 * 1024);
  for (let i = 0; i < big.length; i++) big[i] = Math.imul(i, 2654435761);
  const [r, back] = call({ op: "echo", sum: sum(big.buffer) }, new Uint8Array(big.buffer));
  results.big = [r.ok, r.size, r.sumOk, back.byteLength, sum(back) === sum(big.buffer)];
  __sim.send(JSON.stringify({ op: "send-big" }));
}

// 4. warp: timers fire at their due times, in order, before the event behind the warp
const warpLog = [];
let warpStart = 0;
function warpTest() {
  warpStart = __sim.monoMs();
  let n = 0;
  const rep = __sim.setTimer(10000, true, () => {
    n++;
    warpLog.push("r" + Math.round((__sim.monoMs() - warpStart) / 1000));
    if (n === 6) __sim.clearTimer(rep);
  });
  __sim.setTimer(25000, false, () => {
    warpLog.push("o" + Math.round((__sim.monoMs() - warpStart) / 1000));
    Promise.resolve().then(() => warpLog.push("job"));
  });
  __sim.send(JSON.stringify({ op: "warp-me", ms: 60000 }));
}

// 5. round trip time of a small call
function timing() {
  const n = 20000;
  const t0 = __sim.monoMs();
  for (let i = 0; i < n; i++) __sim.call('{"op":"ping"}');
  const t1 = __sim.monoMs();
  results.callMicros = Math.round(((t1 - t0) * 1000) / n * 10) / 10;
  __sim.send(JSON.stringify({ op: "done", results }));
}
