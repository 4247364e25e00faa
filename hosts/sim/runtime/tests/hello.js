// hello world: print, argv
__sim.print("hello, world");
__sim.print("argv " + JSON.stringify(__sim.argv));
