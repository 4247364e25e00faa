// for pipe-test.mjs: waits for events (a long timer keeps the loop alive)
__sim.onEvent = () => {};
__sim.setTimer(10000, false, () => __sim.print("timed out"));
