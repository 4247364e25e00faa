// a bundle that does not parse exits 74
__sim.print("never");
let x = ;
