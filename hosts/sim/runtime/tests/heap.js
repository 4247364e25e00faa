// heap() figures are plausible
const h0 = __sim.heap();
const keys = ["now", "peak", "chunks", "slots", "limit", "reserved", "keys"];
for (const k of keys) if (typeof h0[k] !== "number" || !(h0[k] >= 0)) throw new Error("bad heap." + k);
if (h0.now !== h0.chunks + h0.slots) throw new Error("now != chunks + slots");
if (h0.peak < h0.now) throw new Error("peak < now");
if (h0.limit !== 8 * 1024 * 1024) throw new Error("limit " + h0.limit);
let big = [];
for (let i = 0; i < 1000; i++) big.push({ i, s: "x" + i });
const buf = new Uint8Array(500000);
const h1 = __sim.heap();
if (h1.now < h0.now + 500000) throw new Error("heap did not grow");
big = null;
__sim.gc();
const h2 = __sim.heap();
__sim.resetPeak();
const h3 = __sim.heap();
if (h3.peak !== h3.now) throw new Error("resetPeak");
__sim.print("heap ok " + JSON.stringify({ start: h0.now, grown: h1.now, afterGc: h2.now, peak: h1.peak, reserved: h3.reserved, keys: h3.keys, keep: buf.length }));
