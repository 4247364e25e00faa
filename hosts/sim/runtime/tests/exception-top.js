// an exception in the top-level script ends the process with 70
__sim.print("before");
null.x;
