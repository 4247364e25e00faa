// timers fire in due order, ties in the order they were set; promise jobs run after each
const log = [];
__sim.setTimer(300, false, () => {
  log.push("t300");
  // the pending timers' functions survive collections
  for (let i = 0; i < 3; i++) {
    let garbage = [];
    for (let j = 0; j < 20000; j++) garbage.push({ j, s: "g" + j });
    garbage = null;
    __sim.gc();
  }
});
__sim.setTimer(100, false, () => {
  log.push("t100");
  Promise.resolve().then(() => log.push("t100.job"));
});
__sim.setTimer(100, false, () => log.push("t100b"));
__sim.setTimer(0, false, () => log.push("t0"));
const cleared = __sim.setTimer(50, false, () => log.push("cleared!"));
__sim.clearTimer(cleared);
Promise.resolve().then(() => log.push("job0"));
let n = 0;
const rep = __sim.setTimer(20, true, () => {
  n++;
  log.push("rep" + n);
  if (n === 3) __sim.clearTimer(rep);
});
__sim.setTimer(500, false, () => {
  __sim.print(log.join(" "));
});
