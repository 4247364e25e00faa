// past --heap-max the process exits with 71
const keep = [];
for (let i = 0; i < 1e7; i++) keep.push(new ArrayBuffer(64 * 1024));
__sim.print("not reached");
