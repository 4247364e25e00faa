// an exception in a timer ends the process with 70
function thrower() { throw new TypeError("boom from a timer"); }
__sim.setTimer(1, false, () => thrower());
__sim.setTimer(100, false, () => __sim.print("not reached"));
