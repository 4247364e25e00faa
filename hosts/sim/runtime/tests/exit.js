// __sim.exit flushes fd 1 and ends with the code, even with timers pending
__sim.print("bye");
__sim.setTimer(1000, false, () => __sim.print("not reached"));
__sim.setTimer(1, false, () => __sim.exit(64));
