// an unhandled rejection is one warning line on fd 2; the run goes on
Promise.reject(new Error("nobody listens"));
async function f() { throw new RangeError("async boom"); }
f();
const handled = Promise.reject(new Error("handled"));
handled.catch(() => {});
__sim.setTimer(5, false, () => __sim.print("still running"));
